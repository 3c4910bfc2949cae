"""Tables as softik writes them (CSV with a header row) read into {column: NumPy array}.

Numeric columns become float64 arrays, the others (a design's name, status, error text, a QP
status) arrays of str; empty fields of a numeric column are NaN. Pure Python: the plots use it
without the compiled extension.
"""

import csv
import io
import os

import numpy as np


def parse_csv(text):
    """{column: array} from CSV text with a header row (columns in file order). Raises ValueError
    on text that is no such table."""
    nul = text.find("\0")
    if nul >= 0:
        raise ValueError(f"line {text.count(chr(10), 0, nul) + 1}: a NUL byte: this is not a CSV table "
                         "(a binary file, or one saved as UTF-16?)")
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as e:  # not a ValueError: the plots' callers catch ValueError and OSError
        raise ValueError(f"not a CSV table: {e}") from None
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
    """{column: array} of a CSV file softik wrote (`softik run`, `softik batch`). A file that is not
    such a table (binary, not UTF-8, rows of the wrong length) raises ValueError naming the file."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{_name(path)}: not a CSV table softik wrote: byte {e.start} (0x{data[e.start]:02x}) "
                         "is not UTF-8 text (a binary file?)") from None
    try:
        return parse_csv(text)
    except ValueError as e:
        raise ValueError(f"{_name(path)}: {e}") from None


def _name(path):
    return os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else str(path)


def _column(values):
    try:
        return np.array([float(v) if v != "" else np.nan for v in values], dtype=np.float64)
    except ValueError:
        return np.array(values, dtype=str)
