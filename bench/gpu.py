"""Training throughput (sequences/s) on an accelerator: SCRBM, LMN and
TrellisNet next to a cuDNN `keras.layers.LSTM`, at equal parameter count
(each model gets the width that matches the LSTM of `--units`).

Synthetic data (seeded numpy) of fixed shape, per-step labelling of
`--classes` classes, `jit_compile=True`, median of `--repeats` timed
`train_on_batch` steps after warm-up (bench/timing.py). Prints a Markdown
table headed by the device name.

    KERAS_BACKEND=tensorflow python bench/gpu.py [--batch 64 --steps 100]
    python bench/gpu.py --dry-run   # a few tiny steps on CPU, to check the script

On the TensorFlow backend `keras.layers.LSTM` takes the cuDNN kernel on a GPU
(its defaults: tanh, sigmoid, no recurrent dropout, unroll=False).
"""

import argparse
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import keras  # noqa: E402
import numpy as np  # noqa: E402

from timing import machine  # noqa: E402
from timing import time_compiled_steps  # noqa: E402

from keras_seq.layers import LMN  # noqa: E402
from keras_seq.layers import SCRBM  # noqa: E402
from keras_seq.models import TrellisNet  # noqa: E402

LOSS = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
DRY_RUN = dict(batch=4, steps=8, features=8, units=8, classes=5, repeats=2, levels=2)


def contenders(args):
    """Model factories by name, each taking a width; every model maps
    (batch, steps, features) to per-step logits of `args.classes` classes."""
    def sequential(*layers):
        return keras.Sequential([keras.Input((args.steps, args.features)), *layers])

    def trellis(width):
        return TrellisNet(
            width, max(1, width // 2), args.levels, input_dim=args.features,
            num_outputs=args.classes, return_sequences=True, sequence_length=args.steps,
        )

    return {
        "SCRBM": lambda width: sequential(SCRBM(width, args.classes, return_logits=True)),
        "LMN-B": lambda width: sequential(
            LMN(width, width, return_sequences=True), keras.layers.Dense(args.classes)),
        "TrellisNet": trellis,
        "LSTM (cuDNN)": lambda width: sequential(
            keras.layers.LSTM(width, return_sequences=True), keras.layers.Dense(args.classes)),
    }


def matching_width(make, target, largest):
    """The width in [1, largest] whose model's parameter count is closest to
    `target` (counts grow with the width: bisection)."""
    low, high = 1, largest
    while high - low > 1:
        middle = (low + high) // 2
        if make(middle).count_params() < target:
            low = middle
        else:
            high = middle
    return min((low, high), key=lambda width: abs(make(width).count_params() - target))


def device_name():
    """The accelerator the backend runs on, in words (or the CPU)."""
    backend = keras.backend.backend()
    if backend == "tensorflow":
        import tensorflow as tf

        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            return tf.config.experimental.get_device_details(gpus[0]).get("device_name", gpus[0].name)
    elif backend == "jax":
        import jax

        return jax.devices()[0].device_kind
    elif backend == "torch":
        import torch

        if torch.cuda.is_available():
            return torch.cuda.get_device_name(0)
    return "CPU"


def parse(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--steps", type=int, default=100, help="sequence length")
    parser.add_argument("--features", type=int, default=64)
    parser.add_argument("--units", type=int, default=256,
                        help="LSTM width; the others get the width matching its parameter count")
    parser.add_argument("--classes", type=int, default=32)
    parser.add_argument("--levels", type=int, default=8, help="TrellisNet levels")
    parser.add_argument("--repeats", type=int, default=20, help="timed steps (median)")
    parser.add_argument("--no-jit", action="store_true", help="compile without XLA")
    parser.add_argument("--dry-run", action="store_true",
                        help="tiny shapes and two timed steps: checks the script on CPU")
    args = parser.parse_args(argv)
    if args.dry_run:
        for name, value in DRY_RUN.items():
            setattr(args, name, value)
    return args


def main(argv=None):
    args = parse(argv)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(args.batch, args.steps, args.features)).astype("float32")
    y = rng.integers(0, args.classes, size=(args.batch, args.steps))
    rows = []
    factories = contenders(args)
    target = factories["LSTM (cuDNN)"](args.units).count_params()  # equal size: the LSTM's
    for name, make in factories.items():
        width = args.units if name.startswith("LSTM") else matching_width(make, target, 4 * args.units)
        keras.utils.set_random_seed(0)
        model = make(width)
        model.compile(optimizer="adam", loss=LOSS, jit_compile=not args.no_jit)
        milliseconds = time_compiled_steps(model, x, y, args.repeats, warmup=2)
        rows.append((name, width, model.count_params(), milliseconds))
        print(f"# done {name}", file=sys.stderr, flush=True)

    print(f"Device: {device_name()} ({machine()}); batch {args.batch}, length {args.steps}, "
          f"{args.features} features, {args.classes} classes, jit_compile={not args.no_jit}, "
          f"median of {args.repeats} training steps.\n")
    print("| model | width | parameters | ms/step | sequences/s |")
    print("|---|---|---|---|---|")
    for name, width, parameters, milliseconds in rows:
        print(f"| {name} | {width} | {parameters} | {milliseconds:.1f} | "
              f"{args.batch / milliseconds * 1e3:.0f} |")


if __name__ == "__main__":
    main()
