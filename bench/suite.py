"""What `python -m bench` measures: the sections (one per paper shape), their
models, and the full and tiny configurations.

Each section sets keras-seq's model(s) against Keras' SimpleRNN / GRU / LSTM
with the section's head, once at equal width and once at the width whose
parameter count is closest to keras-seq's (main) model. Data are seeded
random batches of the datasets' shapes: the timings do not depend on them.
"""

import dataclasses
import functools

import keras
import numpy as np

from bench.free_energy import FreeEnergyFloor
from bench.measure import Contender
from bench.sizing import matching_width
from bench.sizing import recurrent_parameters
from keras_seq.layers import LMN
from keras_seq.layers import SCRBM
from keras_seq.models import TrellisNet

RECURRENT = {"SimpleRNN": keras.layers.SimpleRNN, "GRU": keras.layers.GRU, "LSTM": keras.layers.LSTM}
SPARSE_LOGITS = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
# The SCRBM's lower bound (bench/free_energy.py): its free energy at every
# step at once, without the recurrence.
FLOOR = "SCRBM floor: free energy of all steps at once, no recurrence"
SEQ_MNIST_DILATIONS = (1, 1) + tuple(2**i for i in range(1, 10))


@dataclasses.dataclass(frozen=True)
class Plan:
    """How much of a section is measured: timed training steps per model
    (median), timed predictions per model and batch size (median), untimed
    warm-up training steps, the `jit_compile` settings (`"auto"`: Keras'
    default for the backend), and whether JAX runs `jit_compile=False` as
    listed (there it means op-by-op eager execution, several times slower)
    or `True` in its place, and the backends that run it."""

    repeats: int
    inference_repeats: int
    warmup: int = 1
    jit: tuple = (False, True)
    jax_eager: bool = True
    backends: tuple = ("tensorflow", "jax", "torch")


@dataclasses.dataclass(frozen=True)
class Config:
    """Shapes and sizes of every section (`shapes[key]`, the keyword arguments
    of its builder in SECTIONS), how much of each is measured (`plans[key]`),
    the batch of the throughput column and the Keras layers compared."""

    name: str
    shapes: dict
    plans: dict
    throughput_batch: int
    baselines: tuple


@dataclasses.dataclass
class Entry:
    """A model of a section before it is built: `build()` makes a fresh
    uncompiled model; see `measure.Contender` for the data."""

    name: str
    build: object
    train_data: tuple
    inputs: object = None


@dataclasses.dataclass
class Section:
    """One paper shape: its models, loss and the row the ratios refer to."""

    key: str
    title: str
    shape: str
    loss: object
    entries: list
    baseline: str

    def contenders(self, jit_compile):
        """Fresh models (Keras' default initialisation, unseeded: the
        timings do not depend on the values, and `keras.utils.set_random_seed`
        would import TensorFlow into every backend's process), compiled with
        Adam and `jit_compile`."""
        contenders = []
        for entry in self.entries:
            model = entry.build()
            model.compile(optimizer=keras.optimizers.Adam(), loss=self.loss, jit_compile=jit_compile)
            contenders.append(Contender(entry.name, model, entry.train_data, entry.inputs))
        return contenders


def sequential(input_shape, *layers, dtype="float32"):
    """`keras.Sequential` on a fixed-shape input."""
    return keras.Sequential([keras.Input(input_shape, dtype=dtype), *layers])


def baseline_entries(make, count, width, target, kinds, train_data, inputs):
    """Each Keras layer of `kinds` at `width` units, then each at the width
    whose model (`make(kind, units)`, of `count(kind, units)` parameters:
    counted, not built, since building initialises weights) has the
    parameter count closest to `target`."""
    matched = {kind: matching_width(functools.partial(count, kind), target, 8 * width) for kind in kinds}
    return [
        Entry(f"{kind}, equal width ({width} units)", functools.partial(make, kind, width), train_data, inputs)
        for kind in kinds
    ] + [
        Entry(f"{kind}, equal parameters ({units} units)", functools.partial(make, kind, units), train_data, inputs)
        for kind, units in matched.items()
    ]


def ocr(kinds, batch, steps, features, classes, units):
    """OCR letters (SCRBM paper): binary pixel frames, a letter per step."""
    rng = np.random.default_rng(0)
    x = (rng.random((batch, steps, features)) < 0.5).astype("float32")
    y = rng.integers(0, classes, (batch, steps))

    def scrbm():
        return sequential((steps, features), SCRBM(units, classes, return_logits=True))

    def teacher_forcing():
        sequences = keras.Input((steps, features))
        labels = keras.Input((steps,), dtype="int32")
        return keras.Model([sequences, labels], SCRBM(units, classes, return_logits=True)(sequences, labels=labels))

    def baseline(kind, width):
        return sequential((steps, features), RECURRENT[kind](width, return_sequences=True), keras.layers.Dense(classes))

    def count(kind, width):
        return recurrent_parameters(kind, features, width) + (width + 1) * classes

    def floor(form):
        return sequential((steps, features), FreeEnergyFloor(units, classes, form=form))

    entries = [
        Entry(f"SCRBM ({units} units, Algorithm 1)", scrbm, (x, y), x),
        Entry(f"SCRBM teacher-forcing trainer ({units} units)", teacher_forcing, ([x, y], y)),
        Entry(f"{FLOOR} ({units} units), fast form", functools.partial(floor, "fast"), (x, y), x),
        Entry(f"{FLOOR} ({units} units), plain softplus", functools.partial(floor, "plain"), (x, y), x),
    ]
    return Section(
        "ocr",
        "OCR letters, SCRBM vs Keras RNNs",
        f"batch {batch} x {steps} steps x {features} features, {classes} classes (softmax per step)",
        SPARSE_LOGITS,
        entries + baseline_entries(baseline, count, units, scrbm().count_params(), kinds, (x, y), x),
        f"LSTM, equal width ({units} units)",
    )


def jsb(kinds, batch, steps, notes, units, memory_units):
    """JSB Chorales (LMN paper): piano rolls, next-frame prediction."""
    rng = np.random.default_rng(0)
    x = (rng.random((batch, steps, notes)) < 0.05).astype("float32")
    y = np.roll(x, -1, axis=1)
    width = units + memory_units  # the LMN paper counts an LMN's size so

    def head():
        return keras.layers.Dense(notes, activation="sigmoid")

    def lmn(output):
        return sequential((steps, notes), LMN(units, memory_units, output=output, return_sequences=True), head())

    def baseline(kind, size):
        return sequential((steps, notes), RECURRENT[kind](size, return_sequences=True), head())

    def count(kind, size):
        return recurrent_parameters(kind, notes, size) + (size + 1) * notes

    entries = [
        Entry(f"LMN-A ({units} + {memory_units} units)", functools.partial(lmn, "functional"), (x, y), x),
        Entry(f"LMN-B ({units} + {memory_units} units)", functools.partial(lmn, "memory"), (x, y), x),
    ]
    return Section(
        "jsb",
        "JSB Chorales, LMN vs Keras RNNs",
        f"batch {batch} x {steps} steps x {notes} notes (sigmoid per note)",
        "binary_crossentropy",
        entries + baseline_entries(baseline, count, width, lmn("memory").count_params(), kinds, (x, y), x),
        f"LSTM, equal width ({width} units)",
    )


def seq_mnist(kinds, batch, steps, hidden, outputs, levels, dilations):
    """Sequential MNIST (TrellisNet paper): one pixel per step, the class at
    the last step."""
    rng = np.random.default_rng(0)
    x = rng.random((batch, steps, 1)).astype("float32")
    y = rng.integers(0, 10, (batch,))

    def trellisnet():
        return TrellisNet(
            hidden,
            outputs,
            levels,
            input_dim=1,
            num_outputs=10,
            return_sequences=False,
            dilations=dilations,
            sequence_length=steps,
        )

    def baseline(kind, width):
        return sequential((steps, 1), RECURRENT[kind](width), keras.layers.Dense(10))

    def count(kind, width):
        return recurrent_parameters(kind, 1, width) + (width + 1) * 10

    entries = [Entry(f"TrellisNet ({hidden} hidden incl. {outputs} out, {levels} levels)", trellisnet, (x, y), x)]
    return Section(
        "seq_mnist",
        "Sequential MNIST, TrellisNet vs Keras RNNs",
        f"batch {batch} x {steps} steps x 1 pixel, 10 classes (last step); "
        f"TrellisNet dilations {', '.join(map(str, dilations))}",
        SPARSE_LOGITS,
        entries + baseline_entries(baseline, count, hidden, trellisnet().count_params(), kinds, (x, y), x),
        f"LSTM, equal width ({hidden} units)",
    )


def ptb_char(kinds, batch, steps, vocabulary, embedding, hidden, outputs, levels):
    """Character-level PTB (TrellisNet paper): a language model over tokens."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, vocabulary, (batch, steps))
    y = np.roll(x, -1, axis=1)

    def trellisnet():
        return TrellisNet(
            hidden,
            outputs,
            levels,
            vocab_size=vocabulary,
            embedding_dim=embedding,
            sequence_length=steps,
        )

    def baseline(kind, width):
        return sequential(
            (steps,),
            keras.layers.Embedding(vocabulary, embedding),
            RECURRENT[kind](width, return_sequences=True),
            keras.layers.Dense(vocabulary),
            dtype="int32",
        )

    def count(kind, width):
        return vocabulary * embedding + recurrent_parameters(kind, embedding, width) + (width + 1) * vocabulary

    entries = [
        Entry(
            f"TrellisNet LM ({hidden} hidden incl. {outputs} out, {levels} levels, tied embedding)",
            trellisnet,
            (x, y),
            x,
        )
    ]
    return Section(
        "ptb_char",
        "Character-level PTB, TrellisNet LM vs Keras RNN LMs",
        f"batch {batch} x {steps} tokens, vocabulary {vocabulary}, embedding {embedding} (softmax per step)",
        SPARSE_LOGITS,
        entries + baseline_entries(baseline, count, hidden, trellisnet().count_params(), kinds, (x, y), x),
        f"LSTM, equal width ({hidden} units)",
    )


SECTIONS = {"ocr": ocr, "jsb": jsb, "seq_mnist": seq_mnist, "ptb_char": ptb_char}

FULL = Config(
    name="full",
    shapes={
        "ocr": dict(batch=64, steps=14, features=128, classes=26, units=100),
        "jsb": dict(batch=64, steps=160, notes=88, units=100, memory_units=250),
        "seq_mnist": dict(batch=64, steps=784, hidden=130, outputs=10, levels=11, dilations=SEQ_MNIST_DILATIONS),
        "ptb_char": dict(batch=24, steps=200, vocabulary=50, embedding=32, hidden=128, outputs=32, levels=16),
        "reference": dict(batch=64, steps=784, hidden=130, levels=11, dilations=SEQ_MNIST_DILATIONS),
    },
    plans={
        "ocr": Plan(repeats=5, inference_repeats=3, jax_eager=False),
        "jsb": Plan(repeats=2, inference_repeats=2, jax_eager=False),
        # 784 steps: one setting (Keras' default), few repeats. Keras' RNN
        # layers step a Python loop on torch: these sections would take most
        # of the 10 minutes there.
        "seq_mnist": Plan(repeats=2, inference_repeats=1, jit=("auto",), backends=("tensorflow", "jax")),
        "ptb_char": Plan(repeats=2, inference_repeats=2, jit=("auto",), backends=("tensorflow", "jax")),
        "reference": Plan(repeats=3, inference_repeats=0, jit=("auto",)),
    },
    throughput_batch=256,
    baselines=("SimpleRNN", "GRU", "LSTM"),
)

TINY = Config(
    name="tiny",
    shapes={
        "ocr": dict(batch=4, steps=5, features=6, classes=3, units=4),
        "jsb": dict(batch=4, steps=6, notes=5, units=3, memory_units=4),
        "seq_mnist": dict(batch=4, steps=12, hidden=12, outputs=10, levels=3, dilations=(1, 1, 2)),
        "ptb_char": dict(batch=3, steps=7, vocabulary=6, embedding=4, hidden=8, outputs=4, levels=2),
        "reference": dict(batch=4, steps=12, hidden=12, levels=3, dilations=(1, 1, 2)),
    },
    plans={
        key: Plan(repeats=2, inference_repeats=1, jit=(False,), jax_eager=False)
        for key in ("ocr", "jsb", "seq_mnist", "ptb_char", "reference")
    },
    throughput_batch=8,
    baselines=("LSTM",),
)

CONFIGS = {"full": FULL, "tiny": TINY}


def section(config, key):
    """The section `key` of `config`, its models' widths solved."""
    return SECTIONS[key](config.baselines, **config.shapes[key])
