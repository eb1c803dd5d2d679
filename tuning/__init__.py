"""KerasTuner search spaces for the zoo: one HyperModel per model
family (LMN, SCRBM, TrellisNet, the RNN/GRU/LSTM baselines), the papers'
grids as named spaces, and a resumable search with a report.

Needs `keras-tuner` (the `tune` extra: `pip install "keras-seq[tune]"`);
the names below are imported on first use, so `keras-seq` itself runs
without it.

    from keras_seq import tuning
    summary = tuning.search("jsb_chorales_lmn_b", space="paper", tuner="random", max_trials=30)
"""

import importlib

_EXPORTS = {
    "HYPERMODELS": "hypermodels",
    "LMNHyperModel": "hypermodels",
    "RecurrentHyperModel": "hypermodels",
    "SCRBMHyperModel": "hypermodels",
    "TrellisNetHyperModel": "hypermodels",
    "family_of": "hypermodels",
    "hypermodel_for": "hypermodels",
    "make_tuner": "tuners",
    "search": "tuners",
    "Choice": "spaces",
    "Fixed": "spaces",
    "Float": "spaces",
    "Int": "spaces",
    "SearchSpace": "spaces",
    "search_space": "spaces",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{_EXPORTS[name]}")
    return module if name == _EXPORTS[name] else getattr(module, name)
