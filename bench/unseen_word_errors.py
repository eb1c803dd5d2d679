"""Splits a trained labelling model's test error into the tokens whose input
id occurs in the recipe's training split and those that do not (words never
seen in training): how much of the error unseen words make.

    python -m bench.unseen_word_errors wsj_pos_2000_scrbm runs/wsj_pos_2000_scrbm/seed-0/model.keras \
        --data-dir ../shared/data

The model is the `model.keras` that `keras-seq train RECIPE` writes.
"""

import argparse

import numpy as np

import keras_seq.data as data
from keras_seq import saving
from keras_seq.zoo import recipes
from keras_seq.zoo import train


def error_split(recipe, model, data_dir=None):
    """{"seen": (errors, tokens), "unseen": (errors, tokens)} over the test split."""
    training = data.load_arrays(recipe.dataset, recipe.train_split, data_dir=data_dir, **recipe.data_options)
    seen = np.unique(np.concatenate([np.ravel(x) for x in training.inputs]))
    test = train.predictor_inputs(recipe, train.recipe_dataset(recipe, "test", data_dir))
    counts = {"seen": [0, 0], "unseen": [0, 0]}
    for x, y, w in test:
        predicted = np.argmax(np.asarray(model.predict_on_batch(x)), axis=-1)
        x, y, real = np.asarray(x), np.asarray(y), np.asarray(w) > 0
        wrong = predicted != y
        unseen = ~np.isin(x, seen) & real
        for name, where in (("seen", real & ~unseen), ("unseen", unseen)):
            counts[name][0] += int((wrong & where).sum())
            counts[name][1] += int(where.sum())
    return {name: tuple(value) for name, value in counts.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("recipe")
    parser.add_argument("model", help="a model.keras written by keras-seq train RECIPE")
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args()
    split = error_split(recipes.get(args.recipe), saving.load_model(args.model), args.data_dir)
    (seen_errors, seen), (unseen_errors, unseen) = split["seen"], split["unseen"]
    total = seen + unseen
    print(
        f"{args.recipe}: {total} test tokens, {100 * unseen / total:.1f} % unseen in training; error "
        f"{100 * (seen_errors + unseen_errors) / total:.2f} % = {100 * seen_errors / max(seen, 1):.2f} % on seen "
        f"words, {100 * unseen_errors / max(unseen, 1):.2f} % on unseen words, which make "
        f"{100 * unseen_errors / max(seen_errors + unseen_errors, 1):.0f} % of the errors"
    )


if __name__ == "__main__":
    main()
