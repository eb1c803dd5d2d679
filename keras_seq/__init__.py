"""keras-seq: sequence models from the research literature as Keras 3 layers.

The subpackages load on first use (PEP 562), so that the `keras-seq` command
line starts without importing Keras and its backend. Where Keras is already
imported, the layers load at once, registering them for
`keras.saving.load_model`; otherwise any use of a keras-seq name does.
"""

import importlib
import sys

__version__ = "0.1.0"

_SUBPACKAGES = (
    "constraints",
    "data",
    "distribute",
    "layers",
    "metrics",
    "models",
    "pretraining",
    "presets",
    "saving",
    "zoo",
    "tuning",
)
_FROM = {
    "CharacterLanguageModel": "models",
    "LMN": "layers",
    "LinearMemoryCell": "layers",
    "MaxSpectralNorm": "constraints",
    "MelodyModel": "models",
    "PianoRollModel": "models",
    "SCRBM": "layers",
    "SCRBMCell": "layers",
    "SequenceTagger": "models",
    "TrellisBlock": "layers",
    "TrellisNet": "models",
}

__all__ = ["constraints", "layers", "models", "presets", "pretraining", *_FROM, "__version__"]


def __getattr__(name):
    if name in _SUBPACKAGES:
        return importlib.import_module(f"keras_seq.{name}")
    if name in _FROM:
        return getattr(importlib.import_module(f"keras_seq.{_FROM[name]}"), name)
    raise AttributeError(f"module 'keras_seq' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_SUBPACKAGES) | set(_FROM))


# The modules that register keras-seq's objects for `keras.saving`.
_REGISTERING = ("keras_seq.constraints", "keras_seq.layers", "keras_seq.models", "keras_seq.metrics")


def _register():
    for name in _REGISTERING:
        importlib.import_module(name)


class _RegisteringLoader:
    """`keras`'s own loader, which registers keras-seq's objects once the
    module has run (`import keras_seq` before `import keras`)."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _register()

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _AfterKerasImport:
    """A one-shot import hook: the next `import keras` registers keras-seq's
    objects, so that `keras.saving.load_model` finds them in any import
    order without `import keras_seq` having to import Keras itself."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "keras":
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec("keras")
        if spec is not None and spec.loader is not None:
            spec.loader = _RegisteringLoader(spec.loader)
        return spec


if "keras" in sys.modules:
    _register()
elif not any(isinstance(finder, _AfterKerasImport) for finder in sys.meta_path):
    sys.meta_path.insert(0, _AfterKerasImport())
