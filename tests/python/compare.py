"""Comparing tables of the Python module with the CSV files of the softik program."""

import numpy as np

# The CLI writes 10 significant digits; the module's values are the same computation's doubles.
RTOL = 2e-9


def assert_same_columns(python, cli, skip=("seconds",)):
    """Every numeric column of the CLI's table is in the Python table with the same values (to the
    CSV's precision); text columns are equal. Returns the columns compared."""
    compared = []
    for name, expected in cli.items():
        if name in skip or name.startswith("t_"):
            continue
        assert name in python, f"column '{name}' of the CLI's table is missing from Python's: {list(python)}"
        got = np.asarray(python[name])
        assert got.shape == expected.shape, f"column '{name}': {got.shape} rows, the CLI {expected.shape}"
        if expected.dtype.kind == "f":
            scale = np.max(np.abs(expected)) if expected.size else 0.0
            np.testing.assert_allclose(got.astype(float), expected, rtol=RTOL, atol=RTOL * scale + 1e-300,
                                       err_msg=f"column '{name}'")
        else:
            assert list(got) == list(expected), f"column '{name}'"
        compared.append(name)
    return compared
