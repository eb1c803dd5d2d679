"""Quick start: sequence labelling with an SCRBM, next to an LSTM.

The task needs no download: label sequences follow a Markov chain (each label
usually steps to the next class) and each step shows a noisy view of its
label. Reading one step alone caps the accuracy; a model that carries the
label history can do better. The SCRBM learns with teacher forcing (paper
eq. 12) and labels with Algorithm 1 (expected labels, linear time).

    keras-seq quickstart [--epochs N]   (or python -m keras_seq.zoo.quickstart)
"""

import argparse
import platform
import time

import numpy as np


def markov_labelling_data(n, steps, num_classes, features, seed):
    """Labels: a Markov chain that steps y -> y+1 (mod K) with p=0.8, else
    jumps anywhere. Inputs: the one-hot label, replaced by a random class
    with p=0.45, plus Gaussian noise in every feature. Lengths vary from
    steps/3 to steps; padding is all-zero inputs (masked) and label 0."""
    rng = np.random.default_rng(seed)
    labels = np.zeros((n, steps), dtype="int32")
    labels[:, 0] = rng.integers(0, num_classes, n)
    for t in range(1, steps):
        jump = rng.random(n) > 0.8
        labels[:, t] = np.where(jump, rng.integers(0, num_classes, n), (labels[:, t - 1] + 1) % num_classes)
    shown = np.where(rng.random((n, steps)) < 0.45, rng.integers(0, num_classes, (n, steps)), labels)
    x = np.eye(num_classes, features, dtype="float32")[shown]
    x += rng.normal(scale=0.3, size=x.shape).astype("float32")
    lengths = rng.integers(steps // 3, steps + 1, n)
    valid = np.arange(steps) < lengths[:, None]
    return x * valid[..., None], labels * valid, valid


def build_scrbm(features, num_classes, units):
    import keras

    from keras_seq.layers import SCRBM

    x = keras.Input((None, features))
    y = keras.Input((None,), dtype="int32")
    masked = keras.layers.Masking()(x)
    scrbm = SCRBM(units, num_classes, return_logits=True)
    trainer = keras.Model([x, y], scrbm(masked, labels=y), name="scrbm_teacher_forcing")
    labeller = keras.Model(x, scrbm(masked), name="scrbm_algorithm_1")
    trainer.compile(
        optimizer=keras.optimizers.Adam(1e-2),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    return trainer, labeller


def build_lstm(features, num_classes, units):
    import keras

    model = keras.Sequential(
        [
            keras.Input((None, features)),
            keras.layers.Masking(),
            keras.layers.LSTM(units, return_sequences=True),
            keras.layers.Dense(num_classes),
        ],
        name="lstm",
    )
    model.compile(
        optimizer=keras.optimizers.Adam(1e-2),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    return model, model


def add_arguments(parser):
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--units", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    run(parser.parse_args(argv))


def run(args):
    import keras

    from keras_seq.metrics import labelling_errors

    keras.utils.set_random_seed(args.seed)
    num_classes, features, steps = 6, 8, 30
    x_train, y_train, _ = markov_labelling_data(2000, steps, num_classes, features, args.seed)
    x_test, y_test, valid = markov_labelling_data(500, steps, num_classes, features, args.seed + 1)

    rows = []
    for name, build, teacher_forcing in (
        ("SCRBM (teacher forcing -> Algorithm 1)", build_scrbm, True),
        ("LSTM + Dense", build_lstm, False),
    ):
        trainer, labeller = build(features, num_classes, args.units)
        inputs = [x_train, y_train] if teacher_forcing else x_train
        start = time.perf_counter()
        trainer.fit(inputs, y_train, epochs=args.epochs, batch_size=50, verbose=2)
        seconds = time.perf_counter() - start
        predicted = np.argmax(labeller.predict(x_test, verbose=0), axis=-1)
        sequence_error, token_error = labelling_errors(y_test, predicted, valid)
        rows.append((name, trainer.count_params(), sequence_error, token_error, seconds))

    # What one step alone allows: the label shown, when it is shown truly.
    single_step = labelling_errors(y_test, np.argmax(x_test[..., :num_classes], -1), valid)
    print(
        f"\nbackend={keras.backend.backend()}  machine={platform.machine()}  "
        f"epochs={args.epochs}  test sequences={len(x_test)}"
    )
    print("| model | parameters | sequence error % (eq. 16) | token error % | train s |")
    print("|---|---:|---:|---:|---:|")
    for name, params, seq_err, tok_err, seconds in rows:
        print(f"| {name} | {params} | {100 * seq_err:.2f} | {100 * tok_err:.2f} | {seconds:.1f} |")
    print(
        f"| reading each step alone (argmax of the input) | 0 | "
        f"{100 * single_step[0]:.2f} | {100 * single_step[1]:.2f} | |"
    )


if __name__ == "__main__":
    main()
