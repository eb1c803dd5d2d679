"""Training-step time of an LMN next to Keras' LSTM of the same total width.

Piano-roll shaped: (batch, time, 88) binary frames in, a sigmoid Dense head of
88 notes out, binary cross-entropy. The LMN has `units` functional and
`memory_units` memory units; the LSTM and SimpleRNN get `units + memory_units`
units (the paper counts an LMN's size that way). One run, one backend, one
shape; the table reports milliseconds per `train_on_batch` and the ratio to
the LSTM, measured in the same process.

    KERAS_BACKEND=jax python bench/lmn_cell.py [--units 100 --memory-units 250 ...]
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

from keras_seq.layers import LMN  # noqa: E402


def models(units, memory_units):
    width = units + memory_units
    return {
        f"LMN-B ({units}+{memory_units})": LMN(units, memory_units, return_sequences=True),
        f"LMN-A ({units}+{memory_units})": LMN(
            units, memory_units, output="functional", return_sequences=True
        ),
        f"LSTM ({width})": keras.layers.LSTM(width, return_sequences=True),
        f"SimpleRNN ({width})": keras.layers.SimpleRNN(width, return_sequences=True),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--notes", type=int, default=88)
    parser.add_argument("--units", type=int, default=100)
    parser.add_argument("--memory-units", type=int, default=250)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--jit-compile", default="auto", choices=["auto", "true", "false"])
    args = parser.parse_args(argv)
    jit = JIT_CHOICES[args.jit_compile]

    rng = np.random.default_rng(0)
    x = (rng.random((args.batch, args.steps, args.notes)) < 0.05).astype("float32")
    y = np.roll(x, -1, axis=1)

    start = time.perf_counter()
    results = {
        name: time_training_step(
            [layer, keras.layers.Dense(args.notes, activation="sigmoid")],
            x, y, "binary_crossentropy", args.repeats, jit,
        )
        for name, layer in models(args.units, args.memory_units).items()
    }
    wall = time.perf_counter() - start

    reference = next(ms for name, (ms, _) in results.items() if name.startswith("LSTM"))
    print(
        f"{machine()} jit_compile={args.jit_compile} "
        f"shape=(batch {args.batch}, time {args.steps}, notes {args.notes}) "
        f"median of {args.repeats} steps, wall {wall:.0f} s"
    )
    print("| model | parameters | ms / training step | vs LSTM |")
    print("|---|---:|---:|---:|")
    for name, (ms, params) in results.items():
        print(f"| {name} | {params} | {ms:.1f} | {ms / reference:.2f}x |")


if __name__ == "__main__":
    main()
