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
    inputs of `conll2000_chunking` with `features="words+pos"`).

    Example:

    >>> keras_seq.data.info("jsb_chorales").input_shape  # 88 piano keys per frame
    (88,)
    >>> chunks = keras_seq.data.info("conll2000_chunking", features="words+pos")
    >>> chunks.num_classes, chunks.input_shape, chunks.column_vocabulary_sizes
    (23, (2,), (19124, 46))
    """
    from keras_seq.data import registry

    return registry.info(name, **options)


def load_arrays(name, split="train", data_dir=None, **options):
    """One split as `Sequences(inputs, targets)` of numpy arrays.

    Example:

    >>> test = keras_seq.data.load_arrays("jsb_chorales", "test")
    >>> len(test), test.inputs[0].shape, test.targets[0].shape
    (77, (83, 88), (83, 88))
    >>> words = keras_seq.data.load_arrays("ocr_letters", "test", protocol="ms")
    >>> words.inputs[0].shape, words.targets[0].tolist()  # 9 letter images, their classes
    ((9, 128), [20, 25, 25, 11, 4, 12, 4, 13, 19])
    """
    from keras_seq.data import registry

    registry.check_options(name, options)
    return registry.get(name).load(split, data_dir=data_dir, **options)


def load(name, split="train", data_dir=None, batch_size=32, **options):
    """One split as a batched, padded, masked `tf.data.Dataset`.

    Options of the dataset go to its loader; pipeline options (`shuffle`,
    `seed`, `epoch`, `drop_remainder`, `max_length`, `bucket_boundaries`,
    `bptt`, `prefetch`) go to `keras_seq.data.pipeline.make_dataset`.

    Example:

    >>> dataset = keras_seq.data.load("jsb_chorales", "test", batch_size=8)
    >>> inputs, targets, sample_weight = next(iter(dataset))  # padded to the batch's longest
    >>> tuple(inputs.shape), tuple(targets.shape), tuple(sample_weight.shape)
    ((8, 100, 88), (8, 100, 88), (8, 100))
    """
    from keras_seq.data import pipeline

    pipeline_options = {k: options.pop(k) for k in list(options) if k in pipeline.OPTIONS}
    sequences = load_arrays(name, split, data_dir, **options)
    return pipeline.make_dataset(sequences, info(name, **options), batch_size=batch_size, **pipeline_options)


__all__ = ["DatasetInfo", "Sequences", "info", "load", "load_arrays", "names"]
