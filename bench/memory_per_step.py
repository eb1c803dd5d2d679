"""Memory per time step of a training step, for long sequences: each layer
trains on batch 4 at two lengths, and the growth of the step's peak host
memory between them, divided by the extra steps, is its cost per step.
(`keras.RematScope` cannot wrap these layers today: TensorFlow's
custom_gradient takes no keyword arguments in graph mode, and on JAX the
model no longer builds; long TrellisNet sequences are cut into chunks with
`stateful=True` instead, history repackaging, whose memory is that of one
chunk.)

    KERAS_BACKEND=tensorflow python bench/memory_per_step.py [--steps 2000 8000]
"""

import argparse
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import keras  # noqa: E402
import numpy as np  # noqa: E402

from bench.memory import PeakMemory  # noqa: E402
from keras_seq.layers import LMN  # noqa: E402
from keras_seq.layers import SCRBM  # noqa: E402
from keras_seq.layers import TrellisBlock  # noqa: E402

BATCH, WIDTH = 4, 16
LAYERS = {
    "SCRBM(16 units, 4 classes)": lambda: SCRBM(WIDTH, 4, return_logits=True),
    "LMN(16 + 16)": lambda: LMN(WIDTH, WIDTH, return_sequences=True),
    "TrellisBlock(16 hidden, 4 out, 4 levels)": lambda: TrellisBlock(WIDTH, 4, num_levels=4, dilations=(1, 2)),
}


def training_peak_mib(make, steps, memory):
    """Peak MiB of a training step of a fresh model at `steps` steps: on
    TensorFlow the first (compilation, which does not grow with the length,
    included), since it pools memory from the first step and later ones
    show no growth; elsewhere the second, after compilation."""
    layer = make()
    model = keras.Sequential([keras.Input((steps, WIDTH)), layer, keras.layers.Dense(1)])
    model.compile("adam", "mse")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(BATCH, steps, WIDTH)).astype("float32")
    y = rng.normal(size=(BATCH, steps, 1)).astype("float32")
    _, peak = memory.timed(lambda: model.train_on_batch(x, y))
    if keras.backend.backend() != "tensorflow":
        _, peak = memory.timed(lambda: model.train_on_batch(x, y))
    keras.backend.clear_session()
    return peak


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs=2, default=(2000, 8000), metavar=("SHORT", "LONG"))
    args = parser.parse_args(argv)
    short, long = args.steps
    memory = PeakMemory()
    print(f"Backend {keras.backend.backend()}, batch {BATCH}, width {WIDTH}, lengths {short} and {long}\n")
    print("| layer | peak MiB at T=%d | peak MiB at T=%d | KB per step |" % (short, long))
    print("|---|---:|---:|---:|")
    for name, make in LAYERS.items():
        a = training_peak_mib(make, short, memory)
        b = training_peak_mib(make, long, memory)
        print(f"| {name} | {a:.1f} | {b:.1f} | {(b - a) * 1024 / (long - short):.2f} |")


if __name__ == "__main__":
    main()
