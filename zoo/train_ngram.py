"""Runs an n-gram recipe (`builder="ngram_model"`): data -> counts -> order
and smoothing chosen on the validation split -> test metrics -> the same
result record as `train.run` (its chance level included). There is no
Keras model: nothing is saved but the JSON record."""

import os
import time

import keras_seq.data as data
from keras_seq.data import pipeline
from keras_seq.zoo import ngram
from keras_seq.zoo import records
from keras_seq.zoo import registry
from keras_seq.zoo import runs
from keras_seq.zoo import train as zoo_train
from keras_seq.zoo.recipes import QUICK_SEQUENCES


def _split(recipe, split, data_dir, quick):
    sequences = data.load_arrays(recipe.dataset, split, data_dir=data_dir, **recipe.data_options)
    if quick:
        sequences = data.Sequences(sequences.inputs[:QUICK_SEQUENCES], sequences.targets[:QUICK_SEQUENCES])
    pipeline.check_sequences(sequences, recipe.dataset_info)
    return sequences


def run(recipe, data_dir=None, quick=False, output=None, seed=0, run_name=None):
    """Fits, selects and tests one n-gram recipe.

    Args:
        recipe: A `Recipe` with `builder="ngram_model"`; its `model` holds
            `max_order` and `add_k` (the grid of `ngram.select`).
        data_dir: Data folder, as for `train.run`.
        quick: Tiny data and grid (`recipe.quick_model`).
        output: Folder of the run directories (zoo.runs), or None.
        seed: Recorded only (counting is deterministic).
        run_name: Names the run directory (default: the recipe's name).

    Returns:
        The result record (same keys as `train.run`, plus `selection`: the
        validation bits of every setting tried).

    Example:

    >>> record = run(recipes.get("kinderlieder_ngram"), quick=True)
    """
    start = time.perf_counter()
    info = recipe.dataset_info
    if recipe.valid_split is None:
        raise ValueError(f"Recipe {recipe.name!r}: the n-gram model chooses its order on a validation split.")
    arguments = {**recipe.model, **(recipe.quick_model if quick else {})}
    train = _split(recipe, recipe.train_split, data_dir, quick)
    valid = _split(recipe, recipe.valid_split, data_dir, quick)
    test = _split(recipe, "test", data_dir, quick)
    model, selection = ngram.select(
        train, valid, info.num_classes, max_order=arguments["max_order"], add_k=arguments["add_k"]
    )
    scores = ngram.evaluate(model, test.inputs, test.targets)
    record = records.run_record(
        recipe,
        info.task,
        {
            "builder": recipe.builder,
            **arguments,
            "order": model.order,
            "smoothing": model.smoothing,
            "k": model.k if model.smoothing == "add_k" else None,
        },
        quick,
        seed,
        scores,
        model.count_entries(),
        time.perf_counter() - start,
        "numpy (no Keras backend)",
        epochs_run=None,
        stopping={
            "reason": "closed_form",
            "converged": True,
            "best_epoch": None,
            "last_epoch": None,
            "epoch_limit": None,
            "monitor": None,
            "patience": None,
            "check_every": None,
        },
        updates=None,
        pretraining=None,
        history={},
        selection=selection,
        chance=zoo_train.chance_scores(recipe, data_dir, quick),
    )
    if output:
        with runs.claim(output, run_name or recipe.name, seed, quick) as claimed:
            record["run_directory"] = claimed.path
            runs.write_json(record, os.path.join(claimed.path, runs.RECORD))
            claimed.release(finished=True)
    return record


def _not_a_keras_builder(**arguments):
    raise ValueError(
        f"The n-gram family is fitted by counting (zoo.train_ngram.run), not built as a Keras "
        f"model; got {sorted(arguments)}."
    )


registry.register_builder("ngram_model", run=run)(_not_a_keras_builder)
