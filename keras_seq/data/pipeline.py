"""From `Sequences` of numpy arrays to batched `tf.data.Dataset`s.

- Per-step tasks (`next_frame`, `next_token` over many sequences,
  `labelling`): padded batches of `(inputs, targets, sample_weights)`, where
  the weights are 1 on real steps and 0 on padding, so padding never counts
  in a loss or metric. Padding is zeros (id 0 for tokens).
- Language-model streams (`next_token` with one long sequence, e.g. PTB):
  the stream is cut into `batch_size` contiguous rows and served as
  consecutive `(batch_size, bptt)` windows in order, for stateful or
  truncated BPTT training (row i of window k+1 continues row i of window k).
- Per-sequence tasks (`classification`, `regression`): `(inputs, targets)`.

`max_length` pads every batch to one fixed length (fixed shapes for XLA and
TPUs, with `drop_remainder=True`); `bucket_boundaries` groups sequences of
similar length to waste less padding; `shuffle` with `seed` is repeatable,
each pass (epoch) in a new order. With `epoch` (a scalar integer
`tf.Variable` that the training loop sets to the epoch number as each epoch
begins, e.g. zoo.callbacks.ShuffleEpoch), a pass's order is a function of
the seed and that number alone: a run resumed after epoch k sees in epoch
k + 1 the batches an uninterrupted run saw, whatever iterators the loop
opened before.
"""

import numpy as np

from keras_seq.data.registry import Sequences

OPTIONS = frozenset(
    {"shuffle", "seed", "epoch", "drop_remainder", "max_length", "bucket_boundaries", "bptt", "prefetch"}
)


def check_sequences(sequences, info):
    """Raises a ValueError naming the first problem: shapes, NaN, ranges."""
    if not isinstance(sequences, Sequences) or len(sequences.inputs) != len(sequences.targets):
        raise ValueError("Expected Sequences with as many inputs as targets.")
    if len(sequences) == 0:
        raise ValueError(f"{info.name}: the split is empty.")
    per_step = info.task in ("next_frame", "next_token", "labelling")
    for i, (x, y) in enumerate(zip(sequences.inputs, sequences.targets)):
        if x.shape[1:] != tuple(info.input_shape):
            raise ValueError(
                f"{info.name}: sequence {i} has steps of shape {x.shape[1:]}, expected {tuple(info.input_shape)}."
            )
        if len(x) == 0:
            raise ValueError(f"{info.name}: sequence {i} is empty.")
        if per_step and len(y) != len(x):
            raise ValueError(f"{info.name}: sequence {i} has {len(x)} inputs but {len(y)} targets.")
    inputs = np.concatenate(sequences.inputs)  # steps stacked; same step shape checked above
    targets = np.concatenate([np.ravel(y) for y in sequences.targets])
    for what, values in (("inputs", inputs), ("targets", targets)):
        if values.dtype.kind == "f" and not np.isfinite(values).all():
            raise ValueError(f"{info.name}: {what} contain NaN or infinite values.")
    if info.task == "next_frame" and not (np.isin(inputs, (0, 1)).all() and np.isin(targets, (0, 1)).all()):
        raise ValueError(f"{info.name}: piano rolls must be binary.")
    if info.num_classes is not None and (targets.min() < 0 or targets.max() >= info.num_classes):
        raise ValueError(
            f"{info.name}: targets must lie in [0, {info.num_classes - 1}]; got {targets.min()}..{targets.max()}."
        )
    if info.column_vocabulary_sizes is not None:
        for column, size in enumerate(info.column_vocabulary_sizes):
            ids = inputs[:, column]
            if ids.min() < 0 or ids.max() >= size:
                raise ValueError(
                    f"{info.name}: ids of input column {column} must lie in [0, {size - 1}]; got "
                    f"{ids.min()}..{ids.max()}."
                )
    elif info.vocabulary_size is not None and (inputs.min() < 0 or inputs.max() >= info.vocabulary_size):
        raise ValueError(
            f"{info.name}: token ids must lie in [0, {info.vocabulary_size - 1}]; got {inputs.min()}..{inputs.max()}."
        )


def _is_positive_integer(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1


def check_options(batch_size, max_length, bucket_boundaries, bptt, shuffle=False, epoch=None):
    """Raises an error naming the first pipeline option with a bad value;
    None, their default, is fine for all but `batch_size`. `epoch`, which
    keys the shuffle order, is a scalar integer `tf.Variable` and needs
    `shuffle=True`."""
    if not _is_positive_integer(batch_size):
        raise ValueError(f"`batch_size` must be a positive integer; got {batch_size!r}.")
    for option, value in (("max_length", max_length), ("bptt", bptt)):
        if value is not None and not _is_positive_integer(value):
            raise ValueError(f"`{option}` must be a positive integer (or None); got {value!r}.")
    if bucket_boundaries is not None:
        boundaries = list(bucket_boundaries) if isinstance(bucket_boundaries, (list, tuple, np.ndarray)) else []
        if not boundaries or not all(map(_is_positive_integer, boundaries)) or boundaries != sorted(set(boundaries)):
            raise ValueError(
                "`bucket_boundaries` must be a non-empty, strictly increasing list of positive "
                f"integers (or None for no bucketing); got {bucket_boundaries!r}."
            )
    if epoch is not None:
        import tensorflow as tf

        if not isinstance(epoch, tf.Variable) or epoch.shape.rank != 0 or not epoch.dtype.is_integer:
            raise TypeError(f"`epoch` must be a scalar integer tf.Variable (or None); got {epoch!r}.")
        if not shuffle:
            raise ValueError("`epoch` keys the order of shuffled passes; it needs shuffle=True.")


def make_dataset(
    sequences,
    info,
    batch_size=32,
    shuffle=False,
    seed=0,
    epoch=None,
    drop_remainder=False,
    max_length=None,
    bucket_boundaries=None,
    bptt=None,
    prefetch=True,
):
    import tensorflow as tf

    check_options(batch_size, max_length, bucket_boundaries, bptt, shuffle, epoch)
    check_sequences(sequences, info)
    stream = info.task == "next_token" and len(sequences) == 1
    if bptt is not None and not stream:
        raise ValueError(
            f"`bptt` cuts one token stream (a next_token dataset of one sequence) into windows; "
            f"{info.name!r} is a {info.task} dataset of {len(sequences)} sequences (got bptt={bptt!r})."
        )
    if stream:
        dataset = stream_windows(sequences, batch_size, 70 if bptt is None else bptt)
    elif info.task in ("classification", "regression"):
        examples = (np.stack(sequences.inputs), np.stack(sequences.targets))
        dataset = shuffled(examples, seed, epoch) if shuffle else tf.data.Dataset.from_tensor_slices(examples)
        dataset = dataset.batch(batch_size, drop_remainder=drop_remainder)
    else:
        dataset = padded_batches(
            sequences, info, batch_size, shuffle, seed, epoch, drop_remainder, max_length, bucket_boundaries
        )
    return dataset.prefetch(tf.data.AUTOTUNE) if prefetch else dataset


def shuffled(tensors, seed, epoch=None):
    """The slices of `tensors` (arrays of one length), in a new repeatable
    order on each pass: TensorFlow's reshuffling from `seed`, or with
    `epoch` (a scalar integer `tf.Variable`) the permutation keyed by `seed`
    and the value `epoch` holds when the pass starts."""
    import tensorflow as tf

    size = len(tf.nest.flatten(tensors)[0])
    if epoch is None:
        return tf.data.Dataset.from_tensor_slices(tensors).shuffle(size, seed=seed)
    tensors = tf.nest.map_structure(tf.convert_to_tensor, tensors)

    def one_pass(_):
        key = tf.stack([tf.constant(seed, "int64"), tf.cast(epoch, "int64")])
        return tf.data.Dataset.from_tensor_slices(
            tf.random.experimental.stateless_shuffle(tf.range(size, dtype="int64"), seed=key)
        )

    def example(index):
        return tf.nest.map_structure(lambda tensor: tf.gather(tensor, index), tensors)

    order = tf.data.Dataset.from_tensors(0).flat_map(one_pass)
    return order.apply(tf.data.experimental.assert_cardinality(size)).map(example)


def stream_windows(sequences, batch_size, bptt):
    """Consecutive (batch_size, bptt) windows of one token stream."""
    import tensorflow as tf

    inputs, targets = sequences.inputs[0], sequences.targets[0]
    rows = len(inputs) // batch_size
    windows = rows // bptt
    if windows == 0:
        raise ValueError(f"A stream of {len(inputs)} tokens is too short for batch_size={batch_size} and bptt={bptt}.")
    used = windows * bptt

    def cut(stream):
        grid = stream[: rows * batch_size].reshape(batch_size, rows)[:, :used]
        return grid.reshape(batch_size, windows, bptt).transpose(1, 0, 2)

    return tf.data.Dataset.from_tensor_slices((cut(inputs), cut(targets)))


def padded_batches(sequences, info, batch_size, shuffle, seed, epoch, drop_remainder, max_length, bucket_boundaries):
    import tensorflow as tf

    lengths = sequences.lengths()
    longest = int(lengths.max())
    if max_length is not None and longest > max_length:
        raise ValueError(
            f"{info.name}: the longest sequence has {longest} steps, more than "
            f"max_length={max_length}; raise max_length (nothing is truncated)."
        )
    input_dtype = "int32" if info.input_dtype.startswith("int") else "float32"
    target_dtype = "float32" if info.task == "next_frame" else "int32"
    flat_inputs = tf.constant(np.concatenate(sequences.inputs).astype(input_dtype))
    flat_targets = tf.constant(np.concatenate(sequences.targets).astype(target_dtype))
    starts = np.concatenate([[0], np.cumsum(lengths)]).astype("int64")
    spans = (starts[:-1], starts[1:])
    dataset = shuffled(spans, seed, epoch) if shuffle else tf.data.Dataset.from_tensor_slices(spans)

    def sequence(start, stop):
        weights = tf.ones([stop - start], dtype="float32")
        return flat_inputs[start:stop], flat_targets[start:stop], weights

    dataset = dataset.map(sequence, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
    step_shape = tuple(info.input_shape)
    target_step_shape = step_shape if info.task == "next_frame" else ()
    padded_shapes = (
        tf.TensorShape((max_length,) + step_shape),
        tf.TensorShape((max_length,) + target_step_shape),
        tf.TensorShape((max_length,)),
    )
    if bucket_boundaries is not None:
        return dataset.bucket_by_sequence_length(
            element_length_func=lambda x, y, w: tf.shape(w)[0],
            bucket_boundaries=list(bucket_boundaries),
            bucket_batch_sizes=[batch_size] * (len(bucket_boundaries) + 1),
            padded_shapes=padded_shapes,
            drop_remainder=drop_remainder,
        )
    return dataset.padded_batch(batch_size, padded_shapes=padded_shapes, drop_remainder=drop_remainder)
