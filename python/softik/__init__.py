"""softik: forward and inverse finite-element simulation of soft robots (docs/python.md).

The compiled part (softik._softik) binds softik's C++ library: scenes, the static, inverse and
dynamic solves with NumPy results, batches of designs. softik.table and softik.plot are pure
Python and work without it (they read the CSV files softik writes).
"""

from .errors import Error, InputError, InternalError, IoError, NumericalError, UnsupportedError
from .table import parse_csv, read_table

__version__ = "0.1.0"

_COMPILED = (
    "Scene", "load_scene", "run_scene", "RunResult", "Model", "InverseSolver", "InverseStepReport",
    "InverseSolveReport", "DynamicSimulation", "BatchSpec", "BatchResult", "load_batch", "run_batch",
    "merge_batch_shards",
)

try:
    from ._softik import (  # noqa: F401
        BatchResult, BatchSpec, DynamicSimulation, InverseSolveReport, InverseSolver, InverseStepReport,
        Model, RunResult, Scene, load_batch, load_scene, merge_batch_shards, run_batch, run_scene,
    )
    _import_error = None
except ImportError as e:  # the plots and tables still work
    _import_error = e


def __getattr__(name):
    if name in _COMPILED and _import_error is not None:
        raise ImportError(
            f"softik.{name} needs the compiled extension softik._softik, which did not load: {_import_error}. "
            "Build it with `pip install .` or a CMake build (SOFTIK_PYTHON=ON) and put <build>/python "
            "on PYTHONPATH (docs/python.md)."
        ) from _import_error
    raise AttributeError(f"module 'softik' has no attribute '{name}'")


__all__ = [
    "Error", "InputError", "NumericalError", "IoError", "UnsupportedError", "InternalError",
    "parse_csv", "read_table", *_COMPILED,
]
