import numpy as np
import pytest

import keras_seq.data as data
from keras_seq.data import pipeline
from keras_seq.data import registry
from keras_seq.data.registry import DatasetInfo
from keras_seq.data.registry import Sequences

LABELLING = DatasetInfo("toy", "toy", "labelling", {"train": 5}, (3,), "float32", 4, "test")


def toy_sequences(lengths=(2, 5, 3, 4, 1)):
    rng = np.random.default_rng(0)
    return Sequences(
        [rng.normal(size=(n, 3)).astype("float32") for n in lengths],
        [rng.integers(0, 4, n).astype("int32") for n in lengths],
    )


def test_padded_batches_carry_weights_that_zero_the_padding():
    sequences = toy_sequences()
    batches = list(pipeline.make_dataset(sequences, LABELLING, batch_size=2))
    assert [b[0].shape[0] for b in batches] == [2, 2, 1]
    x, y, w = (t.numpy() for t in batches[0])
    assert x.shape == (2, 5, 3) and y.shape == (2, 5) and w.shape == (2, 5)
    np.testing.assert_array_equal(w.sum(1), [2, 5])
    np.testing.assert_array_equal(x[0, :2], sequences.inputs[0])
    assert np.all(x[0, 2:] == 0)


def test_fixed_shapes_for_xla_and_no_silent_truncation():
    sequences = toy_sequences()
    dataset = pipeline.make_dataset(sequences, LABELLING, batch_size=2, max_length=6, drop_remainder=True)
    shapes = [tuple(b[0].shape) for b in dataset]
    assert shapes == [(2, 6, 3), (2, 6, 3)]
    assert dataset.element_spec[0].shape.as_list() == [2, 6, 3]
    with pytest.raises(ValueError, match="max_length=4"):
        pipeline.make_dataset(sequences, LABELLING, max_length=4)


def test_shuffle_is_repeatable_with_a_seed():
    sequences = toy_sequences(tuple(range(1, 30)))
    info = DatasetInfo("toy", "toy", "labelling", {}, (3,), "float32", 4, "test")

    def first_lengths(seed):
        dataset = pipeline.make_dataset(sequences, info, batch_size=4, shuffle=True, seed=seed)
        return [int(w.numpy().sum()) for _, _, w in dataset.take(3)]

    assert first_lengths(1) == first_lengths(1)
    assert first_lengths(1) != first_lengths(2)


def _pass_lengths(dataset):
    return [int(length) for _, _, w in dataset for length in w.numpy().sum(1)]


def test_an_epoch_variable_keys_each_pass_to_the_epoch_number():
    import tensorflow as tf

    sequences = toy_sequences(tuple(range(1, 30)))
    info = DatasetInfo("toy", "toy", "labelling", {}, (3,), "float32", 4, "test")
    epoch = tf.Variable(0, dtype="int64")
    dataset = pipeline.make_dataset(sequences, info, batch_size=4, shuffle=True, seed=1, epoch=epoch)
    assert dataset.cardinality() == 8  # known, as without the variable
    orders = {}
    for value in (0, 1, 2):
        epoch.assign(value)
        orders[value] = _pass_lengths(dataset)
        assert sorted(orders[value]) == list(range(1, 30))  # every sequence once
    assert len({tuple(order) for order in orders.values()}) == 3
    # A fresh pipeline (a resumed run) at epoch 2, after passes opened and abandoned.
    resumed = tf.Variable(5, dtype="int64")
    fresh = pipeline.make_dataset(sequences, info, batch_size=4, shuffle=True, seed=1, epoch=resumed)
    next(iter(fresh))
    resumed.assign(2)
    assert _pass_lengths(fresh) == orders[2]
    other_seed = pipeline.make_dataset(sequences, info, batch_size=4, shuffle=True, seed=2, epoch=epoch)
    assert _pass_lengths(other_seed) != orders[2]


def test_an_epoch_variable_keys_per_sequence_tasks_too():
    import tensorflow as tf

    info = DatasetInfo("toy", "toy", "classification", {}, (1,), "float32", 3, "test")
    inputs = [np.full((2, 1), i, "float32") for i in range(10)]
    sequences = Sequences(inputs, [np.int32(i % 3) for i in range(10)])
    epoch = tf.Variable(3, dtype="int64")
    dataset = pipeline.make_dataset(sequences, info, batch_size=4, shuffle=True, seed=0, epoch=epoch)
    order = [int(v) for x, y in dataset for v in x.numpy()[:, 0, 0]]
    assert sorted(order) == list(range(10)) and order != list(range(10))
    assert [int(v) for x, y in dataset for v in y.numpy()] == [i % 3 for i in order]


@pytest.mark.parametrize(
    "epoch, shuffle, message",
    [
        (3, True, "scalar integer tf.Variable"),
        ("float", True, "scalar integer tf.Variable"),
        ("int", False, "needs shuffle=True"),
    ],
)
def test_a_bad_epoch_variable_is_named(epoch, shuffle, message):
    import tensorflow as tf

    epoch = {"float": tf.Variable(0.0), "int": tf.Variable(0, dtype="int64")}.get(epoch, epoch)
    with pytest.raises((TypeError, ValueError), match=message):
        pipeline.make_dataset(toy_sequences(), LABELLING, shuffle=shuffle, epoch=epoch)


def test_bucketing_groups_similar_lengths():
    sequences = toy_sequences((1, 9, 2, 8, 1, 9, 2, 8))
    info = DatasetInfo("toy", "toy", "labelling", {}, (3,), "float32", 4, "test")
    dataset = pipeline.make_dataset(sequences, info, batch_size=2, bucket_boundaries=[5])
    widths = sorted(b[0].shape[1] for b in dataset)
    assert widths == [2, 2, 9, 9]


def test_stream_windows_continue_row_by_row():
    stream = np.arange(1001, dtype="int32")
    info = DatasetInfo("lm", "lm", "next_token", {}, (), "int32", 2000, "test", vocabulary_size=2000)
    dataset = pipeline.make_dataset(Sequences([stream[:-1]], [stream[1:]]), info, batch_size=4, bptt=10)
    windows = [(x.numpy(), y.numpy()) for x, y in dataset]
    assert len(windows) == 25 and windows[0][0].shape == (4, 10)
    np.testing.assert_array_equal(windows[1][0][:, 0], windows[0][0][:, -1] + 1)
    np.testing.assert_array_equal(windows[0][1], windows[0][0] + 1)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"bptt": 0}, r"`bptt` must be a positive integer \(or None\); got 0\."),
        ({"bptt": -5}, r"`bptt` must be a positive integer \(or None\); got -5\."),
        ({"bptt": 2.5}, r"`bptt` must be a positive integer \(or None\); got 2\.5"),
        ({"max_length": 0}, r"`max_length` must be a positive integer \(or None\); got 0\."),
        ({"bucket_boundaries": []}, r"`bucket_boundaries` must be a non-empty, strictly increasing .*got \[\]"),
        ({"bucket_boundaries": [8, 4]}, r"`bucket_boundaries` .* got \[8, 4\]"),
    ],
)
def test_pipeline_options_that_are_falsy_or_out_of_range_are_named(options, message):
    stream = np.arange(1001, dtype="int32")
    info = DatasetInfo("lm", "lm", "next_token", {}, (), "int32", 2000, "test", vocabulary_size=2000)
    with pytest.raises(ValueError, match=message):
        pipeline.make_dataset(Sequences([stream[:-1]], [stream[1:]]), info, batch_size=4, **options)


def test_load_refuses_bptt_zero_instead_of_the_default(shared_data_dir):
    with pytest.raises(ValueError, match=r"`bptt` must be a positive integer \(or None\); got 0\."):
        data.load("ptb_char", "valid", data_dir=shared_data_dir, bptt=0)


def test_checks_name_bad_batches():
    bad = toy_sequences()
    bad.inputs[1][0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        pipeline.make_dataset(bad, LABELLING)
    out_of_range = toy_sequences()
    out_of_range.targets[0][0] = 7
    with pytest.raises(ValueError, match=r"targets must lie in \[0, 3\]"):
        pipeline.make_dataset(out_of_range, LABELLING)
    with pytest.raises(ValueError, match="batch_size"):
        pipeline.make_dataset(toy_sequences(), LABELLING, batch_size=0)
    wrong_width = toy_sequences()
    wrong_width.inputs[2] = np.zeros((3, 4), "float32")
    with pytest.raises(ValueError, match="expected \\(3,\\)"):
        pipeline.make_dataset(wrong_width, LABELLING)


def test_checks_name_the_id_column_out_of_range():
    """Multi-column token inputs: each column against its own vocabulary size."""
    base = DatasetInfo("toy_ids", "toy", "labelling", {"train": 2}, (), "int32", 4, "test", vocabulary_size=10)
    info = registry.info_for_features(base, {"words+tags": (10, 3)})(features="words+tags")
    assert info.input_shape == (2,) and info.column_vocabulary_sizes == (10, 3)
    assert registry.info_for_features(base, {"words+tags": (10, 3)})(features="words") is base
    ids = Sequences(
        [np.array([[9, 2], [1, 0]], "int32"), np.array([[5, 1]], "int32")], [np.zeros(2, "int32"), np.zeros(1, "int32")]
    )
    pipeline.check_sequences(ids, info)
    ids.inputs[1][0, 1] = 3  # a valid word id (< 10), out of the second column's range
    with pytest.raises(ValueError, match=r"input column 1 must lie in \[0, 2\]; got 0..3"):
        pipeline.check_sequences(ids, info)


def test_load_jsb_batches(shared_data_dir):
    dataset = data.load("jsb_chorales", "valid", data_dir=shared_data_dir, batch_size=16)
    total = 0
    for x, _, w in dataset:
        assert x.shape[-1] == 88 and x.dtype == "float32"
        total += int(w.numpy().sum())
    assert total == 4602 - 76  # one target fewer than frames per chorale


def test_bptt_is_refused_where_there_is_no_stream_to_cut(shared_data_dir):
    import keras_seq.data as data

    with pytest.raises(
        ValueError,
        match=r"`bptt` cuts one token stream .*'jsb_chorales' is a next_frame dataset of "
        r"\d+ sequences \(got bptt=35\)",
    ):
        data.load("jsb_chorales", "valid", data_dir=shared_data_dir, bptt=35)
