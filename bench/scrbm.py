"""Training-step time of an SCRBM next to Keras' built-in recurrent layers.

Every model maps (batch, time, features) to per-step class logits and has the
same recurrent width; the built-in layers get a Dense head of `num_classes`,
which the SCRBM has inside (its label weights). One run, one backend, one
shape; the table reports milliseconds per `train_on_batch` and the ratio to
SimpleRNN, measured in the same process.

    KERAS_BACKEND=jax python bench/scrbm.py [--units 128 --steps 50 ...]
"""

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402
from timing import JIT_CHOICES  # noqa: E402
from timing import machine  # noqa: E402
from timing import time_training_step  # noqa: E402

from keras_seq.layers import SCRBM  # noqa: E402


LOSS = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def models(features, units, num_classes):
    def head(recurrent):
        return [recurrent, keras.layers.Dense(num_classes)]

    return {
        "SCRBM (Algorithm 1)": [SCRBM(units, num_classes, return_logits=True)],
        "SimpleRNN + Dense": head(keras.layers.SimpleRNN(units, return_sequences=True)),
        "GRU + Dense": head(keras.layers.GRU(units, return_sequences=True)),
        "LSTM + Dense": head(keras.layers.LSTM(units, return_sequences=True)),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--features", type=int, default=64)
    parser.add_argument("--units", type=int, default=128)
    parser.add_argument("--classes", type=int, default=26)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--jit-compile", default="auto", choices=["auto", "true", "false"])
    args = parser.parse_args(argv)
    jit = JIT_CHOICES[args.jit_compile]

    rng = np.random.default_rng(0)
    x = rng.normal(size=(args.batch, args.steps, args.features)).astype("float32")
    y = rng.integers(0, args.classes, size=(args.batch, args.steps))

    start = time.perf_counter()
    results = {
        name: time_training_step(layers, x, y, LOSS, args.repeats, jit)
        for name, layers in models(args.features, args.units, args.classes).items()
    }
    wall = time.perf_counter() - start

    reference = results["SimpleRNN + Dense"][0]
    print(
        f"{machine()} jit_compile={args.jit_compile} "
        f"shape=(batch {args.batch}, time {args.steps}, features {args.features}) "
        f"units={args.units} classes={args.classes} median of {args.repeats} "
        f"steps, wall {wall:.0f} s"
    )
    print("| model | parameters | ms / training step | vs SimpleRNN |")
    print("|---|---:|---:|---:|")
    for name, (ms, params) in results.items():
        print(f"| {name} | {params} | {ms:.1f} | {ms / reference:.2f}x |")


if __name__ == "__main__":
    main()
