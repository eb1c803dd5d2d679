"""`keras-seq compare`: several recipes on one dataset, trained under one
stopping rule, in one table that says whether each run converged.

    keras-seq compare bach_chorales_lmn_b_pretrained bach_chorales_lstm

Each recipe trains at its selected grid point (`recipes.selected`) unless
`recipe_defaults` asks for its own arguments. The first recipe sets the rule every model trains under: its validation
metric, patience, validation schedule and epoch limit. `match_parameters`
resizes the other recipes' recurrent layers so that their parameter count
is as close as a whole number of units allows to the first model's.
"""

import dataclasses

from keras_seq.zoo import recipes
from keras_seq.zoo import registry
from keras_seq.zoo import train

# Builders whose size is set by `units` alone (the functional part for LMNs).
SIZED_BY_UNITS = ("piano_roll_model", "labelling_model")
STOPPING_RULE = ("monitor", "monitor_mode", "patience", "check_every", "progress", "epochs", "valid_split")


def same_stopping_rule(first, others):
    """`others` with the stopping rule of `first` (see STOPPING_RULE); count
    models (n-grams) are fitted, not trained, and keep theirs."""
    rule = {field: getattr(first, field) for field in STOPPING_RULE}
    return [r if not registry.family(r.builder).saves_keras_model else dataclasses.replace(r, **rule) for r in others]


def parameter_count(recipe, quick=False, data_dir=None):
    (trainer, _), _ = train.build(recipe, quick, data_dir)
    return int(trainer.count_params())


def with_parameters(recipe, target, quick=False, data_dir=None):
    """`recipe` with the number of `units` whose model's parameter count is
    closest to `target` (binary search: the count grows with the units)."""
    if recipe.builder not in SIZED_BY_UNITS or "units" not in recipe.model:
        raise ValueError(
            f"--match-parameters resizes recipes whose model is sized by `units` ({', '.join(SIZED_BY_UNITS)}); "
            f"{recipe.name!r} uses {recipe.builder}."
        )
    if quick:  # --quick replaces the units: resize the quick model instead

        def sized(units):
            return dataclasses.replace(recipe, quick_model={**recipe.quick_model, "units": units})
    else:

        def sized(units):
            return dataclasses.replace(recipe, model={**recipe.model, "units": units})

    low, high = 1, 4096
    while low < high:
        middle = (low + high) // 2
        if parameter_count(sized(middle), quick, data_dir) < target:
            low = middle + 1
        else:
            high = middle
    candidates = [u for u in (low - 1, low) if u >= 1]
    best = min(candidates, key=lambda u: abs(parameter_count(sized(u), quick, data_dir) - target))
    return sized(best)


def run(names, match_parameters=False, data_dir=None, quick=False, recipe_defaults=False, **train_options):
    """Trains the named recipes one after another under the first one's
    stopping rule; returns their records in order.

    Args:
        names: Two or more recipe names on the same dataset, each trained
            at its selected grid point (`recipes.selected`), or at the
            recipe's own arguments with `recipe_defaults`.
        match_parameters: Size every recipe after the first to its
            parameter count (see `with_parameters`).
        data_dir, quick, **train_options: As for `train.run` (`epochs`
            overrides the shared epoch limit; a run it cuts is marked not
            converged).

    Returns:
        The records, with `compared_under` (the first recipe's name) and,
        when resized, `matched_parameters` (the target count).

    Example:

    >>> records = run(["bach_chorales_lmn_b_pretrained", "bach_chorales_lstm"], quick=True)
    """
    chosen = [recipes.get(name) if recipe_defaults else recipes.selected(name) for name in names]
    if len(chosen) < 2:
        raise ValueError(f"compare needs two or more recipes; got {list(names)}.")
    datasets = {(r.dataset, tuple(sorted(r.data_options.items()))) for r in chosen}
    if len(datasets) > 1:
        raise ValueError(
            "compare trains its recipes on one dataset; got "
            + ", ".join(f"{r.name} on {r.dataset}" for r in chosen)
            + "."
        )
    first, others = chosen[0], same_stopping_rule(chosen[0], chosen[1:])
    records = [train.run(first, data_dir=data_dir, quick=quick, **train_options)]
    for recipe in others:
        target = records[0]["parameters"] if match_parameters else None
        if target is not None:
            recipe = with_parameters(recipe, target, quick, data_dir)
        record = train.run(recipe, data_dir=data_dir, quick=quick, **train_options)
        if target is not None:
            record["matched_parameters"] = target
        records.append(record)
    for record in records:
        record["compared_under"] = first.name
    return records
