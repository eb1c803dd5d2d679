"""Long-memory stress tests for TrellisNet, trained briefly on CPU.

    KERAS_BACKEND=tensorflow python bench/long_memory.py --task adding --steps 200
    KERAS_BACKEND=tensorflow python bench/long_memory.py --task copy --steps 500 \
        --train 2000 --test 200 --batch 16 --lr 5e-3 --hidden 24 --levels 9 --forget-bias 4

adding (Hochreiter & Schmidhuber; TCN / TrellisNet papers): inputs
`(T, 2)`, a value in U(0, 1) and a marker; two steps are marked, one in each
half; the target is the sum of the two marked values. Predicting 1 gives the
trivial test MSE 1/6 = 0.167.

copy memory (TCN paper, Bai et al. 2018): 10 symbols from 1..8, then
blanks, then 11 nines from step T + 10 - 1 (0-based; the first is the
delimiter); the model must output the 10 symbols over the last 10 steps and
0 elsewhere. `--copy-marker single` is Arjovsky et al. (2016)'s layout:
one delimiter, then blanks. The trivial baseline
(zeros, then uniform over 1..8 at the last 10 steps) has cross-entropy
10 log(8) / (T + 20).

Data come from keras_seq.data.synthetic (seeded). Training stops after
`--epochs` or when `--seconds` of wall time have passed, whichever first.
Prints a Markdown summary.

Curriculum (`--curriculum 50,100`): the same model (a convolution, so it runs
on any length) is first trained on the task at the shorter lengths, each stage
until its validation loss is below `--stage-target` or `--stage-epochs` have
passed, then on the target length `--steps`; `--seconds` bounds the whole run
and the reported wall time and epochs include the stages.
"""

import argparse
import functools
import math
import os
import sys
import time

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import keras  # noqa: E402
import numpy as np  # noqa: E402

from keras_seq.data import synthetic  # noqa: E402
from keras_seq.models.trellisnet import TrellisNet  # noqa: E402
from keras_seq.zoo.callbacks import TimeBudget  # noqa: E402


def copy_memory_one_hot(n, steps, seed, marker="repeated"):
    x, y = synthetic.copy_memory(n, delay=steps, seed=seed, marker=marker)
    return np.eye(10, dtype="float32")[x], y


def adding(n, steps, seed):
    return synthetic.adding_problem(n, steps, seed=seed)


def tcn_head(inputs, args, dilations):
    """Residual blocks of two causal dilated convolutions (ReLU), one block
    per dilation, then the task's head: the TCN paper's generic model."""
    x = keras.layers.Conv1D(args.hidden, 1)(inputs)
    for d in dilations:
        y = x
        for _ in range(2):
            y = keras.layers.Conv1D(
                args.hidden, args.kernel_size, padding="causal", dilation_rate=d, activation="relu"
            )(y)
        x = keras.layers.Add()([x, y])
    if args.task == "adding":
        return keras.layers.Dense(1)(x[:, -1])
    return keras.layers.Dense(10)(x)


class StopBelowValidationLoss(keras.callbacks.Callback):
    """Stops training at the end of the first epoch whose `val_loss` is below
    `target` (a curriculum stage ends once it is learnt)."""

    def __init__(self, target):
        super().__init__()
        self.target = target

    def on_epoch_end(self, epoch, logs=None):
        if (logs or {}).get("val_loss", np.inf) < self.target:
            self.model.stop_training = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--task", choices=["adding", "copy"], default="adding")
    parser.add_argument(
        "--copy-marker",
        choices=["repeated", "single"],
        default="repeated",
        help="copy task layout: the TCN paper's 11 nines, or one delimiter",
    )
    parser.add_argument("--steps", type=int, default=None, help="T (200 / 500)")
    parser.add_argument("--train", type=int, default=4000)
    parser.add_argument("--test", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=180.0)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--output", type=int, default=16)
    parser.add_argument(
        "--levels", type=int, default=None, help="default 8 (adding, receptive field 256), 10 (copy, 1024)"
    )
    parser.add_argument("--kernel-size", type=int, default=2)
    parser.add_argument("--dilations", default=None, help="comma-separated, one per level (default 1, 2, 4, ...)")
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--clipnorm", type=float, default=1.0, help="gradient norm clip (0: none)")
    parser.add_argument(
        "--forget-bias",
        type=float,
        default=0.0,
        help="TrellisBlock's forget_bias: added to the forget gate's initial bias",
    )
    parser.add_argument(
        "--gate-bias", default=None, help="initial bias of the gates i,o,g,f (comma-separated; replaces --forget-bias)"
    )
    parser.add_argument(
        "--hidden-gain", type=float, default=1.0, help="scale of the initial hidden kernel (weight-norm gain)"
    )
    parser.add_argument(
        "--model",
        choices=["trellisnet", "tcn"],
        default="trellisnet",
        help="tcn: a residual dilated-convolution baseline (Bai et al. 2018) "
        "with the same kernel size, dilations and width, for calibration",
    )
    parser.add_argument("--curriculum", default="", help="comma-separated shorter lengths trained first (e.g. 50,100)")
    parser.add_argument("--stage-epochs", type=int, default=30, help="most epochs of each curriculum stage")
    parser.add_argument(
        "--stage-target",
        type=float,
        default=0.01,
        help="a curriculum stage ends once its validation loss is below this",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the initialisation and shuffling (the data are fixed)"
    )
    parser.add_argument("--no-jit", action="store_true")
    args = parser.parse_args()

    steps = args.steps or (200 if args.task == "adding" else 500)
    keras.utils.set_random_seed(args.seed)
    if args.task == "adding":
        make = adding
    else:
        make = functools.partial(copy_memory_one_hot, marker=args.copy_marker)
    x_train, y_train = make(args.train, steps, seed=0)
    x_test, y_test = make(args.test, steps, seed=1)

    if args.levels is None:
        args.levels = 8 if args.task == "adding" else 10
    dilations = [2**i for i in range(args.levels)]
    if args.dilations:
        dilations = [int(d) for d in args.dilations.split(",")]
        args.levels = len(dilations)
    shape = dict(kernel_size=args.kernel_size, dilations=dilations, forget_bias=args.forget_bias)
    if args.model == "tcn":  # the TCN has no --output; the TrellisNet below only lends its input
        args.output = min(args.output, args.hidden)
    if args.task == "adding":
        model = TrellisNet(
            args.hidden, args.output, args.levels, input_dim=2, num_outputs=1, return_sequences=False, **shape
        )
        loss, baseline, metric = "mse", 1.0 / 6.0, "test MSE"
    else:
        model = TrellisNet(args.hidden, args.output, args.levels, input_dim=10, num_outputs=10, **shape)
        loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        baseline, metric = 10 * math.log(8) / (steps + 20), "test cross-entropy"
    if args.model == "tcn":
        inputs = model.inputs[0]
        model = keras.Model(inputs, tcn_head(inputs, args, dilations), name="tcn")
        receptive_field = 1 + 2 * (args.kernel_size - 1) * sum(dilations)
    else:
        block = model.get_layer("trellis")
        receptive_field = block.receptive_field
        if args.gate_bias:
            gate_bias = [float(b) for b in args.gate_bias.split(",")]
            block.bias.assign(np.repeat(gate_bias, args.hidden).astype("float32"))  # i, o, g, f
        block.hidden_kernel_gain.assign(args.hidden_gain * block.hidden_kernel_gain)
    model.compile(
        optimizer=keras.optimizers.Adam(args.lr, clipnorm=args.clipnorm or None),
        loss=loss,
        jit_compile=not args.no_jit and keras.backend.backend() != "torch",
    )
    start = time.perf_counter()
    stages = [int(t) for t in args.curriculum.split(",") if t]
    stage_epochs, curves = 0, []
    for stage_steps in stages:
        xs, ys = make(args.train, stage_steps, seed=0)
        xv, yv = make(args.test, stage_steps, seed=1)
        stage = model.fit(
            xs,
            ys,
            batch_size=args.batch,
            epochs=args.stage_epochs,
            verbose=2,
            validation_data=(xv, yv),
            callbacks=[TimeBudget(args.seconds, start=start), StopBelowValidationLoss(args.stage_target)],
        )
        stage_epochs += len(stage.history["loss"])
        curves.append(f"T={stage_steps}: " + ", ".join(f"{v:.4f}" for v in stage.history["val_loss"]))
        print(
            f"curriculum stage T={stage_steps}: {len(stage.history['loss'])} epochs, "
            f"{time.perf_counter() - start:.0f} s",
            flush=True,
        )
    history = model.fit(
        x_train,
        y_train,
        batch_size=args.batch,
        epochs=args.epochs,
        verbose=2,
        validation_data=(x_test, y_test),
        callbacks=[TimeBudget(args.seconds, start=start)],
    )
    wall = time.perf_counter() - start
    test_loss = model.evaluate(x_test, y_test, batch_size=256, verbose=0)
    curves.append(f"T={steps}: " + ", ".join(f"{v:.4f}" for v in history.history["val_loss"]))
    curve = "; ".join(curves)

    print(f"### {args.task}, T={steps} ({keras.backend.backend()}, jit_compile={not args.no_jit})\n")
    print(f"| model | params | receptive field | epochs | wall time (s) | {metric} | trivial baseline |")
    print("|---|---|---|---|---|---|---|")
    forget = f" forget_bias={args.forget_bias:g}" if args.model == "trellisnet" else ""
    print(
        f"| {args.model} h={args.hidden} out={args.output} levels={args.levels} "
        f"k={args.kernel_size}{forget} | "
        f"{model.count_params()} | {receptive_field} | "
        f"{stage_epochs + len(history.history['loss'])} | {wall:.0f} | {test_loss:.4g} | {baseline:.4f} |"
    )
    if stages:
        print(f"\nCurriculum {args.curriculum} -> {steps}: {stage_epochs} stage epochs")
    print(f"\nValidation loss per epoch: {curve}")


if __name__ == "__main__":
    main()
