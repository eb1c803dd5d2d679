"""Unpickling that builds plain data only, never arbitrary objects.

`pickle.load` on a downloaded file can run any code. These loaders admit only
the globals a data pickle needs (none for plain containers and numbers;
numpy's array reconstruction for numpy pickles) and refuse everything else
with an error naming the file and the refused global.
"""

import gzip
import importlib
import io
import pickle

# Enough to rebuild numpy arrays pickled by numpy 1.x or 2.x (Python 2 or 3).
NUMPY_ARRAY_GLOBALS = frozenset(
    {
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
        ("numpy.core.multiarray", "_reconstruct"),
        ("numpy._core.multiarray", "_reconstruct"),
        # Python 3 writes bytes into protocol-2 pickles as codecs.encode(str).
        ("_codecs", "encode"),
    }
)


class UnsafePickleError(ValueError):
    pass


class _RestrictedUnpickler(pickle.Unpickler):
    def __init__(self, file, allowed, source, **kwargs):
        super().__init__(file, **kwargs)
        self._allowed = allowed
        self._source = source

    def find_class(self, module, name):
        if (module, name) in self._allowed:
            if name == "_reconstruct":  # numpy.core became numpy._core in 2.0
                module = _numpy_multiarray_module()
            return getattr(importlib.import_module(module), name)
        raise UnsafePickleError(
            f"{self._source}: the pickle asks for {module}.{name}, which a data "
            "file has no business building; refusing to load it. Only plain "
            "containers, numbers and numpy arrays are allowed."
        )


def _numpy_multiarray_module():
    try:
        importlib.import_module("numpy._core.multiarray")
        return "numpy._core.multiarray"
    except ImportError:
        return "numpy.core.multiarray"


def load(path, allowed=frozenset(), encoding="ASCII"):
    """Loads a pickle (gzip-compressed when the name ends in .gz) admitting
    only the `(module, name)` globals in `allowed`."""
    opener = gzip.open if str(path).endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            data = f.read()
    except (OSError, EOFError) as error:
        raise ValueError(f"{path}: cannot read the file ({error}); is it truncated?") from error
    try:
        return _RestrictedUnpickler(io.BytesIO(data), allowed, path, encoding=encoding).load()
    except UnsafePickleError:
        raise
    except Exception as error:
        raise ValueError(
            f"{path}: not a readable pickle ({type(error).__name__}: {error}); the file may be corrupt or truncated."
        ) from error
