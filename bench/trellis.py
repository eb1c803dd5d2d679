"""Training-step time of a TrellisNet vs keras.layers.LSTM at equal parameter
count, on sequences of length 784 (sequential MNIST) and 200, with and
without `jit_compile`, on the current Keras backend (TensorFlow by default).

    KERAS_BACKEND=tensorflow python bench/trellis.py [--batch 16] [--steps 5]

Prints a Markdown table; ratio = LSTM time / TrellisNet time (> 1: TrellisNet
faster). Synthetic data (seeded numpy): the timings do not depend on it.
"""

import argparse
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import keras  # noqa: E402
import numpy as np  # noqa: E402

from timing import time_compiled_steps  # noqa: E402

from keras_seq.models.trellisnet import TrellisNet  # noqa: E402


def trellisnet(steps, args):
    dilations = [2**i for i in range(args.levels)]  # receptive field >= steps
    return TrellisNet(
        args.hidden, args.output, args.levels, input_dim=1, num_outputs=10,
        return_sequences=False, dilations=dilations, sequence_length=steps,
    )


def lstm(steps, units):
    return keras.Sequential([
        keras.Input((steps, 1)), keras.layers.LSTM(units), keras.layers.Dense(10),
    ])


def matching_lstm_units(target):
    """Units u for which the LSTM model has the parameter count closest to
    `target`."""
    def count(u):
        return 4 * u * (1 + u + 1) + (u + 1) * 10
    return min(range(1, 1024), key=lambda u: abs(count(u) - target))


def step_time(model, x, y, jit, steps):
    model.compile(
        optimizer="adam",
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        jit_compile=jit,
    )
    return time_compiled_steps(model, x, y, steps, warmup=2)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[784, 200])
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--steps", type=int, default=5, help="timed steps (median)")
    parser.add_argument("--hidden", type=int, default=48)
    parser.add_argument("--output", type=int, default=16)
    parser.add_argument("--levels", type=int, default=10)
    args = parser.parse_args()

    backend = keras.backend.backend()
    jit_options = [False, True] if backend in ("tensorflow", "jax") else [False]
    rng = np.random.default_rng(0)
    rows = []
    for steps in args.lengths:
        x = rng.normal(size=(args.batch, steps, 1)).astype("float32")
        y = rng.integers(0, 10, size=(args.batch,))
        trellis_params = trellisnet(steps, args).count_params()
        units = matching_lstm_units(trellis_params)
        lstm_params = lstm(steps, units).count_params()
        for jit in jit_options:
            keras.utils.set_random_seed(0)
            t_trellis = step_time(trellisnet(steps, args), x, y, jit, args.steps)
            t_lstm = step_time(lstm(steps, units), x, y, jit, args.steps)
            rows.append((steps, jit, trellis_params, units, lstm_params, t_trellis, t_lstm))
            print(f"# done T={steps} jit={jit}", file=sys.stderr, flush=True)

    print(f"Backend: {backend}, batch {args.batch}, median of {args.steps} training "
          f"steps (ms). TrellisNet: hidden {args.hidden}, output {args.output}, "
          f"{args.levels} levels, dilations 1..{2 ** (args.levels - 1)}.\n")
    print("| T | jit_compile | TrellisNet params | TrellisNet ms/step | LSTM units | "
          "LSTM params | LSTM ms/step | LSTM / TrellisNet |")
    print("|---|---|---|---|---|---|---|---|")
    for steps, jit, tp, units, lp, tt, tl in rows:
        print(f"| {steps} | {jit} | {tp} | {tt:.1f} | {units} | {lp} | {tl:.1f} | "
              f"{tl / tt:.2f} |")


if __name__ == "__main__":
    main()
