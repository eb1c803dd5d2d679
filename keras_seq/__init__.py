"""keras-seq: sequence models from the research literature as Keras 3 layers.

The subpackages load on first use (PEP 562), so that the `keras-seq` command
line starts without importing Keras and its backend. Where Keras is already
imported, the layers load at once, registering them for
`keras.saving.load_model`; otherwise any use of a keras-seq name does.
"""

import importlib
import sys

__version__ = "0.1.0"

_SUBPACKAGES = ("constraints", "data", "distribute", "layers", "metrics", "models", "pretraining", "presets", "saving", "zoo", "tuning")
_FROM = {
    "CharacterLanguageModel": "models",
    "LMN": "layers",
    "LinearMemoryCell": "layers",
    "MaxSpectralNorm": "constraints",
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


if "keras" in sys.modules:
    importlib.import_module("keras_seq.constraints")
    importlib.import_module("keras_seq.layers")
    importlib.import_module("keras_seq.models")
    importlib.import_module("keras_seq.metrics")
