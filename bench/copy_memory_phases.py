"""Where a copy-memory model's loss comes from, and whether it reads more
than the current input (records/copy_memory_trellisnet/NOTE.md's numbers).

    python -m bench.copy_memory_phases runs/copy_memory_trellisnet/seed-*/model.keras --data-dir ../shared/data

For each `model.keras` that `keras-seq train copy_memory_trellisnet` wrote,
on a batch of the validation split: the cross-entropy per step of each
phase (the 10 digits shown, the wait, the 10 recalled), the largest spread
of the logits over the steps that show the same input symbol in one phase
(0: the prediction is a function of the current symbol alone, i.e. the
model uses no memory), and, on the TensorFlow backend, the gradient norm
of every weight (all near 0: a flat, saturated point training cannot leave).
"""

import argparse

import keras
import numpy as np

from keras_seq import saving
from keras_seq.zoo import recipes
from keras_seq.zoo import train

RECALLED = 10  # digits shown at the start and recalled at the end


def phases(length):
    """{phase: slice of steps} of a copy-memory sequence of `length` steps."""
    return {
        "shown": slice(0, RECALLED),
        "wait": slice(RECALLED, length - RECALLED),
        "recall": slice(length - RECALLED, length),
    }


def phase_cross_entropy(logits, targets):
    """{phase: mean cross-entropy per step (nats)} of `logits` (batch, steps, classes)."""
    logits = np.asarray(logits, "float64")
    shifted = logits - logits.max(-1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    nll = -np.take_along_axis(log_probs, np.asarray(targets)[..., None].astype(int), -1)[..., 0]
    return {name: float(nll[:, steps].mean()) for name, steps in phases(nll.shape[1]).items()}


def current_input_spread(logits, inputs):
    """{phase: the largest standard deviation of a logit over the phase's
    steps that show the same input symbol}: 0 when, in that phase, the
    logits depend on the current symbol alone."""
    logits, inputs = np.asarray(logits, "float64"), np.asarray(inputs)
    spread = {}
    for name, steps in phases(inputs.shape[1]).items():
        x, z = inputs[:, steps].ravel(), logits[:, steps].reshape(-1, logits.shape[-1])
        spread[name] = max(float(z[x == symbol].std(0).max()) for symbol in np.unique(x))
    return spread


def gradient_norms(model, inputs, targets):
    """{weight path: gradient norm} of the training loss (TensorFlow backend)."""
    import tensorflow as tf

    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    with tf.GradientTape() as tape:
        loss = loss_fn(targets, model(inputs, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    return {v.path: float(tf.norm(g)) for v, g in zip(model.trainable_variables, grads) if g is not None}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", help="model.keras files written by keras-seq train copy_memory_trellisnet")
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args()
    recipe = recipes.get("copy_memory_trellisnet")
    inputs, targets = (np.asarray(t) for t in next(iter(train.recipe_dataset(recipe, "valid", args.data_dir)))[:2])
    for path in args.models:
        model = saving.load_model(path, compile=False)
        logits = np.asarray(model(inputs, training=False))
        spread = current_input_spread(logits, inputs)
        print(
            f"{path}: cross-entropy per step, logit spread at a fixed input symbol: "
            + "; ".join(
                f"{name} {value:.4g}, {spread[name]:.3g}"
                for name, value in phase_cross_entropy(logits, targets).items()
            )
        )
        if keras.backend.backend() == "tensorflow":
            norms = gradient_norms(model, inputs, targets)
            print("  gradient norms: " + ", ".join(f"{name} {value:.2e}" for name, value in norms.items()))


if __name__ == "__main__":
    main()
