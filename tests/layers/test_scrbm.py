import contextlib
import functools

import keras
import numpy as np
import pytest
from keras.src import testing

from keras_seq.layers import SCRBM
from keras_seq.layers import SCRBMCell
from tests import support

WEIGHT_NAMES = ["kernel", "recurrent_kernel", "label_kernel", "bias", "label_bias"]


# ---------------------------------------------------------------------------
# Plain-numpy reference of the SCRBM paper's equations.
# ---------------------------------------------------------------------------
def np_softplus(z):
    return np.logaddexp(0.0, z)


def np_softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def reference_scrbm(x, weights, labels=None, h0=None):
    """Returns (logits, probabilities, final h) for x (batch, time, d).

    labels: None (Algorithm 1) or one-hot (batch, time, K) (teacher forcing).
    """
    W, W_hh, U, c, b = (weights[name] for name in WEIGHT_NAMES)
    batch, steps, _ = x.shape
    h = np.zeros((batch, W.shape[1])) if h0 is None else h0
    all_logits, all_probs = [], []
    for t in range(steps):
        a = x[:, t] @ W + h @ W_hh + c  # shared pre-activation
        free_energy = np.empty((batch, U.shape[0]))
        for y in range(U.shape[0]):  # eq. 7, one class at a time on purpose
            free_energy[:, y] = -b[y] - np_softplus(a + U[y]).sum(axis=-1)
        logits = -free_energy
        p = np_softmax(logits)  # eq. 6
        e = p if labels is None else labels[:, t]
        h = 1.0 / (1.0 + np.exp(-(a + e @ U)))  # eq. 5 / Algorithm 1
        all_logits.append(logits)
        all_probs.append(p)
    return np.stack(all_logits, 1), np.stack(all_probs, 1), h


def random_weights(rng, d, units, k, scale=0.5, dtype="float32"):
    shapes = {
        "kernel": (d, units),
        "recurrent_kernel": (units, units),
        "label_kernel": (k, units),
        "bias": (units,),
        "label_bias": (k,),
    }
    return {n: (rng.normal(size=s) * scale).astype(dtype) for n, s in shapes.items()}


def set_weights(cell, weights):
    for name in WEIGHT_NAMES:
        getattr(cell, name).assign(weights[name])


def one_hot(ids, k):
    return np.eye(k, dtype="float32")[ids]


SHAPES = [  # (batch, time, input_dim, units, num_classes)
    (1, 1, 1, 1, 2),
    (3, 5, 4, 6, 3),
    (4, 9, 7, 16, 10),
    (2, 12, 26, 32, 26),
]


# ---------------------------------------------------------------------------
# Numerics
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("mode", ["inference", "teacher_forcing"])
def test_scrbm_matches_numpy_reference(rng, shape, mode):
    batch, steps, d, units, k = shape
    x = rng.normal(size=(batch, steps, d)).astype("float32")
    ids = rng.integers(0, k, size=(batch, steps))
    weights = random_weights(rng, d, units, k)
    labels = one_hot(ids, k) if mode == "teacher_forcing" else None

    layer = SCRBM(units, k, return_state=True)
    layer.build(x.shape)
    set_weights(layer.cell, weights)
    probs, h = layer(x, labels=None if labels is None else ids)
    ref_logits, ref_probs, ref_h = reference_scrbm(x.astype("float64"), weights, None if labels is None else labels)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(probs), ref_probs, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(h), ref_h, rtol=1e-5, atol=1e-6)

    # Same weights through a bare keras.layers.RNN, logits out, labels
    # concatenated after the features (the documented convention).
    cell = SCRBMCell(units, k, return_logits=True, teacher_forcing=labels is not None)
    rnn = keras.layers.RNN(cell, return_sequences=True)
    inputs = x if labels is None else np.concatenate([x, labels], axis=-1)
    rnn.build(inputs.shape)
    set_weights(cell, weights)
    logits = keras.ops.convert_to_numpy(rnn(inputs))
    np.testing.assert_allclose(logits, ref_logits, rtol=1e-5, atol=1e-5)


def test_initial_state_is_used(rng):
    x = rng.normal(size=(2, 4, 3)).astype("float32")
    h0 = rng.uniform(size=(2, 5)).astype("float32")
    weights = random_weights(rng, 3, 5, 4)
    layer = SCRBM(5, 4)
    layer.build(x.shape)
    set_weights(layer.cell, weights)
    probs = keras.ops.convert_to_numpy(layer(x, initial_state=h0))
    _, ref_probs, _ = reference_scrbm(x.astype("float64"), weights, h0=h0.astype("float64"))
    np.testing.assert_allclose(probs, ref_probs, rtol=1e-5, atol=1e-6)


def test_free_energy_is_stable_for_large_activations(rng):
    x = (rng.normal(size=(2, 3, 4)) * 1e3).astype("float32")
    layer = SCRBM(8, 3, return_logits=True)
    logits = keras.ops.convert_to_numpy(layer(x))
    probs = keras.ops.convert_to_numpy(SCRBM(8, 3)(x))
    assert np.all(np.isfinite(logits)) and np.all(np.isfinite(probs))
    np.testing.assert_allclose(probs.sum(-1), 1.0, rtol=1e-5)


@pytest.mark.parametrize("mode", ["inference", "teacher_forcing"])
def test_gradient_matches_finite_differences(rng, mode):
    """Gradient of the eq. 12 loss, -sum_t log p(y_t | x_t, h_{t-1})."""
    with support.float64():
        _check_gradient(rng, mode)


def _check_gradient(rng, mode):
    batch, steps, d, units, k = 2, 4, 3, 4, 3
    x = rng.normal(size=(batch, steps, d))
    ids = rng.integers(0, k, size=(batch, steps))
    targets = one_hot(ids, k).astype("float64")
    weights = random_weights(rng, d, units, k, scale=0.7, dtype="float64")
    teacher = targets if mode == "teacher_forcing" else None

    layer = SCRBM(units, k, return_logits=True, dtype="float64")
    layer.build(x.shape)
    set_weights(layer.cell, weights)

    def keras_loss(logits):
        log_p = keras.ops.log_softmax(logits, axis=-1)
        return -keras.ops.sum(log_p * keras.ops.convert_to_tensor(targets))

    label_kwargs = {} if teacher is None else {"labels": ids}
    autodiff = support.gradients(layer, keras_loss, x, **label_kwargs)

    def numpy_loss(arrays):
        logits, _, _ = reference_scrbm(x, dict(zip(WEIGHT_NAMES, arrays)), teacher)
        z = logits - logits.max(-1, keepdims=True)
        log_p = z - np.log(np.exp(z).sum(-1, keepdims=True))
        return -(log_p * targets).sum()

    support.assert_gradients_match_finite_differences(layer, autodiff, numpy_loss, weights, WEIGHT_NAMES)


def test_teacher_forcing_changes_the_state_and_shares_weights(rng):
    x = rng.normal(size=(3, 6, 4)).astype("float32")
    ids = rng.integers(0, 5, size=(3, 6))
    layer = SCRBM(8, 5)
    free = keras.ops.convert_to_numpy(layer(x))
    forced = keras.ops.convert_to_numpy(layer(x, labels=ids))
    forced_onehot = keras.ops.convert_to_numpy(layer(x, labels=one_hot(ids, 5)))
    assert len(layer.weights) == 5
    # The first step sees h_0 in both modes; later steps differ.
    np.testing.assert_allclose(free[:, 0], forced[:, 0], rtol=1e-6)
    assert np.abs(free[:, 1:] - forced[:, 1:]).max() > 1e-4
    np.testing.assert_allclose(forced, forced_onehot, rtol=1e-6)


# ---------------------------------------------------------------------------
# Keras integration
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("units,k,d", [(6, 3, 4), (1, 2, 1)])
def test_parameter_count(units, k, d):
    rnn = keras.layers.RNN(SCRBMCell(units, k))
    rnn.build((None, None, d))
    assert rnn.count_params() == units * (d + units + 1) + k * (units + 1)
    assert rnn.cell.output_size == k and rnn.cell.state_size == [k, units]
    assert sorted(w.path.split("/")[-1] for w in rnn.weights) == sorted(WEIGHT_NAMES)


class SCRBMLayerTest(testing.TestCase):
    def test_rnn_cell_harness(self):
        self.run_layer_test(
            keras.layers.RNN,
            init_kwargs={"cell": SCRBMCell(5, 3, seed=1), "return_sequences": True},
            input_shape=(2, 4, 6),
            expected_output_shape=(2, 4, 3),
            expected_num_trainable_weights=5,
            expected_num_non_trainable_weights=0,
            supports_masking=True,
        )

    def test_rnn_cell_harness_with_dropout(self):
        self.run_layer_test(
            keras.layers.RNN,
            init_kwargs={
                "cell": SCRBMCell(5, 3, dropout=0.2, recurrent_dropout=0.3, seed=7),
            },
            input_shape=(2, 4, 6),
            expected_output_shape=(2, 3),
            expected_num_trainable_weights=5,
            expected_num_seed_generators=1,
            supports_masking=True,
        )

    def test_scrbm_harness(self):
        self.run_layer_test(
            SCRBM,
            init_kwargs={"units": 4, "num_classes": 3, "return_logits": True},
            input_shape=(3, 5, 2),
            expected_output_shape=(3, 5, 3),
            expected_num_trainable_weights=5,
            expected_num_non_trainable_weights=0,
            supports_masking=True,
        )

    def test_scrbm_harness_with_labels(self):
        self.run_layer_test(
            SCRBM,
            init_kwargs={"units": 4, "num_classes": 3, "dropout": 0.1, "seed": 3},
            input_data=np.random.rand(3, 5, 2).astype("float32"),
            call_kwargs={"labels": one_hot(np.random.randint(0, 3, (3, 5)), 3)},
            expected_output_shape=(3, 5, 3),
            expected_num_trainable_weights=5,
            expected_num_seed_generators=1,
            supports_masking=True,
        )


def _sequence_labelling_data(rng, n=48, steps=10, vocab=12, k=4):
    """Token ids with trailing zero padding; the class is the token mod k."""
    lengths = rng.integers(3, steps + 1, size=n)
    tokens = np.zeros((n, steps), dtype="int32")
    for i, length in enumerate(lengths):
        tokens[i, :length] = rng.integers(1, vocab, size=length)
    return tokens, tokens % k, lengths


def test_drop_in_sequential_with_mask_fit_save_reload(rng, tmp_path):
    tokens, labels, lengths = _sequence_labelling_data(rng)
    model = keras.Sequential(
        [
            keras.Input((tokens.shape[1],), dtype="int32"),
            keras.layers.Embedding(12, 8, mask_zero=True),
            keras.layers.RNN(SCRBMCell(16, 4, dropout=0.1, seed=2), return_sequences=True),
        ]
    )
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="sparse_categorical_crossentropy")
    history = model.fit(tokens, labels, epochs=8, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]

    # The mask: padding content cannot change what the model says about the
    # real steps, and padded targets do not count in the loss.
    predictions = model.predict(tokens, verbose=0)
    shuffled_pad = labels.copy()
    pad = tokens == 0
    shuffled_pad[pad] = (shuffled_pad[pad] + 1) % 4
    assert np.isclose(
        model.evaluate(tokens, labels, verbose=0),
        model.evaluate(tokens, shuffled_pad, verbose=0),
        rtol=1e-6,
    )
    longer = np.pad(tokens, ((0, 0), (0, 3)))
    longer_model = keras.Sequential(model.layers)
    longer_predictions = longer_model.predict(longer, verbose=0)
    valid = ~pad
    np.testing.assert_allclose(longer_predictions[:, :10][valid], predictions[valid], rtol=1e-5, atol=1e-6)

    path = str(tmp_path / "scrbm.keras")
    model.save(path)
    reloaded = keras.saving.load_model(path)  # no custom_objects
    np.testing.assert_allclose(reloaded.predict(tokens, verbose=0), predictions, rtol=1e-6, atol=1e-6)
    assert isinstance(reloaded.layers[1].cell, SCRBMCell)


def test_train_with_labels_then_predict_without(rng, tmp_path):
    """The paper's protocol: teacher forcing to learn, Algorithm 1 to label."""
    tokens, labels, _ = _sequence_labelling_data(rng, n=64)
    x = keras.Input((None,), dtype="int32")
    y = keras.Input((None,), dtype="int32")
    embedded = keras.layers.Embedding(12, 8, mask_zero=True)(x)
    scrbm = SCRBM(16, 4, return_logits=True)
    trainer = keras.Model([x, y], scrbm(embedded, labels=y))
    predictor = keras.Model(x, scrbm(embedded))
    trainer.compile(
        optimizer=keras.optimizers.Adam(0.05),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    trainer.fit([tokens, labels], labels, epochs=15, batch_size=16, verbose=0)
    predicted = np.argmax(predictor.predict(tokens, verbose=0), -1)
    valid = tokens != 0
    assert (predicted[valid] == labels[valid]).mean() > 0.9

    path = str(tmp_path / "trainer.keras")
    trainer.save(path)
    reloaded = keras.saving.load_model(path)
    np.testing.assert_allclose(
        reloaded.predict([tokens, labels], verbose=0),
        trainer.predict([tokens, labels], verbose=0),
        rtol=1e-5,
        atol=1e-6,
    )


def test_fit_with_xla_and_dropout(rng):
    """XLA on TensorFlow and JAX; PyTorch has no XLA here and runs eagerly."""
    tokens, labels, _ = _sequence_labelling_data(rng, n=32)
    model = keras.Sequential(
        [
            keras.Input((10,), dtype="int32"),
            keras.layers.Embedding(12, 8),
            SCRBM(8, 4, dropout=0.2, recurrent_dropout=0.2, seed=5),
        ]
    )
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", jit_compile=support.backend_has_xla())
    history = model.fit(tokens, labels, epochs=2, batch_size=16, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))


def test_dropout_is_random_in_training_and_off_in_inference(rng):
    x = rng.normal(size=(4, 6, 5)).astype("float32")
    layer = SCRBM(8, 3, dropout=0.5, recurrent_dropout=0.5, seed=11)
    a = keras.ops.convert_to_numpy(layer(x, training=True))
    b = keras.ops.convert_to_numpy(layer(x, training=True))
    assert np.abs(a - b).max() > 1e-4
    c = keras.ops.convert_to_numpy(layer(x, training=False))
    d = keras.ops.convert_to_numpy(layer(x))
    np.testing.assert_allclose(c, d)


def test_config_round_trip():
    layer = SCRBM(
        7,
        4,
        return_logits=True,
        dropout=0.1,
        recurrent_dropout=0.2,
        seed=3,
        kernel_regularizer="l2",
        label_initializer="he_normal",
        go_backwards=True,
    )
    clone = SCRBM.from_config(layer.get_config())
    assert clone.get_config() == layer.get_config()
    cell = SCRBMCell(5, 2, teacher_forcing=True, bias_constraint="non_neg")
    assert SCRBMCell.from_config(cell.get_config()).get_config() == cell.get_config()


# ---------------------------------------------------------------------------
# Errors that name the problem
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"units": 0, "num_classes": 3}, "units"),
        ({"units": -2, "num_classes": 3}, "units"),
        ({"units": 4, "num_classes": 1}, "num_classes"),
        ({"units": 4.5, "num_classes": 3}, "units"),
        ({"units": 4, "num_classes": 3, "dropout": 1.5}, "dropout"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SCRBMCell(**kwargs)
    with pytest.raises(ValueError, match=match):
        SCRBM(**kwargs)


def test_wrong_rank_input():
    with pytest.raises(ValueError, match="rank 3"):
        SCRBM(4, 3)(np.zeros((2, 5), "float32"))
    with pytest.raises(ValueError, match="rank 3"):
        keras.layers.RNN(SCRBMCell(4, 3))(np.zeros((2, 5, 3, 1), "float32"))


def test_bad_labels(rng):
    x = rng.normal(size=(2, 5, 3)).astype("float32")
    layer = SCRBM(4, 3)
    with pytest.raises(ValueError, match="depth num_classes=3"):
        layer(x, labels=np.zeros((2, 5, 4), "float32"))
    with pytest.raises(ValueError, match="batch size"):
        layer(x, labels=np.zeros((3, 5), "int32"))
    with pytest.raises(ValueError, match="number of time steps"):
        layer(x, labels=np.zeros((2, 4), "int32"))
    with pytest.raises(ValueError, match=r"\[0, 2\]"):
        layer(x, labels=np.full((2, 5), 3, "int32"))
    with pytest.raises(ValueError, match="rank|shape"):
        layer(x, labels=np.zeros((2,), "int32"))


def test_integer_inputs_keep_soft_labels(rng):
    """Labels are read in the layer's compute dtype, not the inputs' (integer
    features once cast soft labels of 1/3 to 0)."""
    x = rng.integers(0, 3, size=(2, 5, 3)).astype("int32")
    soft = np.full((2, 5, 3), 1 / 3, "float32")
    one_hot = np.eye(3, dtype="float32")[np.zeros((2, 5), "int32")]
    layer = SCRBM(4, 3)
    from_ints = keras.ops.convert_to_numpy(layer(x, labels=soft))
    np.testing.assert_allclose(
        from_ints, keras.ops.convert_to_numpy(layer(x.astype("float32"), labels=soft)), rtol=1e-6, atol=1e-7
    )
    assert np.abs(from_ints - keras.ops.convert_to_numpy(layer(x, labels=one_hot))).max() > 1e-4


def test_teacher_forcing_cell_needs_label_columns():
    cell = SCRBMCell(4, 3, teacher_forcing=True)
    with pytest.raises(ValueError, match="num_classes=3 one-hot label columns"):
        keras.layers.RNN(cell)(np.zeros((2, 5, 3), "float32"))


def test_step_of_unexpected_width():
    cell = SCRBMCell(4, 3)
    cell.build((None, 5))
    with pytest.raises(ValueError, match="got 6"):
        cell(np.zeros((2, 6), "float32"), cell.get_initial_state(2))


def test_masked_steps_keep_the_state(rng):
    """With a mask, the final state is the state after the last real step."""
    x = rng.normal(size=(3, 7, 4)).astype("float32")
    lengths = np.array([7, 4, 1])
    mask = np.arange(7) < lengths[:, None]
    weights = random_weights(rng, 4, 5, 3)
    layer = SCRBM(5, 3, return_state=True)
    layer.build(x.shape)
    set_weights(layer.cell, weights)
    probs, h = layer(x, mask=mask)
    probs, h = keras.ops.convert_to_numpy(probs), keras.ops.convert_to_numpy(h)
    for i, length in enumerate(lengths):
        _, ref_probs, ref_h = reference_scrbm(x[i : i + 1, :length].astype("float64"), weights)
        np.testing.assert_allclose(h[i], ref_h[0], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(probs[i, :length], ref_probs[0], rtol=1e-5, atol=1e-6)


def test_initial_state_of_wrong_shape(rng):
    x = rng.normal(size=(2, 4, 3)).astype("float32")
    with pytest.raises(ValueError, match=r"initial_state must have shape \(batch, units\)"):
        SCRBM(5, 3)(x, initial_state=np.zeros((2, 4), "float32"))


# ---------------------------------------------------------------------------
# The fast sequence path (SCRBM) against the plain cell in keras.layers.RNN
# ---------------------------------------------------------------------------
def _padding_mask(batch, steps):
    """Trailing padding, a row with leading padding and a row with none."""
    mask = np.ones((batch, steps), dtype=bool)
    mask[0, steps - 2 :] = False
    mask[1, :2] = False
    mask[1, 4] = False
    if batch > 3:
        mask[3] = False  # nothing to read at all
    return mask


def _twin_layers(rng, units, k, d, teacher_forcing, batch=None, **options):
    """An SCRBM and a bare keras.layers.RNN over an SCRBMCell, same weights."""
    cell_options = {
        name: options.pop(name)
        for name in ("return_logits", "dropout", "recurrent_dropout", "seed", "dtype")
        if name in options
    }
    weights = random_weights(rng, d, units, k)
    fast = SCRBM(units, k, return_state=True, **cell_options, **options)
    fast.build((batch, None, d))
    set_weights(fast.cell, weights)
    cell = SCRBMCell(units, k, teacher_forcing=teacher_forcing, **cell_options)
    plain = keras.layers.RNN(
        cell,
        return_state=True,
        dtype=cell_options.get("dtype"),
        return_sequences=options.get("return_sequences", True),
        **{name: value for name, value in options.items() if name != "return_sequences"},
    )
    plain.build((batch, None, d + (k if teacher_forcing else 0)))
    set_weights(cell, weights)
    return fast, plain


def _twin_calls(fast, plain, x, ids, k, mask, **kwargs):
    """Outputs and final h of both layers, as numpy."""
    if ids is None:
        fast_out, fast_h = fast(x, mask=mask, **kwargs)
        plain_out, _, plain_h = plain(x, mask=mask, **kwargs)
    else:
        fast_out, fast_h = fast(x, labels=ids, mask=mask, **kwargs)
        inputs = np.concatenate([x, one_hot(ids, k)], axis=-1)
        plain_out, _, plain_h = plain(inputs, mask=mask, **kwargs)
    return [keras.ops.convert_to_numpy(t) for t in (fast_out, fast_h, plain_out, plain_h)]


PATH_OPTIONS = [
    {},
    {"return_logits": True},
    {"go_backwards": True},
    {"return_sequences": False},
    {"zero_output_for_mask": True},
    {"zero_output_for_mask": True, "return_sequences": False, "go_backwards": True},
    {"unroll": True},
    {"dropout": 0.3, "recurrent_dropout": 0.2, "seed": 4},  # inference: no dropout
]


@pytest.mark.parametrize("mode", ["inference", "teacher_forcing"])
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("options", PATH_OPTIONS, ids=lambda o: ",".join(o) or "default")
def test_fast_path_matches_cell_in_rnn(rng, mode, masked, options):
    batch, steps, d, units, k = 4, 7, 5, 8, 3
    x = rng.normal(size=(batch, steps, d)).astype("float32")
    ids = rng.integers(0, k, size=(batch, steps)) if mode == "teacher_forcing" else None
    mask = _padding_mask(batch, steps) if masked else None
    fast, plain = _twin_layers(rng, units, k, d, ids is not None, **dict(options))
    fast_out, fast_h, plain_out, plain_h = _twin_calls(fast, plain, x, ids, k, mask)
    np.testing.assert_allclose(fast_out, plain_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fast_h, plain_h, rtol=1e-5, atol=1e-6)

    # Gradients of a loss on the outputs, for every weight.
    targets = keras.ops.convert_to_tensor(rng.normal(size=fast_out.shape).astype("float32"))

    def loss(outputs):
        return keras.ops.sum(outputs[0] * targets) + keras.ops.sum(outputs[-1])

    fast_kwargs = {} if mask is None else {"mask": mask}
    plain_kwargs = dict(fast_kwargs)
    plain_x = x
    if ids is not None:
        fast_kwargs["labels"] = ids
        plain_x = np.concatenate([x, one_hot(ids, k)], axis=-1)
    fast_grads = support.gradients(fast, loss, x, **fast_kwargs)
    plain_grads = support.gradients(plain, loss, plain_x, **plain_kwargs)
    for variable, a, b in zip(fast.trainable_variables, fast_grads, plain_grads):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5, err_msg=variable.path)


@pytest.mark.parametrize("mode", ["inference", "teacher_forcing"])
def test_fast_path_draws_the_cells_dropout_masks(rng, mode):
    """Same seed, same masks: training outputs agree too."""
    batch, steps, d, units, k = 3, 6, 4, 5, 3
    x = rng.normal(size=(batch, steps, d)).astype("float32")
    ids = rng.integers(0, k, size=(batch, steps)) if mode == "teacher_forcing" else None
    fast, plain = _twin_layers(rng, units, k, d, ids is not None, dropout=0.4, recurrent_dropout=0.3, seed=9)
    fast_out, fast_h, plain_out, plain_h = _twin_calls(
        fast, plain, x, ids, k, _padding_mask(batch, steps), training=True
    )
    np.testing.assert_allclose(fast_out, plain_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fast_h, plain_h, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ["inference", "teacher_forcing"])
def test_fast_path_stateful_matches_cell_in_rnn(rng, mode):
    batch, steps, d, units, k = 4, 5, 3, 6, 4
    fast, plain = _twin_layers(rng, units, k, d, mode == "teacher_forcing", batch=batch, stateful=True)
    for call in range(2):
        x = rng.normal(size=(batch, steps, d)).astype("float32")
        ids = rng.integers(0, k, size=(batch, steps)) if mode == "teacher_forcing" else None
        mask = _padding_mask(batch, steps)  # leading padding repeats the carried output
        fast_out, fast_h, plain_out, plain_h = _twin_calls(fast, plain, x, ids, k, mask)
        np.testing.assert_allclose(fast_out, plain_out, rtol=1e-5, atol=1e-6, err_msg=str(call))
        np.testing.assert_allclose(fast_h, plain_h, rtol=1e-5, atol=1e-6, err_msg=str(call))


@pytest.mark.parametrize("mode", ["inference", "teacher_forcing"])
def test_fast_path_mixed_precision(rng, mode):
    batch, steps, d, units, k = 3, 6, 4, 8, 5
    x = rng.normal(size=(batch, steps, d)).astype("float32")
    ids = rng.integers(0, k, size=(batch, steps)) if mode == "teacher_forcing" else None
    fast, plain = _twin_layers(rng, units, k, d, ids is not None, dtype="mixed_bfloat16")
    fast_out, fast_h, plain_out, plain_h = _twin_calls(fast, plain, x, ids, k, None)
    assert fast_out.dtype == plain_out.dtype
    np.testing.assert_allclose(fast_out.astype("float32"), plain_out.astype("float32"), rtol=0.05, atol=0.02)
    np.testing.assert_allclose(fast_h.astype("float32"), plain_h.astype("float32"), rtol=0.05, atol=0.02)


def _function_gradients(fn, tensors):
    """Gradients of the scalar `fn(*tensors)` wrt each tensor, as numpy."""
    backend = keras.backend.backend()
    if backend == "jax":
        import jax

        grads = jax.grad(lambda args: fn(*args))(list(tensors))
    elif backend == "tensorflow":
        import tensorflow as tf

        with tf.GradientTape() as tape:
            tape.watch(tensors)
            value = fn(*tensors)
        grads = tape.gradient(value, tensors)
    else:
        tensors = [t.detach().clone().requires_grad_(True) for t in tensors]
        fn(*tensors).backward()
        grads = [t.grad for t in tensors]
    return [keras.ops.convert_to_numpy(g) for g in grads]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fast_free_energy_matches_softplus_sums(rng, dtype):
    """The fast free energy against log(1 + e^z) summed, values and gradient
    (sigmoid), from tiny to huge pre-activations and label weights that span
    up to the fast range."""
    from keras_seq.layers import scrbm

    with support.float64() if dtype == "float64" else contextlib.nullcontext():
        a = rng.normal(size=(6, 12)) * np.array([0.1, 1, 10, 30, 100, 1e3])[:, None]
        u = rng.uniform(-20, 20, size=(5, 12))
        u[:, 0] = [-20, 20, 0, 0, 0]  # the full spread of 40 in one unit
        upstream = rng.normal(size=(6, 5))
        z = a[:, None, :] + u
        expected = np.logaddexp(0.0, z).sum(-1)
        sigmoid = np.exp(-np.logaddexp(0.0, -z))
        a_t, u_t, upstream_t = (keras.ops.convert_to_tensor(v, dtype=dtype) for v in (a, u, upstream))
        assert bool(keras.ops.convert_to_numpy(scrbm._fast_is_exact(u_t)))
        value = keras.ops.convert_to_numpy(scrbm._fast_softplus_sum(a_t, u_t))
        rtol = 1e-6 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(value, expected, rtol=rtol, atol=1e-5 if dtype == "float32" else 1e-12)
        grads = _function_gradients(
            lambda a, u: keras.ops.sum(scrbm.softplus_sum(a, u) * upstream_t),
            [a_t, u_t],
        )
        np.testing.assert_allclose(grads[0], np.einsum("nk,nku->nu", upstream, sigmoid), rtol=rtol, atol=rtol)
        np.testing.assert_allclose(grads[1], np.einsum("nk,nku->ku", upstream, sigmoid), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("mode", ["inference", "teacher_forcing"])
def test_label_weights_beyond_the_fast_range(rng, mode):
    """Label weights spanning more than the fast free energy allows take the
    exact path, with the same numbers."""
    batch, steps, d, units, k = 2, 5, 3, 4, 3
    x = (rng.normal(size=(batch, steps, d)) * 30).astype("float32")
    ids = rng.integers(0, k, size=(batch, steps))
    weights = random_weights(rng, d, units, k)
    weights["label_kernel"][:, 0] = [-30.0, 30.0, 0.0]
    labels = one_hot(ids, k) if mode == "teacher_forcing" else None
    layer = SCRBM(units, k, return_logits=True)
    layer.build(x.shape)
    set_weights(layer.cell, weights)
    logits = keras.ops.convert_to_numpy(layer(x, labels=None if labels is None else ids))
    ref_logits, _, _ = reference_scrbm(x.astype("float64"), weights, labels)
    np.testing.assert_allclose(logits, ref_logits, rtol=1e-5, atol=1e-4)


# ---------------------------------------------------------------------------
# Masks carried by the inputs, on every call form
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("padding", ["right", "left"])
@pytest.mark.parametrize("form", ["labels", "initial_state"])
def test_carried_mask_is_used_with_labels_and_initial_state(rng, padding, form):
    """`Masking` in front: the padded run gives the unpadded run's real-step
    outputs and final state, with `labels=` or `initial_state=` given."""
    steps, d, units, k, pad = 6, 3, 5, 3, 2
    x = rng.normal(size=(1, steps, d)).astype("float32")
    ids = rng.integers(0, k, size=(1, steps))
    h0 = rng.normal(size=(1, units)).astype("float32")
    padded_x, padded_ids = np.zeros((1, steps + pad, d), "float32"), np.zeros((1, steps + pad), "int64")
    real = slice(pad, None) if padding == "left" else slice(0, steps)
    padded_x[:, real], padded_ids[:, real] = x, ids
    layer = SCRBM(units, k, return_state=True)
    layer.build(x.shape)
    set_weights(layer.cell, random_weights(rng, d, units, k))
    masking = keras.layers.Masking(0.0)

    def call(inputs, labels):
        kwargs = {"labels": labels} if form == "labels" else {"initial_state": h0}
        return [keras.ops.convert_to_numpy(t) for t in layer(masking(inputs), **kwargs)]

    out, h = call(x, ids)
    padded_out, padded_h = call(padded_x, padded_ids)
    np.testing.assert_allclose(padded_h, h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(padded_out[:, real], out, rtol=1e-5, atol=1e-6)


def test_carried_mask_in_a_functional_trainer(rng):
    """Embedding(mask_zero=True) -> SCRBM(x, labels=y) in a functional model:
    padding changes neither the real steps nor the loss."""
    tokens = keras.Input((None,), dtype="int32")
    labels = keras.Input((None,), dtype="int32")
    embedded = keras.layers.Embedding(10, 4, mask_zero=True)(tokens)
    model = keras.Model([tokens, labels], SCRBM(5, 3)(embedded, labels=labels))
    ids = rng.integers(1, 10, size=(2, 5))
    ys = rng.integers(0, 3, size=(2, 5))
    padded_ids = np.concatenate([ids, np.zeros((2, 3), ids.dtype)], axis=1)
    padded_ys = np.concatenate([ys, np.zeros((2, 3), ys.dtype)], axis=1)
    out = keras.ops.convert_to_numpy(model([ids, ys]))
    padded_out = keras.ops.convert_to_numpy(model([padded_ids, padded_ys]))
    np.testing.assert_allclose(padded_out[:, :5], out, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------
# Label values, checked eagerly and inside compiled steps
# ---------------------------------------------------------------------------
BAD_LABELS = {
    "id out of range": (np.full((4, 5), 7), r"integers in \[0, 2\]"),
    "negative id": (np.full((4, 5), -1), r"integers in \[0, 2\]"),
    "fractional id": (np.full((4, 5), 1.7, "float32"), r"integers in \[0, 2\]"),
    "one-hot of 5s": (np.full((4, 5, 3), 5.0, "float32"), "values in \\[0, 1\\] that sum to 1"),
    "rows not summing to 1": (np.full((4, 5, 3), 0.5, "float32"), "sum to 1"),
}


@pytest.mark.parametrize("case", sorted(BAD_LABELS))
def test_bad_label_values_raise_eagerly(rng, case):
    labels, match = BAD_LABELS[case]
    x = rng.normal(size=(4, 5, 3)).astype("float32")
    with pytest.raises(ValueError, match=match):
        SCRBM(4, 3)(x, labels=labels)


def _compiled_trainer(labels_shape, jit_compile):
    x = keras.Input((5, 3))
    y = keras.Input(labels_shape, dtype="float32")
    model = keras.Model([x, y], SCRBM(4, 3, return_logits=True)(x, labels=y))
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=jit_compile)
    return model


def _compiled_settings():
    """Each backend's compiled steps: JAX jit; TensorFlow graph mode and XLA;
    PyTorch's eager steps."""
    return {"jax": [True], "tensorflow": [False, True], "torch": [False]}[keras.backend.backend()]


@pytest.mark.parametrize("jit_compile", _compiled_settings())
@pytest.mark.parametrize("case", sorted(BAD_LABELS))
def test_bad_label_values_inside_fit(rng, case, jit_compile):
    """Inside `fit` invalid labels raise the error naming them; under
    TensorFlow's XLA, which cannot raise, they make the loss NaN instead of
    training on them silently."""
    labels, match = BAD_LABELS[case]
    x = rng.normal(size=(4, 5, 3)).astype("float32")
    targets = rng.integers(0, 3, size=(4, 5))
    model = _compiled_trainer(labels.shape[1:], jit_compile)
    before = [w.copy() for w in model.get_weights()]
    fit = functools.partial(model.fit, epochs=1, batch_size=4, verbose=0)
    if keras.backend.backend() == "tensorflow" and jit_compile:
        assert np.isnan(fit([x, labels.astype("float32")], targets).history["loss"][0])
    else:
        with pytest.raises(Exception, match=match):
            fit([x, labels.astype("float32")], targets)
    # The invalid labels never reached the weights: the step raised before
    # its update, or (XLA) its gradient was zero. (JAX: the failed jitted
    # step has consumed the model's donated buffers, as any error inside a
    # Keras step on JAX does; there is no weight left to compare.)
    if keras.backend.backend() != "jax":
        for weight, initial in zip(model.get_weights(), before):
            np.testing.assert_array_equal(weight, initial)
    # Valid labels go through the same compiled step.
    good = rng.integers(0, 3, size=(4, 5)).astype("float32")
    if labels.ndim == 3:
        good = one_hot(good.astype(int), 3)
    model = _compiled_trainer(labels.shape[1:], jit_compile)
    history = model.fit([x, good], targets, epochs=1, batch_size=4, verbose=0)
    assert np.isfinite(history.history["loss"][0])


def test_padding_labels_at_masked_steps_are_not_checked(rng):
    """Masked steps may hold any label (e.g. -1 padding)."""
    x = rng.normal(size=(2, 5, 3)).astype("float32")
    labels = rng.integers(0, 3, size=(2, 5))
    mask = np.ones((2, 5), bool)
    mask[:, 3:] = False
    labels[~mask] = -1
    out = SCRBM(4, 3)(x, labels=labels, mask=mask)
    assert np.all(np.isfinite(keras.ops.convert_to_numpy(out)))
    with pytest.raises(ValueError, match=r"at \(batch, step\) = \(0, 3\)"):
        SCRBM(4, 3)(x, labels=labels)


def test_teacher_forcing_fit_on_batches_of_varying_length(rng):
    """Batches of different lengths (a generator: TensorFlow traces the
    step with an unknown number of steps, as padded tf.data batches do)."""
    x_in = keras.Input((None, 3))
    y_in = keras.Input((None,), dtype="int32")
    model = keras.Model([x_in, y_in], SCRBM(4, 3, return_logits=True)(x_in, labels=y_in))
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))

    def batches():
        for steps in (5, 7, 4, 6):
            ids = rng.integers(0, 3, size=(2, steps)).astype("int32")
            yield (rng.normal(size=(2, steps, 3)).astype("float32"), ids), ids

    history = model.fit(batches(), epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])
