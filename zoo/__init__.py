"""The model zoo: recipes (one per row of a paper's table), model builders,
the run loop, presets and reports; `keras_seq.zoo.cli` is its command line.

    from keras_seq import zoo
    recipe = zoo.get_recipe("jsb_chorales_lstm")
    record = zoo.train_recipe(recipe, data_dir="../shared/data", seed=0)

The names below are imported on first use (each is one of the modules'
functions, under a name that does not shadow a module).
"""

import importlib

# public name -> (module of keras_seq.zoo, attribute)
_EXPORTS = {
    "Built": ("registry", "Built"),
    "Recipe": ("recipes", "Recipe"),
    "RECIPES": ("recipes", "RECIPES"),
    "add_recipe": ("recipes", "add"),
    "build": ("train", "build"),
    "build_task": ("presets", "build_task"),
    "compare_recipes": ("compare", "run"),
    "evaluate_run": ("train", "evaluate"),
    "evaluate_preset": ("presets", "evaluate"),
    "export_preset": ("presets", "export"),
    "get_recipe": ("recipes", "get"),
    "register_builder": ("registry", "register_builder"),
    "select_grid_point": ("selection", "run"),
    "train_recipe": ("train", "run"),
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = _EXPORTS[name]
    return getattr(importlib.import_module(f"{__name__}.{module}"), attribute)


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
