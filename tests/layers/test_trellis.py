import keras
import numpy as np
import pytest
from keras.src import testing

from keras_seq.layers.trellis import TrellisBlock
from tests import support

WEIGHT_NAMES = ["input_kernel", "hidden_kernel", "bias"]
GAIN_NAMES = ["input_kernel_gain", "hidden_kernel_gain"]


# ---------------------------------------------------------------------------
# Plain-numpy reference of the TrellisNet paper's equations (eq. 1, Sec. 5.1),
# one time step and one kernel tap at a time on purpose.
# ---------------------------------------------------------------------------
def np_sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def drop_earlier_taps(v, mask):
    """Temporal weight drop: taps j < k - 1 times the mask (all taps if
    k = 1); the current-step tap j = k - 1 unchanged."""
    v = v.copy()
    k = v.shape[0]
    for j in range(max(k - 1, 1)):
        v[j] = v[j] * mask[j]
    return v


def effective_kernels(weights, weight_masks=None):
    """The kernels a call uses; `weight_masks` ({name: mask of the earlier
    taps}) are applied to the raw kernel (the direction v) BEFORE the norm."""
    kernels = []
    for name in ("input_kernel", "hidden_kernel"):
        v = weights[name]
        if weight_masks is not None:
            v = drop_earlier_taps(v, weight_masks[name])
        if name + "_gain" in weights:  # w = g v / ||v|| per output channel
            norm = np.sqrt((v**2).sum(axis=(0, 1)))
            v = weights[name + "_gain"] * v / np.where(norm > 0, norm, 1.0)
        kernels.append(v)
    return kernels


def reference_parameters(x, weights, h0=None, c0=None, weight_masks=None):
    """What both numpy references start from: the effective input and hidden
    kernels, the bias, and the history (zeros unless given)."""
    U, W = effective_kernels(weights, weight_masks)
    shape = (x.shape[0], W.shape[1])
    h0 = np.zeros(shape) if h0 is None else h0
    c0 = np.zeros(shape) if c0 is None else c0
    return U, W, weights["bias"], h0, c0


def reference_trellis(x, weights, num_levels, dilations, h0=None, c0=None, hidden_mask=None, weight_masks=None):
    """Returns (h, c) of every level after the first, each (batch, time, H).

    Training mode with fixed masks: `hidden_mask` (batch, H) multiplies every
    h that the hidden convolution reads (history h0 included), at every
    level and step; the levels' outputs are not masked. `weight_masks` as in
    `effective_kernels`."""
    U, W, b, h0, c0 = reference_parameters(x, weights, h0, c0, weight_masks)
    k, hidden = W.shape[0], W.shape[1]
    batch, steps, _ = x.shape
    h = np.zeros((batch, steps, hidden))  # level 0
    c = np.zeros((batch, steps, hidden))
    levels = []
    for level in range(num_levels):
        d = dilations[level % len(dilations)]
        new_h, new_c = np.empty_like(h), np.empty_like(c)
        for t in range(steps):
            pre = np.broadcast_to(b, (batch, 4 * hidden)).copy()
            for j in range(k):
                s = t - (k - 1 - j) * d
                x_s = x[:, s] if s >= 0 else np.zeros_like(x[:, 0])  # zero padding
                h_s = h[:, s] if s >= 0 else h0  # history padding
                if hidden_mask is not None:
                    h_s = h_s * hidden_mask
                pre += x_s @ U[j] + h_s @ W[j]
            i, o, g, f = np.split(pre, 4, axis=-1)
            c_prev = c[:, t - d] if t - d >= 0 else c0
            new_c[:, t] = np_sigmoid(f) * c_prev + np_sigmoid(i) * np.tanh(g)
            new_h[:, t] = np_sigmoid(o) * np.tanh(new_c[:, t])
        h, c = new_h, new_c
        levels.append((h, c))
    return levels


def random_weights(rng, d, hidden, k, weight_norm, scale=0.5, dtype="float32"):
    shapes = {
        "input_kernel": (k, d, 4 * hidden),
        "hidden_kernel": (k, hidden, 4 * hidden),
        "bias": (4 * hidden,),
    }
    if weight_norm:
        shapes.update({name: (4 * hidden,) for name in GAIN_NAMES})
    weights = {n: rng.normal(size=s) * scale for n, s in shapes.items()}
    if weight_norm:
        for name in GAIN_NAMES:
            weights[name] = 0.5 + rng.uniform(size=shapes[name])
    return {n: w.astype(dtype) for n, w in weights.items()}


def set_weights(layer, weights):
    for name, value in weights.items():
        getattr(layer, name).assign(value)


def to_numpy(tensor):
    return keras.ops.convert_to_numpy(tensor)


CASES = [  # (batch, time, input_dim, hidden, output, levels, kernel, dilations, weight_norm, state)
    (1, 1, 1, 1, 1, 1, 2, (1,), False, False),
    (2, 6, 3, 5, 2, 3, 2, (1,), True, True),
    (3, 9, 4, 6, 6, 4, 3, (1, 2), False, True),
    (2, 11, 2, 4, 3, 5, 2, (1, 2, 4), True, False),
    (2, 5, 3, 4, 1, 3, 1, (2,), False, True),
    (1, 3, 2, 3, 2, 4, 2, (4,), True, True),  # dilation longer than the sequence
]


# ---------------------------------------------------------------------------
# Numerics
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES)
def test_matches_numpy_reference(rng, case):
    batch, steps, d, hidden, out, levels, k, dilations, wn, with_state = case
    x = rng.normal(size=(batch, steps, d)).astype("float32")
    weights = random_weights(rng, d, hidden, k, wn)
    state = [rng.normal(size=(batch, hidden)).astype("float32") for _ in range(2)]

    layer = TrellisBlock(
        hidden,
        out,
        levels,
        kernel_size=k,
        dilations=dilations,
        weight_norm=wn,
        aux_frequency=1 if levels > 1 else None,
        return_state=True,
    )
    layer.build(x.shape)
    set_weights(layer, weights)
    outputs = layer(x, initial_state=state if with_state else None)
    y, h, c = outputs[0], outputs[-2], outputs[-1]

    weights64 = {n: w.astype("float64") for n, w in weights.items()}
    state64 = [s.astype("float64") for s in state] if with_state else [None, None]
    ref = reference_trellis(x.astype("float64"), weights64, levels, dilations, *state64)
    ref_h, ref_c = ref[-1]
    tol = dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(to_numpy(y), ref_h[..., -out:], **tol)
    np.testing.assert_allclose(to_numpy(h), ref_h[:, -1], **tol)
    np.testing.assert_allclose(to_numpy(c), ref_c[:, -1], **tol)
    if levels > 1:  # auxiliary outputs: every level, the top one included
        aux = to_numpy(outputs[1])
        assert aux.shape == (batch, steps, levels, out)
        for level in range(levels):
            np.testing.assert_allclose(aux[:, :, level], ref[level][0][..., -out:], **tol)


def test_weight_norm_starts_at_the_initializers_kernel(rng):
    x = rng.normal(size=(2, 5, 3)).astype("float32")
    normed = TrellisBlock(6, 2, 3, weight_norm=True, input_kernel_initializer="ones")
    normed.build(x.shape)
    np.testing.assert_allclose(to_numpy(normed._kernels()[0]), 1.0, rtol=1e-6)
    plain = TrellisBlock(6, 2, 3, weight_norm=False)
    plain.build(x.shape)
    for name in ("input_kernel", "hidden_kernel", "bias"):
        getattr(plain, name).assign(getattr(normed, name))
    np.testing.assert_allclose(to_numpy(plain(x)), to_numpy(normed(x)), rtol=1e-5, atol=1e-6)
    assert len(normed.weights) == 5 and len(plain.weights) == 3


def test_gradient_matches_finite_differences(rng):
    with support.float64():
        _check_gradient(rng)


def _check_gradient(rng):
    batch, steps, d, hidden, out, levels, dilations = 2, 5, 2, 3, 2, 3, (1, 2)
    x = rng.normal(size=(batch, steps, d))
    h0, c0 = rng.normal(size=(2, batch, hidden)) * 0.5
    target = rng.normal(size=(batch, steps, out))
    weights = random_weights(rng, d, hidden, 2, True, scale=0.7, dtype="float64")
    names = WEIGHT_NAMES + GAIN_NAMES

    layer = TrellisBlock(hidden, out, levels, dilations=dilations, dtype="float64")
    layer.build(x.shape)
    set_weights(layer, weights)

    def keras_loss(y):
        return keras.ops.sum(keras.ops.square(y - keras.ops.convert_to_tensor(target)))

    layer_state = _StateBound(layer, h0, c0)
    autodiff = support.gradients(layer_state, keras_loss, x)

    def numpy_loss(arrays):
        ref = reference_trellis(x, dict(zip(names, arrays)), levels, dilations, h0, c0)
        return ((ref[-1][0][..., -out:] - target) ** 2).sum()

    support.assert_gradients_match_finite_differences(layer_state, autodiff, numpy_loss, weights, names)


class _StateBound(keras.layers.Layer):
    """The block called with a fixed initial state (support.gradients passes
    tensors only)."""

    def __init__(self, block, h0, c0, training=False):
        super().__init__(dtype=block.dtype_policy)
        self.block, self.h0, self.c0, self.training = block, h0, c0, training
        self.built = True  # the block is

    def call(self, x):
        return self.block(x, initial_state=[self.h0, self.c0], training=self.training)


# ---------------------------------------------------------------------------
# Theorem 1: an LSTM truncated to M steps is a sparse TrellisNet of depth M
# ---------------------------------------------------------------------------
def reference_lstm(x, lstm):
    """Keras' LSTM equations (gates i, f, g, o) from a zero state."""
    W, U, b = (keras.ops.convert_to_numpy(w).astype("float64") for w in lstm.weights)
    h = c = np.zeros((x.shape[0], U.shape[0]))
    for t in range(x.shape[1]):
        i, f, g, o = np.split(x[:, t] @ W + h @ U + b, 4, axis=-1)
        c = np_sigmoid(f) * c + np_sigmoid(i) * np.tanh(g)
        h = np_sigmoid(o) * np.tanh(c)
    return h


@pytest.mark.parametrize("history,steps,units", [(1, 4, 3), (5, 9, 4)])
def test_from_lstm_reproduces_the_truncated_lstm(rng, history, steps, units):
    x = rng.normal(size=(3, steps, 4)).astype("float32")
    lstm = keras.layers.LSTM(units)
    lstm.build(x.shape)
    for weight in lstm.weights:  # random, not the structured default init
        weight.assign(rng.normal(size=weight.shape).astype("float32") * 0.6)
    block = TrellisBlock.from_lstm(lstm, history)
    assert block.hidden_units == block.output_units == units
    outputs = to_numpy(block(x))
    expected = to_numpy(lstm(x[:, -history:]))  # last M inputs, zero state
    np.testing.assert_allclose(outputs[:, -1], expected, rtol=1e-5, atol=1e-6)
    # Every step: the LSTM over the window x_{t-M+1..t} (shorter at the start).
    x64 = x.astype("float64")
    for t in range(steps):
        window = x64[:, max(0, t - history + 1) : t + 1]
        np.testing.assert_allclose(outputs[:, t], reference_lstm(window, lstm), rtol=1e-5, atol=1e-6, err_msg=t)


def test_from_lstm_cell_and_levels_are_the_lstm_steps(rng):
    x = rng.normal(size=(2, 6, 3)).astype("float32")
    cell = keras.layers.LSTMCell(4)
    cell.build((None, 3))
    block = TrellisBlock.from_lstm(cell, 5, aux_frequency=1)
    _, aux = block(x)
    np.testing.assert_allclose(  # the cell's own equations, as Keras runs them
        to_numpy(keras.layers.RNN(cell)(x[:, -5:])),
        reference_lstm(x[:, -5:], cell),
        rtol=1e-5,
        atol=1e-6,
    )
    assert to_numpy(aux).shape == (2, 6, 5, 4)
    for j in range(1, 6):  # level j at t = LSTM state after j steps ending at t
        np.testing.assert_allclose(
            to_numpy(aux)[:, -1, j - 1],
            reference_lstm(x[:, -j:].astype("float64"), cell),
            rtol=1e-5,
            atol=1e-6,
        )


def test_from_lstm_rejects_what_it_cannot_emulate():
    x = np.zeros((1, 3, 2), "float32")
    unbuilt = keras.layers.LSTM(3)
    with pytest.raises(ValueError, match="built"):
        TrellisBlock.from_lstm(unbuilt, 3)
    relu = keras.layers.LSTM(3, activation="relu")
    relu(x)
    with pytest.raises(ValueError, match="activation"):
        TrellisBlock.from_lstm(relu, 3)
    gru = keras.layers.GRU(3)
    gru(x)
    with pytest.raises(ValueError, match="LSTM"):
        TrellisBlock.from_lstm(gru, 3)
    lstm = keras.layers.LSTM(3)
    lstm(x)
    with pytest.raises(ValueError, match="history"):
        TrellisBlock.from_lstm(lstm, 0)


# ---------------------------------------------------------------------------
# Causality, receptive field, history repackaging
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("k,dilations,levels", [(2, (1,), 4), (3, (1, 2, 4), 4), (1, (2,), 3)])
def test_causal_with_the_documented_receptive_field(rng, k, dilations, levels):
    steps = 24
    x = rng.normal(size=(2, steps, 3)).astype("float32")
    layer = TrellisBlock(5, 5, levels, kernel_size=k, dilations=dilations, bias_initializer="random_normal")
    base = to_numpy(layer(x))
    t = 17
    future = x.copy()
    future[:, t + 1 :] += rng.normal(size=future[:, t + 1 :].shape).astype("float32")
    np.testing.assert_array_equal(to_numpy(layer(future))[:, : t + 1], base[:, : t + 1])

    field = layer.receptive_field
    assert field <= t
    inside, outside = x.copy(), x.copy()
    inside[:, t - field + 1] += 1.0
    outside[:, : t - field + 1] += 1.0
    assert np.abs(to_numpy(layer(inside))[:, t] - base[:, t]).max() > 1e-6
    np.testing.assert_array_equal(to_numpy(layer(outside))[:, t], base[:, t])


def test_history_repackaging_two_halves_equal_the_whole(rng):
    """With recurrent-structured (Theorem 1) kernels and a receptive field
    covering the whole sequence, carrying (h, c) is exact: two halves, one
    whole sequence and the untruncated LSTM agree."""
    x = rng.normal(size=(2, 10, 3)).astype("float32")
    lstm = keras.layers.LSTM(4)
    lstm.build(x.shape)
    block = TrellisBlock.from_lstm(lstm, 10, return_state=True)
    whole, h, c = block(x)
    first, h1, c1 = block(x[:, :4])
    second, h2, c2 = block(x[:, 4:], initial_state=[h1, c1])
    halves = np.concatenate([to_numpy(first), to_numpy(second)], axis=1)
    tol = dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(halves, to_numpy(whole), **tol)
    np.testing.assert_allclose(to_numpy(h2), to_numpy(h), **tol)
    np.testing.assert_allclose(to_numpy(c2), to_numpy(c), **tol)
    np.testing.assert_allclose(to_numpy(h2), to_numpy(lstm(x)), **tol)


def test_history_only_reaches_the_first_receptive_field(rng):
    """A dense block: the carried state changes the first steps of the next
    segment and nothing after its receptive field."""
    x = rng.normal(size=(2, 16, 3)).astype("float32")
    layer = TrellisBlock(6, 2, 3, dilations=(1, 2), return_state=True)
    _, h, c = layer(x[:, :8])
    with_history = to_numpy(layer(x[:, 8:], initial_state=[h, c])[0])
    without = to_numpy(layer(x[:, 8:])[0])
    whole = to_numpy(layer(x)[0])[:, 8:]
    field = layer.receptive_field
    assert np.abs(with_history[:, 0] - without[:, 0]).max() > 1e-4
    np.testing.assert_allclose(with_history[:, field:], whole[:, field:], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(without[:, field:], whole[:, field:], rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------
# Training mode: hidden dropout, weight dropout, auxiliary outputs
# ---------------------------------------------------------------------------
class _FixedMasks(TrellisBlock):
    """A block whose training-mode masks are given (the mask-drawing hooks
    overridden): `hidden_mask` (batch, H) and `weight_masks`, the masks of
    the earlier taps of the input and hidden kernels, in that order."""

    def __init__(self, *args, hidden_mask=None, weight_masks=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.hidden_mask, self.weight_masks = hidden_mask, list(weight_masks)
        self.requested = []  # shapes the layer asked weight masks for

    def _dropout_mask(self, like):
        return keras.ops.convert_to_tensor(self.hidden_mask[:, None, :])

    def _weight_dropout_mask(self, shape):
        self.requested.append(tuple(shape))
        index = (len(self.requested) - 1) % len(self.weight_masks)  # input, hidden, input, ...
        return keras.ops.convert_to_tensor(self.weight_masks[index])


class _Recording(TrellisBlock):
    """A block that keeps the masks it draws (through the real hooks)."""

    drawn = None

    def _dropout_mask(self, like):
        mask = super()._dropout_mask(like)
        self.drawn.append(("hidden", to_numpy(mask)))
        return mask

    def _weight_dropout_mask(self, shape):
        mask = super()._weight_dropout_mask(shape)
        self.drawn.append(("weight", to_numpy(mask)))
        return mask


def _training_case(rng, k=3, weight_norm=True, batch=2, steps=8, d=3, hidden=5):
    x = rng.normal(size=(batch, steps, d)).astype("float32")
    weights = random_weights(rng, d, hidden, k, weight_norm)
    state = [rng.normal(size=(batch, hidden)).astype("float32") for _ in range(2)]
    return x, weights, state


def _binary_mask(rng, shape, rate=0.5):
    """A dropout-like mask (0 or 1 / (1 - rate)) with both values present."""
    mask = (rng.uniform(size=shape) >= rate) / (1.0 - rate)
    mask.flat[0], mask.flat[-1] = 0.0, 1.0 / (1.0 - rate)
    return mask.astype("float32")


def test_hidden_dropout_masks_the_convolution_input_history_included(rng):
    hidden, out, levels, dilations = 5, 3, 4, (1, 2)
    x, weights, (h0, c0) = _training_case(rng, hidden=hidden)
    mask = _binary_mask(rng, (2, hidden))
    mask[:, -out:] = [[0.0, 2.0, 0.0], [2.0, 0.0, 2.0]]  # drop some output channels
    layer = _FixedMasks(
        hidden,
        out,
        levels,
        kernel_size=3,
        dilations=dilations,
        dropout=0.5,
        aux_frequency=2,
        return_state=True,
        hidden_mask=mask,
    )
    layer.build(x.shape)
    set_weights(layer, weights)
    y, aux, h, c = (to_numpy(t) for t in layer(x, initial_state=[h0, c0], training=True))

    w64 = {n: w.astype("float64") for n, w in weights.items()}
    ref = reference_trellis(
        x.astype("float64"),
        w64,
        levels,
        dilations,
        h0.astype("float64"),
        c0.astype("float64"),
        hidden_mask=mask.astype("float64"),
    )
    tol = dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y, ref[-1][0][..., -out:], **tol)
    np.testing.assert_allclose(aux[:, :, 0], ref[1][0][..., -out:], **tol)
    np.testing.assert_allclose(aux[:, :, 1], ref[3][0][..., -out:], **tol)
    np.testing.assert_allclose(h, ref[-1][0][:, -1], **tol)  # the returned state: unmasked
    np.testing.assert_allclose(c, ref[-1][1][:, -1], **tol)
    # The output is not masked: channels the mask zeroes are still live.
    for row, channel in zip(*np.nonzero(mask[:, -out:] == 0)):
        assert np.abs(y[row, :, channel]).max() > 1e-2, (row, channel)
    # The history is masked: h0 in a dropped channel changes nothing, in a kept one it does.
    dropped, kept = np.nonzero(mask[0] == 0)[0][0], np.nonzero(mask[0] > 0)[0][0]
    for channel, matters in ((dropped, False), (kept, True)):
        h0_changed = h0.copy()
        h0_changed[0, channel] += 1.0
        y2 = to_numpy(layer(x, initial_state=[h0_changed, c0], training=True)[0])
        assert (np.abs(y2[0] - y[0]).max() > 1e-4) == matters, channel
    # Inference ignores the mask.
    eval_ref = reference_trellis(
        x.astype("float64"), w64, levels, dilations, h0.astype("float64"), c0.astype("float64")
    )
    np.testing.assert_allclose(to_numpy(layer(x, initial_state=[h0, c0])[0]), eval_ref[-1][0][..., -out:], **tol)
    assert np.abs(y - eval_ref[-1][0][..., -out:]).max() > 1e-3


@pytest.mark.parametrize("k,weight_norm", [(3, True), (2, False), (1, True)])
def test_weight_dropout_drops_the_earlier_taps_of_v_before_the_norm(rng, k, weight_norm):
    hidden, out, levels, dilations, d = 5, 2, 3, (1, 2), 3
    x, weights, _ = _training_case(rng, k=k, weight_norm=weight_norm, hidden=hidden, d=d)
    taps = max(k - 1, 1)
    masks = {
        "input_kernel": _binary_mask(rng, (taps, d, 4 * hidden)),
        "hidden_kernel": _binary_mask(rng, (taps, hidden, 4 * hidden)),
    }
    layer = _FixedMasks(
        hidden,
        out,
        levels,
        kernel_size=k,
        dilations=dilations,
        weight_dropout=0.5,
        weight_norm=weight_norm,
        return_state=True,
        weight_masks=[masks["input_kernel"], masks["hidden_kernel"]],
    )
    layer.build(x.shape)
    set_weights(layer, weights)
    y, h, c = (to_numpy(t) for t in layer(x, training=True))
    assert layer.requested == [masks["input_kernel"].shape, masks["hidden_kernel"].shape]

    w64 = {n: w.astype("float64") for n, w in weights.items()}
    m64 = {n: m.astype("float64") for n, m in masks.items()}
    ref = reference_trellis(x.astype("float64"), w64, levels, dilations, weight_masks=m64)
    tol = dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y, ref[-1][0][..., -out:], **tol)
    np.testing.assert_allclose(c, ref[-1][1][:, -1], **tol)
    # The kernels themselves: dropped taps of v, normalised with the dropped v.
    U, W = (to_numpy(t) for t in layer._kernels(weight_dropout=True))
    refU, refW = effective_kernels(w64, m64)
    np.testing.assert_allclose(U, refU, **tol)
    np.testing.assert_allclose(W, refW, **tol)
    if k > 1:  # the current-step tap is never dropped
        raw = [w64["input_kernel"][-1], w64["hidden_kernel"][-1]]
        if weight_norm:
            assert np.abs(W[-1] - effective_kernels(w64)[1][-1]).max() > 1e-3  # rescaled by the norm
        else:
            np.testing.assert_allclose(U[-1], raw[0], **tol)
            np.testing.assert_allclose(W[-1], raw[1], **tol)
    if weight_norm:  # dropping after the norm would be another kernel
        after = effective_kernels(w64)[1]
        after = drop_earlier_taps(after, m64["hidden_kernel"])
        assert np.abs(W - after).max() > 1e-3


def test_weight_dropout_zero_channel_gets_a_zero_kernel():
    """An output channel whose whole v is dropped (k = 1) is zero, not NaN."""
    hidden, d = 2, 1
    mask_u = np.full((1, d, 4 * hidden), 2.0, "float32")
    mask_u[..., 0] = 0.0  # channel 0's only entry
    mask_w = np.full((1, hidden, 4 * hidden), 2.0, "float32")
    layer = _FixedMasks(hidden, 1, 2, kernel_size=1, weight_dropout=0.5, weight_masks=[mask_u, mask_w])
    layer.build((None, None, d))
    U, _ = (to_numpy(t) for t in layer._kernels(weight_dropout=True))
    assert np.isfinite(U).all() and U[..., 0] == 0.0 and np.abs(U[..., 1:]).min() > 0


@pytest.mark.parametrize(
    "levels,frequency,expected",
    [
        (4, 2, [2, 4]),
        (5, 2, [2, 4]),
        (3, 3, [3]),
        (4, 1, [1, 2, 3, 4]),
        (7, 3, [3, 6]),
    ],
)
def test_aux_outputs_are_every_nth_level_top_included(rng, levels, frequency, expected):
    x, weights, (h0, c0) = _training_case(rng, k=2, hidden=4, steps=6)
    layer = TrellisBlock(4, 2, levels, dilations=(1, 2), aux_frequency=frequency)
    layer.build(x.shape)
    set_weights(layer, weights)
    assert layer.num_aux == len(expected)
    assert layer.compute_output_shape(x.shape)[1] == (2, 6, len(expected), 2)
    y, aux = (to_numpy(t) for t in layer(x, initial_state=[h0, c0]))
    assert aux.shape == (2, 6, len(expected), 2)
    w64 = {n: w.astype("float64") for n, w in weights.items()}
    ref = reference_trellis(x.astype("float64"), w64, levels, (1, 2), h0.astype("float64"), c0.astype("float64"))
    for a, level in enumerate(expected):  # level n is ref[n - 1]
        np.testing.assert_allclose(aux[:, :, a], ref[level - 1][0][..., -2:], rtol=1e-5, atol=1e-6)
    if expected[-1] == levels:
        np.testing.assert_array_equal(aux[:, :, -1], y)


def test_training_masks_come_from_the_seed_and_are_shared_over_time(rng):
    hidden, out, levels, dilations, rate = 6, 3, 4, (1, 2), 0.5
    x, weights, (h0, c0) = _training_case(rng, k=2, hidden=hidden, steps=9, batch=3)
    blocks = []
    for _ in range(2):  # the same seed twice
        block = _Recording(
            hidden,
            out,
            levels,
            dilations=dilations,
            dropout=rate,
            weight_dropout=rate,
            aux_frequency=2,
            return_state=True,
            seed=7,
        )
        block.drawn = []
        block.build(x.shape)
        set_weights(block, weights)
        blocks.append(block)
    outputs = [[to_numpy(t) for t in b(x, initial_state=[h0, c0], training=True)] for b in blocks]
    for a, b in zip(*outputs):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    # Draw order: input-kernel taps, hidden-kernel taps, then the hidden mask.
    kinds = [kind for kind, _ in blocks[0].drawn]
    assert kinds == ["weight", "weight", "hidden"]
    mask_u, mask_w, mask_h = (m for _, m in blocks[0].drawn)
    assert mask_u.shape == (1, 3, 4 * hidden) and mask_w.shape == (1, hidden, 4 * hidden)
    assert mask_h.shape == (3, 1, hidden)  # one mask per sequence: shared over time
    for m in (mask_u, mask_w, mask_h):
        assert set(np.unique(m)) <= {0.0, 1.0 / (1 - rate)}
        assert 0 < (m == 0).mean() < 1
    # The numpy reference with this one (batch, H) mask at every step and level.
    w64 = {n: w.astype("float64") for n, w in weights.items()}
    ref = reference_trellis(
        x.astype("float64"),
        w64,
        levels,
        dilations,
        h0.astype("float64"),
        c0.astype("float64"),
        hidden_mask=mask_h[:, 0].astype("float64"),
        weight_masks={"input_kernel": mask_u.astype("float64"), "hidden_kernel": mask_w.astype("float64")},
    )
    y, aux, h, c = outputs[0]
    tol = dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y, ref[-1][0][..., -out:], **tol)
    np.testing.assert_allclose(aux[:, :, 0], ref[1][0][..., -out:], **tol)
    np.testing.assert_allclose(aux[:, :, 1], y, **tol)
    np.testing.assert_allclose(h, ref[-1][0][:, -1], **tol)
    np.testing.assert_allclose(c, ref[-1][1][:, -1], **tol)
    # A new draw on the next call; inference uses no mask.
    again = to_numpy(blocks[0](x, initial_state=[h0, c0], training=True)[0])
    assert np.abs(again - y).max() > 1e-4
    assert (blocks[0].drawn[5][1] != mask_h).any()
    eval_ref = reference_trellis(
        x.astype("float64"), w64, levels, dilations, h0.astype("float64"), c0.astype("float64")
    )
    np.testing.assert_allclose(to_numpy(blocks[0](x, initial_state=[h0, c0])[0]), eval_ref[-1][0][..., -out:], **tol)
    assert len(blocks[0].drawn) == 6


# ---------------------------------------------------------------------------
# The fast paths (input taps folded into the hidden matmul, level 0 from the
# history alone, only the top level's output channels, loops over whole
# dilation cycles) against the levels computed one by one, as the layer did
# before them
# ---------------------------------------------------------------------------
def per_level_reference(x, weights, num_levels, dilations, h0=None, c0=None, hidden_mask=None, weight_masks=None):
    """`reference_trellis` vectorised over time: every level, level 0
    included, is the input convolution plus the hidden convolution of the
    (masked) previous level padded with the (masked) history, one matmul
    over the stacked taps each, then the gates: the straightforward
    per-level evaluation. Returns (h, c) of every level after the first."""
    U, W, b, h0, c0 = reference_parameters(x, weights, h0, c0, weight_masks)
    k, hidden = W.shape[0], W.shape[1]
    batch, steps, features = x.shape
    m = np.ones((batch, hidden)) if hidden_mask is None else hidden_mask

    def conv(sequence, kernel, d, pad):
        p = (k - 1) * d
        padded = np.concatenate([np.repeat(pad[:, None], p, axis=1), sequence], axis=1)
        taps = [padded[:, j * d : j * d + steps] for j in range(k)]
        return np.concatenate(taps, axis=-1) @ kernel.reshape(-1, kernel.shape[-1])

    h = c = np.zeros((batch, steps, hidden))
    levels = []
    for level in range(num_levels):
        d = dilations[level % len(dilations)]
        pre = conv(x, U, d, np.zeros((batch, features))) + b + conv(h * m[:, None], W, d, h0 * m)
        i, o, g, f = np.split(pre, 4, axis=-1)
        c_prev = np.concatenate([np.repeat(c0[:, None], d, axis=1), c], axis=1)[:, :steps]
        c = np_sigmoid(f) * c_prev + np_sigmoid(i) * np.tanh(g)
        h = np_sigmoid(o) * np.tanh(c)
        levels.append((h, c))
    return levels


def test_per_level_reference_is_the_step_by_step_reference(rng):
    x, weights, (h0, c0) = _training_case(rng, k=3, hidden=4, steps=7)
    masks = {"input_kernel": _binary_mask(rng, (2, 3, 16)), "hidden_kernel": _binary_mask(rng, (2, 4, 16))}
    hidden_mask = _binary_mask(rng, (2, 4))
    f64 = lambda a: a.astype("float64")  # noqa: E731
    args = (
        f64(x),
        {n: f64(w) for n, w in weights.items()},
        5,
        (1, 3),
        f64(h0),
        f64(c0),
        f64(hidden_mask),
        {n: f64(m) for n, m in masks.items()},
    )
    for (h, c), (ref_h, ref_c) in zip(per_level_reference(*args), reference_trellis(*args)):
        np.testing.assert_allclose(h, ref_h, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(c, ref_c, rtol=1e-10, atol=1e-12)


FAST_CASES = [
    # (batch, time, input_dim, hidden, output, levels, kernel, dilations,
    #  aux_frequency, weight_norm, state, return_state, training, loops)
    (2, 10, 2, 6, 2, 12, 2, (1, 2), 5, True, True, True, True, True),
    (2, 9, 3, 5, 3, 9, 3, (1,), None, True, False, False, True, True),
    (3, 7, 4, 4, 2, 1, 2, (2,), None, False, True, False, False, False),
    (1, 3, 2, 3, 2, 5, 3, (4,), 2, True, True, False, True, False),
    (2, 11, 5, 6, 4, 10, 2, (2, 1, 3), 3, False, True, True, False, False),
    (2, 8, 1, 5, 5, 8, 1, (1,), None, True, True, False, True, True),
    (2, 12, 2, 4, 1, 11, 2, (1, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512), None, True, False, False, True, False),
]


def _fast_path_block(case, weights, fold, loop, rng, dtype=None):
    (batch, steps, d, hidden, out, levels, k, dilations, aux, wn, _, return_state, training, _) = case
    taps = max(k - 1, 1)
    masks = {}
    if training:
        masks = {
            "hidden": _binary_mask(rng, (batch, hidden)),
            "input_kernel": _binary_mask(rng, (taps, d, 4 * hidden)),
            "hidden_kernel": _binary_mask(rng, (taps, hidden, 4 * hidden)),
        }
    layer = _FixedMasks(
        hidden,
        out,
        levels,
        kernel_size=k,
        dilations=dilations,
        weight_norm=wn,
        aux_frequency=aux,
        return_state=return_state,
        dropout=0.5 if training else 0.0,
        weight_dropout=0.5 if training else 0.0,
        hidden_mask=masks.get("hidden"),
        weight_masks=[masks.get("input_kernel"), masks.get("hidden_kernel")],
        dtype=dtype,
    )
    layer._fold_input = lambda input_dim: fold
    layer._loop_cycles = loop
    layer.build((batch, steps, d))
    set_weights(layer, weights)
    return layer, masks


@pytest.mark.parametrize("loop", [True, False], ids=["loops", "unrolled"])
@pytest.mark.parametrize("fold", [True, False], ids=["folded", "injected"])
@pytest.mark.parametrize("case", FAST_CASES)
def test_fast_paths_match_the_levels_one_by_one(rng, case, fold, loop):
    (batch, steps, d, hidden, out, levels, k, dilations, aux, wn, with_state, return_state, training, loops) = case
    x = rng.normal(size=(batch, steps, d)).astype("float32")
    weights = random_weights(rng, d, hidden, k, wn)
    state = [rng.normal(size=(batch, hidden)).astype("float32") for _ in range(2)]
    layer, masks = _fast_path_block(case, weights, fold, loop, rng)
    assert any(n for _, n in layer._level_plan()) == (loop and loops)
    outputs = layer(x, initial_state=state if with_state else None, training=training)
    outputs = [to_numpy(t) for t in (outputs if isinstance(outputs, tuple) else [outputs])]

    f64 = lambda a: None if a is None else a.astype("float64")  # noqa: E731
    ref = per_level_reference(
        f64(x),
        {n: f64(w) for n, w in weights.items()},
        levels,
        dilations,
        *(f64(s) for s in (state if with_state else [None, None])),
        hidden_mask=f64(masks.get("hidden")),
        weight_masks={n: f64(masks[n]) for n in ("input_kernel", "hidden_kernel")} if training else None,
    )
    tol = dict(rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(outputs[0], ref[-1][0][..., -out:], **tol)
    if aux:
        expected = [level for level in range(1, levels + 1) if level % aux == 0]
        assert outputs[1].shape == (batch, steps, len(expected), out)
        for a, level in enumerate(expected):
            np.testing.assert_allclose(outputs[1][:, :, a], ref[level - 1][0][..., -out:], **tol)
    if return_state:
        np.testing.assert_allclose(outputs[-2], ref[-1][0][:, -1], **tol)
        np.testing.assert_allclose(outputs[-1], ref[-1][1][:, -1], **tol)


@pytest.mark.parametrize("fold", [True, False], ids=["folded", "injected"])
def test_fast_paths_gradient_matches_finite_differences(rng, fold):
    """Training mode (fixed masks), a history, loops over dilation cycles and
    the top level's output channels only: autodiff against central
    differences of the per-level reference."""
    with support.float64():
        case = (2, 6, 2, 3, 2, 7, 2, (1, 2), None, True, True, False, True, True)
        batch, steps, d, hidden, out, levels, k, dilations = case[:8]
        x = rng.normal(size=(batch, steps, d))
        h0, c0 = rng.normal(size=(2, batch, hidden)) * 0.5
        target = rng.normal(size=(batch, steps, out))
        weights = random_weights(rng, d, hidden, k, True, scale=0.7, dtype="float64")
        names = WEIGHT_NAMES + GAIN_NAMES
        layer, masks = _fast_path_block(case, weights, fold, True, rng, dtype="float64")
        masks = {n: m.astype("float64") for n, m in masks.items()}
        layer.hidden_mask = masks["hidden"]
        layer.weight_masks = [masks["input_kernel"], masks["hidden_kernel"]]
        assert any(n for _, n in layer._level_plan())

        def keras_loss(y):
            return keras.ops.sum(keras.ops.square(y - keras.ops.convert_to_tensor(target)))

        bound = _StateBound(layer, h0, c0, training=True)
        autodiff = support.gradients(bound, keras_loss, x)

        def numpy_loss(arrays):
            ref = per_level_reference(
                x,
                dict(zip(names, arrays)),
                levels,
                dilations,
                h0,
                c0,
                masks["hidden"],
                {n: masks[n] for n in ("input_kernel", "hidden_kernel")},
            )
            return ((ref[-1][0][..., -out:] - target) ** 2).sum()

        support.assert_gradients_match_finite_differences(bound, autodiff, numpy_loss, weights, names)


def test_compiled_fit_with_loops_equals_the_unrolled_levels(rng):
    """XLA (TensorFlow, JAX) compiles the loop over dilation cycles and its
    gradient; training with it is training with the levels unrolled (same
    seed: same dropout and weight-drop masks)."""
    batch = 4
    x = rng.normal(size=(batch * 2, 9, 2)).astype("float32")
    y = rng.normal(size=(batch * 2, 9, 1)).astype("float32")
    models = []
    for loop in (True, False):
        block = TrellisBlock(
            5, 2, 12, dilations=(1, 2), stateful=True, dropout=0.2, weight_dropout=0.2, seed=3, name="trellis"
        )
        block._loop_cycles = loop
        model = keras.Sequential([keras.Input((9, 2), batch_size=batch), block, keras.layers.Dense(1, name="head")])
        models.append(model)
    models[1].set_weights(models[0].get_weights())
    assert any(n for _, n in models[0].layers[0]._level_plan())
    assert not any(n for _, n in models[1].layers[0]._level_plan())
    for model in models:
        model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", jit_compile=support.backend_has_xla())
        model.fit(x, y, batch_size=batch, epochs=2, shuffle=False, verbose=0)
    for a, b in zip(*(m.get_weights() for m in models)):  # the stored state included
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    assert np.abs(to_numpy(models[0].layers[0].state_h)).max() > 0


# ---------------------------------------------------------------------------
# Keras integration
# ---------------------------------------------------------------------------
def test_parameter_count_does_not_depend_on_depth():
    for levels in (1, 5, 30):
        layer = TrellisBlock(8, 3, levels, kernel_size=3)
        layer.build((None, None, 4))
        assert layer.count_params() == 3 * 4 * 32 + 3 * 8 * 32 + 32 + 2 * 32


class TrellisBlockLayerTest(testing.TestCase):
    def test_harness(self):
        self.run_layer_test(
            TrellisBlock,
            init_kwargs={"hidden_units": 6, "output_units": 2, "num_levels": 3, "dilations": [1, 2]},
            input_shape=(2, 5, 3),
            expected_output_shape=(2, 5, 2),
            expected_num_trainable_weights=5,
            expected_num_non_trainable_weights=0,
            expected_num_seed_generators=1,
        )

    def test_harness_with_dropout_and_state(self):
        self.run_layer_test(
            TrellisBlock,
            init_kwargs={
                "hidden_units": 4,
                "output_units": 4,
                "num_levels": 2,
                "kernel_size": 3,
                "dropout": 0.3,
                "weight_norm": False,
                "return_state": True,
                "aux_frequency": 1,
                "seed": 2,
            },
            input_shape=(3, 6, 2),
            expected_output_shape=((3, 6, 4), (3, 6, 2, 4), (3, 4), (3, 4)),
            expected_num_trainable_weights=3,
            expected_num_seed_generators=1,
            run_training_check=False,
        )


def test_fit_with_xla_save_and_reload(rng, tmp_path):
    """XLA on TensorFlow and JAX; PyTorch has no XLA here and runs eagerly."""
    x = rng.normal(size=(16, 12, 3)).astype("float32")
    y = np.cumsum(x[..., :1], axis=1).astype("float32") * 0.1
    model = keras.Sequential(
        [
            keras.Input((12, 3)),
            TrellisBlock(8, 4, 4, dilations=[1, 2], dropout=0.2, seed=1),
            keras.layers.Dense(1),
        ]
    )
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse", jit_compile=support.backend_has_xla())
    history = model.fit(x, y, epochs=3, batch_size=8, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))
    assert history.history["loss"][-1] < history.history["loss"][0]

    path = str(tmp_path / "trellis.keras")
    model.save(path)
    reloaded = keras.saving.load_model(path)  # no custom_objects
    np.testing.assert_allclose(reloaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6, atol=1e-6)
    assert isinstance(reloaded.layers[0], TrellisBlock)


def test_functional_with_state_and_unknown_time():
    x = keras.Input((None, 3))
    y, aux, h, c = TrellisBlock(6, 2, 4, aux_frequency=2, return_state=True)(x)
    assert tuple(y.shape) == (None, None, 2) and tuple(aux.shape) == (None, None, 2, 2)
    assert tuple(h.shape) == (None, 6) and tuple(c.shape) == (None, 6)
    model = keras.Model(x, [y, h])
    out, _ = model.predict(np.ones((2, 7, 3), "float32"), verbose=0)
    assert out.shape == (2, 7, 2)


def test_forget_bias_shifts_only_the_forget_gates_initial_bias():
    layer = TrellisBlock(3, 2, 2, bias_initializer="ones", forget_bias=4.0)
    layer.build((None, None, 5))
    bias = keras.ops.convert_to_numpy(layer.bias).reshape(4, 3)  # gates i, o, g, f
    np.testing.assert_allclose(bias[:3], 1.0)
    np.testing.assert_allclose(bias[3], 5.0)
    default = TrellisBlock(3, 2, 2)
    default.build((None, None, 5))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(default.bias), 0.0)


def test_config_round_trip():
    layer = TrellisBlock(
        7,
        3,
        5,
        kernel_size=3,
        dilations=[1, 2],
        dropout=0.1,
        weight_norm=False,
        aux_frequency=2,
        return_state=True,
        hidden_kernel_regularizer="l2",
        forget_bias=2.5,
        bias_initializer="ones",
        input_kernel_constraint="non_neg",
        seed=4,
    )
    clone = TrellisBlock.from_config(layer.get_config())
    assert clone.get_config() == layer.get_config()


# ---------------------------------------------------------------------------
# Errors that name the problem
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"hidden_units": 0}, "hidden_units"),
        ({"output_units": 9}, "output_units"),
        ({"num_levels": 0}, "num_levels"),
        ({"kernel_size": 0}, "kernel_size"),
        ({"dilations": []}, "dilations"),
        ({"dilations": [1, 0]}, "dilations"),
        ({"dropout": 1.0}, "dropout"),
        ({"aux_frequency": 4}, "aux_frequency"),
        ({"aux_frequency": 0}, "aux_frequency"),
        ({"forget_bias": float("nan")}, "forget_bias"),
        ({"forget_bias": "4"}, "forget_bias"),
    ],
)
def test_bad_arguments(kwargs, match):
    arguments = {"hidden_units": 8, "output_units": 4, "num_levels": 3, **kwargs}
    with pytest.raises(ValueError, match=match):
        TrellisBlock(**arguments)


def test_bad_inputs():
    layer = TrellisBlock(4, 2, 2)
    with pytest.raises(ValueError, match="rank 3"):
        layer(np.zeros((2, 5), "float32"))
    x = np.zeros((2, 5, 3), "float32")
    with pytest.raises(ValueError, match=r"h_0 must have shape \(batch, hidden_units\)"):
        layer(x, initial_state=[np.zeros((2, 5), "float32"), np.zeros((2, 4), "float32")])
    with pytest.raises(ValueError, match="c_0"):
        layer(x, initial_state=[np.zeros((2, 4), "float32"), np.zeros((3, 4), "float32")])
    with pytest.raises(ValueError, match=r"\[h_0, c_0\]"):
        layer(x, initial_state=np.zeros((2, 4), "float32"))
    with pytest.raises(ValueError, match=r"expected ndim=3, found ndim=4"):  # built: Keras' input spec
        layer(np.zeros((2, 5, 3, 1), "float32"))
    with pytest.raises(ValueError, match="rank 3"):
        TrellisBlock(4, 2, 2)(np.zeros((2, 5, 3, 1), "float32"))


# ---------------------------------------------------------------------------
# Weight dropout at inference
# ---------------------------------------------------------------------------
def _weight_dropout_pair(rng, rate=0.5):
    kwargs = dict(weight_dropout=rate, weight_norm=False, dilations=(1, 2), seed=5, return_state=True)
    layer = TrellisBlock(5, 3, 4, **kwargs)
    weights = random_weights(rng, 2, 5, 2, False)
    layer.build((None, None, 2))
    set_weights(layer, weights)
    return layer, weights


def test_weight_dropout_is_the_identity_at_inference(rng):
    layer, weights = _weight_dropout_pair(rng)
    plain = TrellisBlock(5, 3, 4, weight_norm=False, dilations=(1, 2))
    plain.build((None, None, 2))
    set_weights(plain, weights)
    x = rng.normal(size=(2, 9, 2)).astype("float32")
    expected = to_numpy(plain(x))
    np.testing.assert_allclose(to_numpy(layer(x)[0]), expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(to_numpy(layer(x, training=False)[0]), expected, rtol=1e-6, atol=1e-6)
    assert np.abs(to_numpy(layer(x, training=True)[0]) - expected).max() > 1e-4


# ---------------------------------------------------------------------------
# Stateful mode: history repackaging across calls
# ---------------------------------------------------------------------------
def _stateful_pair(rng, batch=3):
    kwargs = dict(dilations=(1, 2), bias_initializer="random_normal")
    stateful = TrellisBlock(6, 3, 3, stateful=True, **kwargs)
    plain = TrellisBlock(6, 3, 3, return_state=True, **kwargs)
    stateful.build((batch, None, 2))
    plain.build((batch, None, 2))
    for name in WEIGHT_NAMES + GAIN_NAMES:
        getattr(plain, name).assign(getattr(stateful, name))
    return stateful, plain


def test_stateful_halves_equal_passing_the_first_halfs_state(rng):
    x = rng.normal(size=(3, 10, 2)).astype("float32")
    stateful, plain = _stateful_pair(rng)
    first, h1, c1 = plain(x[:, :4])
    second, h2, c2 = plain(x[:, 4:], initial_state=[h1, c1])
    tol = dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(to_numpy(stateful(x[:, :4])), to_numpy(first), **tol)
    np.testing.assert_allclose(to_numpy(stateful.state_h), to_numpy(h1), **tol)
    np.testing.assert_allclose(to_numpy(stateful.state_c), to_numpy(c1), **tol)
    np.testing.assert_allclose(to_numpy(stateful(x[:, 4:])), to_numpy(second), **tol)
    np.testing.assert_allclose(to_numpy(stateful.state_h), to_numpy(h2), **tol)
    np.testing.assert_allclose(to_numpy(stateful.state_c), to_numpy(c2), **tol)
    # The history matters, and reset_states() goes back to a zero history.
    assert np.abs(to_numpy(second) - to_numpy(plain(x[:, 4:])[0])).max() > 1e-4
    stateful.reset_states()
    np.testing.assert_array_equal(to_numpy(stateful.state_h), 0.0)
    np.testing.assert_array_equal(to_numpy(stateful.state_c), 0.0)
    np.testing.assert_allclose(to_numpy(stateful(x[:, :4])), to_numpy(first), **tol)
    # An explicit initial_state overrides the stored one.
    np.testing.assert_allclose(to_numpy(stateful(x[:, 4:], initial_state=[h1, c1])), to_numpy(second), **tol)


def test_stateful_in_a_compiled_fit_carries_the_state(rng):
    """The state update survives XLA (TensorFlow, JAX) and PyTorch training."""
    batch = 4
    x = rng.normal(size=(batch * 2, 6, 2)).astype("float32")
    y = rng.normal(size=(batch * 2, 6, 1)).astype("float32")
    model = keras.Sequential(
        [
            keras.Input((6, 2), batch_size=batch),
            TrellisBlock(5, 2, 2, stateful=True, dropout=0.1, weight_dropout=0.2, seed=1),
            keras.layers.Dense(1),
        ]
    )
    model.compile(optimizer="adam", loss="mse", jit_compile=support.backend_has_xla())
    model.fit(x, y, batch_size=batch, epochs=1, shuffle=False, verbose=0)
    block = model.layers[0]
    assert np.abs(to_numpy(block.state_h)).max() > 0
    assert len(block.non_trainable_weights) == 2


def test_stateful_needs_a_fixed_batch():
    layer = TrellisBlock(4, 2, 2, stateful=True)
    with pytest.raises(ValueError, match="static batch size"):
        layer.build((None, 5, 3))
    layer = TrellisBlock(4, 2, 2, stateful=True)
    layer(np.zeros((2, 5, 3), "float32"))
    with pytest.raises(ValueError, match="batch size 2"):
        layer(np.zeros((3, 5, 3), "float32"))


def test_new_options_config_round_trip_and_errors():
    layer = TrellisBlock(7, 3, 5, weight_dropout=0.25, stateful=True, seed=4)
    config = layer.get_config()
    assert config["weight_dropout"] == 0.25 and config["stateful"] is True
    assert TrellisBlock.from_config(config).get_config() == config
    with pytest.raises(ValueError, match="weight_dropout"):
        TrellisBlock(8, 4, 3, weight_dropout=1.0)
    with pytest.raises(ValueError, match="weight_dropout"):
        TrellisBlock(8, 4, 3, weight_dropout=-0.1)
