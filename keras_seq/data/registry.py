"""The catalogue of datasets behind `keras_seq.data.load` / `load_arrays` / `info`."""

import dataclasses
import inspect
from typing import Callable

import numpy as np


@dataclasses.dataclass
class Sequences:
    """One split as numpy arrays, aligned sequence by sequence.

    `inputs[i]` and `targets[i]` are arrays whose first axis is time (the same
    length for both). Next-step prediction tasks are already shifted: the
    target at step t is the input at step t + 1.

    Example:

    >>> pair = Sequences(inputs=[np.zeros((3, 2)), np.zeros((5, 2))], targets=[np.zeros(3), np.zeros(5)])
    >>> len(pair), pair.lengths().tolist()
    (2, [3, 5])
    >>> test = keras_seq.data.load_arrays("jsb_chorales", "test")  # a next-frame task
    >>> bool(np.array_equal(test.targets[0][:-1], test.inputs[0][1:]))
    True
    """

    inputs: list
    targets: list

    def __len__(self):
        return len(self.inputs)

    def lengths(self):
        return np.array([len(x) for x in self.inputs], dtype="int64")


@dataclasses.dataclass(frozen=True)
class DatasetInfo:
    """What `keras_seq.data.info(name)` returns.

    Example:

    >>> info = keras_seq.data.info("ocr_letters")
    >>> info.task, info.input_shape, info.input_dtype, info.num_classes
    ('labelling', (128,), 'float32', 26)
    >>> info.splits["test"]
    626
    """

    name: str
    description: str
    task: str  # "next_frame", "next_token", "labelling", "classification", "regression"
    splits: dict  # split name -> number of sequences (as published)
    input_shape: tuple  # per step, without time
    input_dtype: str
    num_classes: int | None  # classes per step (labelling/next_token) or per sequence
    source: str
    files: tuple = ()  # paths relative to the data folder
    vocabulary_size: int | None = None  # token inputs: ids in [0, size)
    # Token inputs of several id columns, steps of shape (k,): one vocabulary
    # size per column (the first is the words', `vocabulary_size`).
    column_vocabulary_sizes: tuple | None = None


@dataclasses.dataclass(frozen=True)
class Dataset:
    info: DatasetInfo
    load: Callable  # (split, data_dir, **options) -> Sequences
    # (**options) -> the DatasetInfo of the arrays loaded with those options,
    # for options that change the inputs' shape; None: `info` for any options.
    info_for_options: Callable | None = None


_REGISTRY = {}


def register(info, load, info_for_options=None):
    _REGISTRY[info.name] = Dataset(info, load, info_for_options)


def info(name, **options):
    """The `DatasetInfo` of dataset `name` loaded with the loader `options`."""
    check_options(name, options)
    dataset = get(name)
    return dataset.info_for_options(**options) if dataset.info_for_options else dataset.info


def info_for_features(info, column_vocabulary_sizes, default="words"):
    """An `info_for_options` for loaders whose `features` option adds id columns.

    `column_vocabulary_sizes` maps a `features` value to the vocabulary size of
    each column it loads; `default`, the loader's default `features`, loads
    `info`'s single-column inputs, and any other value is a ValueError, as in
    the loader.
    """

    def info_for_options(features=default, **options):
        if features == default:
            return info
        if not isinstance(features, str) or features not in column_vocabulary_sizes:
            accepted = " or ".join(repr(value) for value in (default, *column_vocabulary_sizes))
            raise ValueError(f"Dataset {info.name!r}: features must be {accepted}, got {features!r}.")
        sizes = column_vocabulary_sizes[features]
        return dataclasses.replace(info, input_shape=(len(sizes),), column_vocabulary_sizes=tuple(sizes))

    return info_for_options


def get(name):
    if name not in _REGISTRY:
        raise ValueError(f"Unknown dataset {name!r}. Known datasets: {', '.join(sorted(_REGISTRY))}.")
    return _REGISTRY[name]


def names():
    """The names of the registered datasets, sorted.

    Example:

    >>> keras_seq.data.names()[:3]
    ['adding', 'bach_chorales', 'bach_melodies']
    >>> "jsb_chorales" in keras_seq.data.names()
    True
    """
    return sorted(_REGISTRY)


def options(name):
    """The names of the keyword options dataset `name`'s loader takes: its
    arguments after `split` and `data_dir`, less private `_`-names."""
    parameters = inspect.signature(get(name).load).parameters
    return tuple(
        sorted(
            key
            for key, parameter in parameters.items()
            if key not in ("split", "data_dir")
            and not key.startswith("_")
            and parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)
        )
    )


def check_options(name, given):
    """Raises a TypeError naming the options in `given` that dataset `name`'s
    loader does not take."""
    allowed = options(name)
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise TypeError(f"Dataset {name!r} got unknown option(s) {unknown}; it accepts {', '.join(allowed) or 'none'}.")


def check_split(name, split):
    splits = get(name).info.splits
    if split not in splits:
        raise ValueError(f"Dataset {name!r} has no split {split!r}; its splits are {sorted(splits)}.")
