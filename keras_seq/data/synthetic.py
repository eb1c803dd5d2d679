"""Synthetic long-memory stress tests (TrellisNet / TCN papers), generated
offline with a seed: the adding problem and the copy-memory task; and a
small delayed-recall labelling task for examples."""

import numpy as np

from keras_seq.data import registry

_SPLIT_SEEDS = {"train": 0, "valid": 1, "test": 2}


def adding_problem(n, steps, seed):
    """Inputs (n, steps, 2): random values in [0, 1) and a marker channel
    with exactly two ones; target: the sum of the two marked values.
    Predicting the mean (1.0) gives an MSE of about 0.167."""
    _check_integer("adding", "steps", steps, 2)
    rng = np.random.default_rng(seed)
    values = rng.random((n, steps), dtype="float32")
    markers = np.zeros((n, steps), dtype="float32")
    first = rng.integers(0, steps // 2, n)
    second = rng.integers(steps // 2, steps, n)
    rows = np.arange(n)
    markers[rows, first] = 1.0
    markers[rows, second] = 1.0
    targets = values[rows, first] + values[rows, second]
    return np.stack([values, markers], axis=-1), targets[:, None].astype("float32")


def copy_memory(n, delay, seed, length=10, marker="repeated"):
    """Copy memory, inputs and targets `(n, delay + 2 * length)` token ids.

    Inputs: `length` digits in 1..8, then `delay - 1` blanks (0), then the
    recall markers. `marker="repeated"` is the TCN paper's layout (Bai et
    al. 2018): the last `length + 1` inputs are all 9, the first
    of them the delimiter. `marker="single"` is Arjovsky et al. (2016)'s:
    one delimiter 9, then `length` blanks. Targets: blanks, then the digits
    again at the last `length` steps. Predicting blanks then uniform digits
    gives a cross-entropy of `length * ln 8 / (delay + 2 * length)`.
    """
    if marker not in ("repeated", "single"):
        raise ValueError(f'copy_memory marker must be "repeated" or "single"; got {marker!r}.')
    _check_integer("copy_memory", "delay", delay, 1)
    _check_integer("copy_memory", "length", length, 1)
    rng = np.random.default_rng(seed)
    steps = delay + 2 * length
    digits = rng.integers(1, 9, (n, length))
    inputs = np.zeros((n, steps), dtype="int32")
    inputs[:, :length] = digits
    if marker == "repeated":
        inputs[:, length + delay - 1 :] = 9
    else:
        inputs[:, length + delay - 1] = 9
    targets = np.zeros((n, steps), dtype="int32")
    targets[:, -length:] = digits
    return inputs, targets


def delayed_recall(n, steps, symbols, delay, seed):
    """A small sequence-labelling task with memory: random symbols, one-hot
    `x (n, steps, symbols)`; the label `y (n, steps)` at step t is the
    symbol of step `t - delay`, and the first `delay` steps, which have
    nothing to recall, get sample weight 0 in `w (n, steps)`. Chance
    accuracy is `1 / symbols`.

    Example:

    >>> x, y, w = delayed_recall(256, steps=24, symbols=4, delay=2, seed=0)
    >>> model.fit(x, y, sample_weight=w)
    """
    if not 0 < delay < steps:
        raise ValueError(f"delayed_recall needs 0 < delay < steps; got delay={delay}, steps={steps}.")
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, symbols, size=(n, steps))
    x = np.eye(symbols, dtype="float32")[drawn]
    y = np.zeros_like(drawn)
    y[:, delay:] = drawn[:, :-delay]
    w = np.ones(drawn.shape, "float32")
    w[:, :delay] = 0.0
    return x, y, w


def _check_integer(dataset, option, value, minimum):
    """Raises a ValueError naming `dataset`, `option` and `value` unless
    `value` is an integer >= `minimum`."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"Dataset {dataset!r}: {option} must be an integer >= {minimum}; got {value!r}.")


def _num_sequences(dataset, split, num_sequences):
    """`num_sequences`, or the split's published size when it is None."""
    if num_sequences is None:
        return registry.get(dataset).info.splits[split]
    _check_integer(dataset, "num_sequences", num_sequences, 1)
    return int(num_sequences)


def _adding(split, data_dir=None, steps=200, num_sequences=None):
    registry.check_split("adding", split)
    n = _num_sequences("adding", split, num_sequences)
    inputs, targets = adding_problem(n, steps, seed=1000 + _SPLIT_SEEDS[split])
    return registry.Sequences(list(inputs), list(targets))


def _copy(split, data_dir=None, delay=500, num_sequences=None, marker="repeated"):
    registry.check_split("copy_memory", split)
    n = _num_sequences("copy_memory", split, num_sequences)
    inputs, targets = copy_memory(n, delay, seed=2000 + _SPLIT_SEEDS[split], marker=marker)
    return registry.Sequences(list(inputs), list(targets))


registry.register(
    registry.DatasetInfo(
        name="adding",
        description="Adding problem (T=200 by default, option steps=): regress the sum of the two marked values.",
        task="regression",
        splits={"train": 50000, "valid": 1000, "test": 1000},
        input_shape=(2,),
        input_dtype="float32",
        num_classes=None,
        source="Hochreiter & Schmidhuber 1997; generated (seeded)",
    ),
    _adding,
)
registry.register(
    registry.DatasetInfo(
        name="copy_memory",
        description='Copy memory (delay T=500 by default, option delay=; TCN-paper layout, option marker="single" '
        "for one delimiter): repeat 10 digits after the delimiter.",
        task="labelling",
        splits={"train": 30000, "valid": 1000, "test": 6000},
        input_shape=(),
        input_dtype="int32",
        num_classes=10,
        source="Hochreiter & Schmidhuber 1997; layout of Bai et al. 2018 (TCN); generated (seeded)",
        vocabulary_size=10,
    ),
    _copy,
)
