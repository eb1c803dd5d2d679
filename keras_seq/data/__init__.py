"""Benchmark datasets of the three papers as numpy arrays and tf.data pipelines.

    keras_seq.data.load(name, split="train", data_dir=None, batch_size=32, **options)
    keras_seq.data.load_arrays(name, split="train", data_dir=None, **options)
    keras_seq.data.info(name, **options)
    keras_seq.data.names()

Files are looked up in `data_dir`, then `$KERAS_SEQ_DATA_DIR`, then the Keras
cache folder, and downloaded (checksum verified) where a public URL exists.
The arrays part is numpy-only; `load` needs TensorFlow (tf.data).
"""

from keras_seq.data import conll  # noqa: F401  (registers its datasets)
from keras_seq.data import mnist  # noqa: F401
from keras_seq.data import music  # noqa: F401
from keras_seq.data import music21_corpus  # noqa: F401
from keras_seq.data import ocr  # noqa: F401
from keras_seq.data import ptb  # noqa: F401
from keras_seq.data import synthetic  # noqa: F401
from keras_seq.data import text  # noqa: F401  (the former text module's names)
from keras_seq.data import wsj_pos  # noqa: F401
from keras_seq.data.registry import DatasetInfo
from keras_seq.data.registry import Sequences
from keras_seq.data.registry import names


def info(name, **options):
    """The `DatasetInfo` of a dataset: splits, shapes, classes, source; with
    loader `options`, of the arrays those options load (e.g. the (T, 2)
    inputs of `conll2000_chunking` with `features="words+pos"`)."""
    from keras_seq.data import registry

    return registry.info(name, **options)


def load_arrays(name, split="train", data_dir=None, **options):
    """One split as `Sequences(inputs, targets)` of numpy arrays."""
    from keras_seq.data import registry

    registry.check_options(name, options)
    return registry.get(name).load(split, data_dir=data_dir, **options)


def load(name, split="train", data_dir=None, batch_size=32, **options):
    """One split as a batched, padded, masked `tf.data.Dataset`.

    Options of the dataset go to its loader; pipeline options (`shuffle`,
    `seed`, `epoch`, `drop_remainder`, `max_length`, `bucket_boundaries`,
    `bptt`, `prefetch`) go to `keras_seq.data.pipeline.make_dataset`.
    """
    from keras_seq.data import pipeline

    pipeline_options = {k: options.pop(k) for k in list(options) if k in pipeline.OPTIONS}
    sequences = load_arrays(name, split, data_dir, **options)
    return pipeline.make_dataset(sequences, info(name, **options), batch_size=batch_size, **pipeline_options)


__all__ = ["DatasetInfo", "Sequences", "info", "load", "load_arrays", "names"]
