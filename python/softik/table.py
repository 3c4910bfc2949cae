"""Tables as softik writes them (CSV with a header row) read into {column: NumPy array}.

Numeric columns become float64 arrays, the others (a design's name, status, error text, a QP
status) arrays of str; empty fields of a numeric column are NaN. Pure Python: the plots use it
without the compiled extension.
"""

import csv
import io

import numpy as np


def parse_csv(text):
    """{column: array} from CSV text with a header row (columns in file order)."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        raise ValueError("the table is empty: no header row")
    header, body = rows[0], [r for r in rows[1:] if r]
    for k, r in enumerate(body):
        if len(r) != len(header):
            raise ValueError(f"row {k + 2} has {len(r)} fields, the header {len(header)}")
    table = {}
    for j, name in enumerate(header):
        values = [r[j] for r in body]
        table[name] = _column(values)
    return table


def read_table(path):
    """{column: array} of a CSV file softik wrote (`softik run`, `softik batch`)."""
    with open(path, newline="") as f:
        return parse_csv(f.read())


def _column(values):
    try:
        return np.array([float(v) if v != "" else np.nan for v in values], dtype=np.float64)
    except ValueError:
        return np.array(values, dtype=str)
