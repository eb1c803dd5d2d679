import numpy as np
import pytest

import keras_seq.data as data
from keras_seq.data import files
from keras_seq.data import mnist
from keras_seq.data import synthetic


def test_adding_problem_targets_and_baseline():
    x, y = synthetic.adding_problem(4000, 50, seed=3)
    assert x.shape == (4000, 50, 2) and y.shape == (4000, 1)
    assert np.all(x[..., 1].sum(1) == 2)
    np.testing.assert_allclose(y[:, 0], (x[..., 0] * x[..., 1]).sum(1), rtol=1e-6)
    assert abs(np.mean((y - 1.0) ** 2) - 1 / 6) < 0.01  # the trivial baseline
    again, _ = synthetic.adding_problem(4000, 50, seed=3)
    np.testing.assert_array_equal(x, again)


def test_copy_memory_layout_is_the_tcn_papers():
    x, y = synthetic.copy_memory(5, delay=30, seed=1)
    assert x.shape == y.shape == (5, 50)
    np.testing.assert_array_equal(y[:, -10:], x[:, :10])
    assert np.all(x[:, 39:] == 9) and np.all(x[:, 10:39] == 0)  # 11 nines: delimiter + recall
    assert np.all(y[:, :-10] == 0)
    assert x[:, :10].min() >= 1 and x[:, :10].max() <= 8


def test_copy_memory_single_delimiter_layout():
    x, y = synthetic.copy_memory(5, delay=30, seed=1, marker="single")
    repeated, same_targets = synthetic.copy_memory(5, delay=30, seed=1)
    np.testing.assert_array_equal(y, same_targets)
    assert np.all(x[:, 39] == 9) and np.all(x[:, 40:] == 0) and np.all(x[:, 10:39] == 0)
    np.testing.assert_array_equal(x[:, :10], repeated[:, :10])
    with pytest.raises(ValueError, match="marker"):
        synthetic.copy_memory(5, delay=30, seed=1, marker="twice")


def test_splits_differ_and_sizes_follow_options():
    train = data.load_arrays("adding", "train", steps=20, num_sequences=10)
    test = data.load_arrays("adding", "test", steps=20, num_sequences=10)
    assert len(train) == 10 and train.inputs[0].shape == (20, 2)
    assert not np.array_equal(train.inputs[0], test.inputs[0])


@pytest.mark.parametrize(
    "name, options, message",
    [
        ("adding", {"num_sequences": 0}, r"Dataset 'adding': num_sequences must be an integer >= 1; got 0\."),
        (
            "copy_memory",
            {"num_sequences": 2.5},
            r"Dataset 'copy_memory': num_sequences must be an integer >= 1; got 2\.5",
        ),
        ("adding", {"steps": 1}, r"Dataset 'adding': steps must be an integer >= 2; got 1\."),
        ("copy_memory", {"delay": 0}, r"Dataset 'copy_memory': delay must be an integer >= 1; got 0\."),
        ("copy_memory", {"delay": -3}, r"Dataset 'copy_memory': delay must be an integer >= 1; got -3\."),
    ],
)
def test_synthetic_options_out_of_range_are_named(name, options, message):
    with pytest.raises(ValueError, match=message):
        data.load_arrays(name, "valid", **options)


def test_the_public_generators_check_their_sizes_too():
    with pytest.raises(ValueError, match=r"Dataset 'copy_memory': delay must be an integer >= 1; got 0\."):
        synthetic.copy_memory(4, 0, seed=0)
    with pytest.raises(ValueError, match=r"Dataset 'copy_memory': length must be an integer >= 1; got 0\."):
        synthetic.copy_memory(4, 5, seed=0, length=0)
    with pytest.raises(ValueError, match=r"Dataset 'adding': steps must be an integer >= 2; got 1\."):
        synthetic.adding_problem(4, 1, seed=0)


@pytest.mark.parametrize("name", ["adding", "copy_memory"])
def test_synthetic_unknown_split_is_named(name):
    with pytest.raises(ValueError, match=rf"Dataset '{name}' has no split 'tarin'"):
        data.load_arrays(name, "tarin")


@pytest.fixture
def fake_mnist(tmp_path):
    rng = np.random.default_rng(0)
    np.savez(
        tmp_path / "mnist.npz",
        x_train=rng.integers(0, 256, (12, 28, 28), dtype="uint8"),
        y_train=rng.integers(0, 10, 12, dtype="uint8"),
        x_test=rng.integers(0, 256, (5, 28, 28), dtype="uint8"),
        y_test=rng.integers(0, 10, 5, dtype="uint8"),
    )
    return tmp_path


def test_sequential_and_permuted_mnist(fake_mnist, monkeypatch):
    monkeypatch.setattr(mnist, "SHA256", files.sha256(str(fake_mnist / "mnist.npz")))
    plain = data.load_arrays("seq_mnist", "train", data_dir=str(fake_mnist))
    permuted = data.load_arrays("permuted_mnist", "train", data_dir=str(fake_mnist))
    assert len(plain) == 12 and plain.inputs[0].shape == (784, 1)
    assert plain.inputs[0].max() <= 1.0
    order = np.random.default_rng(0).permutation(784)
    np.testing.assert_array_equal(permuted.inputs[3][:, 0], plain.inputs[3][order, 0])
    again = data.load_arrays("permuted_mnist", "train", data_dir=str(fake_mnist))
    np.testing.assert_array_equal(again.inputs[3], permuted.inputs[3])


def test_mnist_offline_error_names_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    monkeypatch.delenv(files.ENV_VAR, raising=False)
    monkeypatch.setattr(mnist, "URL", "http://127.0.0.1:9/mnist.npz")
    with pytest.raises(FileNotFoundError, match="mnist.npz"):
        data.load_arrays("seq_mnist", "test", data_dir=str(tmp_path))


def test_delayed_recall_labels_the_symbol_seen_delay_steps_before():
    x, y, w = synthetic.delayed_recall(16, steps=10, symbols=4, delay=3, seed=0)
    assert x.shape == (16, 10, 4) and y.shape == w.shape == (16, 10)
    symbols = x.argmax(-1)
    np.testing.assert_array_equal(y[:, 3:], symbols[:, :-3])
    np.testing.assert_array_equal(w[:, :3], 0.0)
    np.testing.assert_array_equal(w[:, 3:], 1.0)
    np.testing.assert_array_equal(x.sum(-1), 1.0)
    again, _, _ = synthetic.delayed_recall(16, steps=10, symbols=4, delay=3, seed=0)
    np.testing.assert_array_equal(x, again)
    with pytest.raises(ValueError, match="0 < delay < steps"):
        synthetic.delayed_recall(4, steps=3, symbols=4, delay=3, seed=0)
