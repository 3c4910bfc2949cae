"""softik's exceptions: every softik::Error of the C++ library arrives in Python as one of these.

The class says the error's kind (include/softik/error.hpp); code branches on the class (or on
``error.kind``), never on the message, which names the user's file, line, key, element or node.
"""


class Error(RuntimeError):
    """A softik::Error; ``str(error)`` is softik's message, ``error.kind`` its kind's name."""

    kind = "internal"


class InputError(Error, ValueError):
    """Bad input: a scene, mesh, parameter, option, or an array of the wrong shape or dtype."""

    kind = "input"


class NumericalError(Error, ArithmeticError):
    """A solve failed on valid input: no convergence, an inverted state, a non-finite result."""

    kind = "numerical"


class IoError(Error, OSError):
    """A file could not be read or written (missing, unreadable, disk full)."""

    kind = "io"


class UnsupportedError(Error, NotImplementedError):
    """Valid, but not available in this build or on this machine (no CUDA, no GPU)."""

    kind = "unsupported"


class InternalError(Error):
    """A broken invariant inside softik: a bug to report."""

    kind = "internal"
