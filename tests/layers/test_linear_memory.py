import keras
import numpy as np
import pytest
from keras.src import testing

from keras_seq.layers.linear_memory import LMN
from keras_seq.layers.linear_memory import LinearMemoryCell
from tests import support

WEIGHT_NAMES = [
    "kernel",
    "recurrent_kernel",
    "memory_kernel",
    "memory_recurrent_kernel",
    "bias",
    "memory_bias",
]


# ---------------------------------------------------------------------------
# Plain-numpy reference of the LMN paper's equations (eq. 3-4).
# ---------------------------------------------------------------------------
def reference_lmn(x, weights, m0=None):
    """Returns (h sequence, m sequence, final m) for x (batch, time, d)."""
    W_xh, W_mh, W_hm, W_mm, b_h = (weights[n] for n in WEIGHT_NAMES[:5])
    b_m = weights.get("memory_bias")
    batch, steps, _ = x.shape
    m = np.zeros((batch, W_mm.shape[0])) if m0 is None else m0
    hs, ms = [], []
    for t in range(steps):
        h = np.tanh(x[:, t] @ W_xh + m @ W_mh + b_h)  # functional
        m = h @ W_hm + m @ W_mm  # linear memory
        if b_m is not None:
            m = m + b_m
        hs.append(h)
        ms.append(m)
    return np.stack(hs, 1), np.stack(ms, 1), m


def random_weights(rng, d, units, memory_units, memory_bias=False, scale=0.5, dtype="float32"):
    shapes = {
        "kernel": (d, units),
        "recurrent_kernel": (memory_units, units),
        "memory_kernel": (units, memory_units),
        "memory_recurrent_kernel": (memory_units, memory_units),
        "bias": (units,),
    }
    if memory_bias:
        shapes["memory_bias"] = (memory_units,)
    weights = {n: rng.normal(size=s) * scale for n, s in shapes.items()}
    # Keep the linear memory stable: spectral radius of W_mm below one.
    w_mm = weights["memory_recurrent_kernel"]
    weights["memory_recurrent_kernel"] = 0.9 * w_mm / max(1.0, np.linalg.norm(w_mm, 2))
    return {n: w.astype(dtype) for n, w in weights.items()}


def set_weights(cell, weights):
    for name, value in weights.items():
        getattr(cell, name).assign(value)


SHAPES = [  # (batch, time, input_dim, units, memory_units)
    (1, 1, 1, 1, 1),
    (3, 5, 4, 6, 3),
    (2, 9, 7, 5, 12),
]


# ---------------------------------------------------------------------------
# Numerics
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("output", ["memory", "functional"])
def test_lmn_matches_numpy_reference(rng, shape, output):
    batch, steps, d, units, memory_units = shape
    x = rng.normal(size=(batch, steps, d)).astype("float32")
    memory_bias = output == "memory"
    weights = random_weights(rng, d, units, memory_units, memory_bias=memory_bias)

    layer = LMN(
        units,
        memory_units,
        output=output,
        use_memory_bias=memory_bias,
        return_sequences=True,
        return_state=True,
    )
    layer.build(x.shape)
    set_weights(layer.cell, weights)
    outputs, m = layer(x)
    ref_h, ref_m, ref_last = reference_lmn(x.astype("float64"), weights)
    expected = ref_m if output == "memory" else ref_h
    np.testing.assert_allclose(keras.ops.convert_to_numpy(outputs), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(m), ref_last, rtol=1e-5, atol=1e-5)

    # Same weights through a bare keras.layers.RNN.
    cell = LinearMemoryCell(units, memory_units, output=output, use_memory_bias=memory_bias)
    rnn = keras.layers.RNN(cell, return_sequences=True)
    rnn.build(x.shape)
    set_weights(cell, weights)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(rnn(x)), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("output", ["memory", "functional"])
def test_initial_state_is_the_memory(rng, output):
    x = rng.normal(size=(2, 4, 3)).astype("float32")
    m0 = rng.normal(size=(2, 5)).astype("float32")
    weights = random_weights(rng, 3, 4, 5)
    layer = LMN(4, 5, output=output, return_sequences=True, return_state=True)
    layer.build(x.shape)
    set_weights(layer.cell, weights)
    outputs, m = layer(x, initial_state=m0)
    ref_h, ref_m, ref_last = reference_lmn(x.astype("float64"), weights, m0=m0.astype("float64"))
    expected = ref_m if output == "memory" else ref_h
    np.testing.assert_allclose(keras.ops.convert_to_numpy(outputs), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(m), ref_last, rtol=1e-5, atol=1e-5)
    # The list form is accepted too.
    again, _ = layer(x, initial_state=[m0])
    np.testing.assert_allclose(keras.ops.convert_to_numpy(again), keras.ops.convert_to_numpy(outputs))


@pytest.mark.parametrize("output", ["memory", "functional"])
def test_gradient_matches_finite_differences(rng, output):
    with support.float64():
        _check_gradient(rng, output)


def _tanh_float64(z):
    # keras.ops.tanh computes float64 in float32 on JAX (Keras' type
    # promotion maps float64 to float32 there); sigmoid keeps float64.
    return 2.0 * keras.ops.sigmoid(2.0 * z) - 1.0


def _check_gradient(rng, output):
    batch, steps, d, units, memory_units = 2, 4, 3, 3, 4
    x = rng.normal(size=(batch, steps, d))
    # A linear loss keeps its value small, so central differences stay exact.
    coefficients = rng.normal(size=(batch, steps, memory_units if output == "memory" else units))
    weights = random_weights(rng, d, units, memory_units, memory_bias=True, scale=0.7, dtype="float64")

    layer = LMN(
        units,
        memory_units,
        output=output,
        use_memory_bias=True,
        return_sequences=True,
        dtype="float64",
        activation=_tanh_float64,
    )
    layer.build(x.shape)
    set_weights(layer.cell, weights)

    def keras_loss(outputs):
        return keras.ops.sum(outputs * keras.ops.convert_to_tensor(coefficients))

    autodiff = support.gradients(layer, keras_loss, x)

    def numpy_loss(arrays):
        h, m, _ = reference_lmn(x, dict(zip(WEIGHT_NAMES, arrays)))
        out = m if output == "memory" else h
        return (out * coefficients).sum()

    support.assert_gradients_match_finite_differences(layer, autodiff, numpy_loss, weights, WEIGHT_NAMES)


def test_lmn_b_memory_is_linear_in_h(rng):
    """With W_mh = 0 the memory is a linear filter of h_t = tanh(x W + b)."""
    x = rng.normal(size=(3, 6, 4)).astype("float32")
    weights = random_weights(rng, 4, 5, 7)
    weights["recurrent_kernel"][:] = 0.0
    layer = LMN(5, 7, return_sequences=True)
    layer.build(x.shape)
    set_weights(layer.cell, weights)
    m1 = keras.ops.convert_to_numpy(layer(x))
    h = np.tanh(x @ weights["kernel"] + weights["bias"])
    m = np.zeros((3, 7))
    for t in range(6):
        m = h[:, t] @ weights["memory_kernel"] + m @ weights["memory_recurrent_kernel"]
        np.testing.assert_allclose(m1[:, t], m, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------
# Keras integration
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("output", ["memory", "functional"])
@pytest.mark.parametrize("use_memory_bias", [False, True])
def test_parameter_count_and_sizes(output, use_memory_bias):
    d, units, memory_units = 3, 4, 6
    rnn = keras.layers.RNN(LinearMemoryCell(units, memory_units, output=output, use_memory_bias=use_memory_bias))
    rnn.build((None, None, d))
    expected = units * (d + memory_units + 1) + memory_units * (units + memory_units)
    assert rnn.count_params() == expected + use_memory_bias * memory_units
    names = WEIGHT_NAMES if use_memory_bias else WEIGHT_NAMES[:5]
    assert sorted(w.path.split("/")[-1] for w in rnn.weights) == sorted(names)
    cell = rnn.cell
    if output == "memory":
        assert cell.output_size == memory_units and cell.state_size == [memory_units]
    else:
        assert cell.output_size == units and cell.state_size == [units, memory_units]


class LinearMemoryLayerTest(testing.TestCase):
    def test_rnn_cell_harness(self):
        self.run_layer_test(
            keras.layers.RNN,
            init_kwargs={"cell": LinearMemoryCell(5, 3, seed=1), "return_sequences": True},
            input_shape=(2, 4, 6),
            expected_output_shape=(2, 4, 3),
            expected_num_trainable_weights=5,
            expected_num_non_trainable_weights=0,
            supports_masking=True,
        )

    def test_rnn_cell_harness_functional_with_dropout(self):
        self.run_layer_test(
            keras.layers.RNN,
            init_kwargs={
                "cell": LinearMemoryCell(5, 3, output="functional", dropout=0.2, recurrent_dropout=0.3, seed=7),
            },
            input_shape=(2, 4, 6),
            expected_output_shape=(2, 5),
            expected_num_trainable_weights=5,
            expected_num_seed_generators=1,
            supports_masking=True,
        )

    def test_lmn_harness(self):
        self.run_layer_test(
            LMN,
            init_kwargs={"units": 4, "memory_units": 3, "use_memory_bias": True, "return_sequences": True},
            input_shape=(3, 5, 2),
            expected_output_shape=(3, 5, 3),
            expected_num_trainable_weights=6,
            expected_num_non_trainable_weights=0,
            supports_masking=True,
        )

    def test_lmn_harness_with_dropout(self):
        self.run_layer_test(
            LMN,
            init_kwargs={
                "units": 4,
                "memory_units": 3,
                "output": "functional",
                "dropout": 0.1,
                "recurrent_dropout": 0.2,
                "seed": 3,
            },
            input_shape=(3, 5, 2),
            expected_output_shape=(3, 4),
            expected_num_trainable_weights=5,
            expected_num_seed_generators=1,
            supports_masking=True,
        )


def _sequence_data(rng, n=48, steps=10, vocab=12):
    """Token ids with trailing zero padding; the target is the token mod 3."""
    lengths = rng.integers(3, steps + 1, size=n)
    tokens = np.zeros((n, steps), dtype="int32")
    for i, length in enumerate(lengths):
        tokens[i, :length] = rng.integers(1, vocab, size=length)
    return tokens, tokens % 3


def test_drop_in_sequential_with_mask_fit_save_reload(rng, tmp_path):
    """LMN-A under a mask: the mode whose output is not its state."""
    tokens, labels = _sequence_data(rng, n=32)
    model = keras.Sequential(
        [
            keras.Input((tokens.shape[1],), dtype="int32"),
            keras.layers.Embedding(12, 8, mask_zero=True),
            keras.layers.RNN(
                LinearMemoryCell(12, 6, output="functional", dropout=0.1, recurrent_dropout=0.1, seed=2),
                return_sequences=True,
            ),
            keras.layers.Dense(3, activation="softmax"),
        ]
    )
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="sparse_categorical_crossentropy")
    history = model.fit(tokens, labels, epochs=3, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]

    predictions = model.predict(tokens, verbose=0)
    pad = tokens == 0
    shuffled_pad = labels.copy()
    shuffled_pad[pad] = (shuffled_pad[pad] + 1) % 3
    assert np.isclose(
        model.evaluate(tokens, labels, verbose=0),
        model.evaluate(tokens, shuffled_pad, verbose=0),
        rtol=1e-6,
    )
    longer = np.pad(tokens, ((0, 0), (0, 3)))
    longer_predictions = keras.Sequential(model.layers).predict(longer, verbose=0)
    valid = ~pad
    np.testing.assert_allclose(longer_predictions[:, :10][valid], predictions[valid], rtol=1e-5, atol=1e-6)

    path = str(tmp_path / "lmn.keras")
    model.save(path)
    reloaded = keras.saving.load_model(path)  # no custom_objects
    np.testing.assert_allclose(reloaded.predict(tokens, verbose=0), predictions, rtol=1e-6, atol=1e-6)
    assert isinstance(reloaded.layers[1].cell, LinearMemoryCell)


def test_lmn_b_masked_save_reload(rng, tmp_path):
    """LMN-B (memory output) as a layer: masked steps keep the memory."""
    x = rng.normal(size=(4, 7, 5)).astype("float32")
    mask = np.arange(7)[None, :] < np.array([7, 5, 3, 6])[:, None]
    x[~mask] = 0.0
    model = keras.Sequential(
        [
            keras.Input((None, 5)),
            keras.layers.Masking(0.0),
            LMN(6, 9, use_memory_bias=True, return_sequences=True, kernel_regularizer="l2"),
            keras.layers.Dense(5, activation="sigmoid"),
        ]
    )
    predictions = model.predict(x, verbose=0)
    # A masked step repeats the previous output (the memory is kept).
    np.testing.assert_allclose(predictions[1, 5:], predictions[1, [4, 4]], rtol=1e-6)
    path = str(tmp_path / "lmn_layer.keras")
    model.save(path)
    reloaded = keras.saving.load_model(path)
    np.testing.assert_allclose(reloaded.predict(x, verbose=0), predictions, rtol=1e-6, atol=1e-6)
    assert isinstance(reloaded.layers[1], LMN)


def test_dropout_is_random_in_training_and_off_in_inference(rng):
    x = rng.normal(size=(2, 4, 5)).astype("float32")
    layer = LMN(8, 6, output="functional", dropout=0.5, recurrent_dropout=0.5, seed=11)
    a = keras.ops.convert_to_numpy(layer(x, training=True))
    b = keras.ops.convert_to_numpy(layer(x, training=True))
    assert np.abs(a - b).max() > 1e-4
    c = keras.ops.convert_to_numpy(layer(x, training=False))
    d = keras.ops.convert_to_numpy(layer(x))
    np.testing.assert_allclose(c, d)


def test_config_round_trip():
    layer = LMN(
        7,
        4,
        output="functional",
        use_memory_bias=True,
        activation="relu",
        dropout=0.1,
        recurrent_dropout=0.2,
        seed=3,
        memory_regularizer="l2",
        memory_recurrent_initializer="identity",
        go_backwards=True,
    )
    config = layer.get_config()
    assert config["output"] == "functional" and config["memory_units"] == 4
    clone = LMN.from_config(config)
    assert clone.get_config() == config
    cell = LinearMemoryCell(5, 2, memory_bias_constraint="non_neg", recurrent_initializer="zeros")
    assert LinearMemoryCell.from_config(cell.get_config()).get_config() == cell.get_config()


# ---------------------------------------------------------------------------
# Errors that name the problem
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"units": 0, "memory_units": 3}, "units"),
        ({"units": 4, "memory_units": -1}, "memory_units"),
        ({"units": 4.5, "memory_units": 3}, "units"),
        ({"units": 4, "memory_units": 3, "output": "hidden"}, "output"),
        ({"units": 4, "memory_units": 3, "dropout": 1.5}, "dropout"),
        ({"units": 4, "memory_units": 3, "recurrent_dropout": -0.1}, "recurrent_dropout"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        LinearMemoryCell(**kwargs)
    with pytest.raises(ValueError, match=match):
        LMN(**kwargs)


def test_wrong_rank_input():
    with pytest.raises(ValueError, match="rank 3"):
        LMN(4, 3)(np.zeros((2, 5), "float32"))
    with pytest.raises(ValueError, match="rank 3"):
        keras.layers.RNN(LinearMemoryCell(4, 3))(np.zeros((2, 5, 3, 1), "float32"))


def test_bad_initial_state(rng):
    x = rng.normal(size=(2, 5, 3)).astype("float32")
    layer = LMN(4, 6, output="functional")
    with pytest.raises(ValueError, match="memory_units"):
        layer(x, initial_state=np.zeros((2, 4), "float32"))
    with pytest.raises(ValueError, match="one initial state"):
        layer(x, initial_state=[np.zeros((2, 4), "float32"), np.zeros((2, 6), "float32")])
