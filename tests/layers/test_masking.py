"""Masks on every layer and call form: padding (leading or trailing) never
changes real steps' outputs or the final state; sequences of length 0 and
masks of the wrong shape get errors that name them."""

import warnings

import keras
import numpy as np
import pytest

from keras_seq.layers import LMN
from keras_seq.layers import SCRBM
from keras_seq.layers import LastStep
from keras_seq.layers import MaskedGlobalMaxPooling1D
from keras_seq.layers import NgramConvolution
from keras_seq.layers import TrellisBlock
from keras_seq.models import TrellisNet


def numpy(tensors):
    if isinstance(tensors, (list, tuple)):
        return [keras.ops.convert_to_numpy(t) for t in tensors]
    return keras.ops.convert_to_numpy(tensors)


def pad(x, before, after, value=0.0):
    """`x` `(batch, time, ...)` with `before` / `after` padded steps, and the mask."""
    widths = [(0, 0), (before, after)] + [(0, 0)] * (x.ndim - 2)
    padded = np.pad(x, widths, constant_values=value).astype(x.dtype)
    mask = np.zeros(padded.shape[:2], bool)
    mask[:, before : before + x.shape[1]] = True
    return padded, mask


def trellis_block(input_dim, **options):
    block = TrellisBlock(8, 3, num_levels=5, dilations=(1, 2), return_state=True, seed=1, **options)
    block.build((None, None, input_dim))
    rng = np.random.default_rng(3)
    block.set_weights([rng.normal(size=w.shape).astype("float32") * 0.5 for w in block.get_weights()])
    return block


@pytest.mark.parametrize("history", [False, True], ids=["zero history", "initial state"])
@pytest.mark.parametrize("before,after", [(0, 3), (3, 0), (2, 2)])
def test_trellis_block_padding_changes_nothing(rng, before, after, history):
    x = rng.normal(size=(2, 6, 4)).astype("float32")
    block = trellis_block(4)
    kwargs = {}
    if history:
        kwargs["initial_state"] = [rng.normal(size=(2, 8)).astype("float32") for _ in range(2)]
    out, h, c = numpy(block(x, **kwargs))
    padded, mask = pad(x, before, after, value=7.0)  # padding values must not matter
    padded_out, padded_h, padded_c = numpy(block(padded, mask=mask, **kwargs))
    np.testing.assert_allclose(padded_out[:, before : before + 6], out, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(padded_h, h, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(padded_c, c, rtol=1e-5, atol=1e-5)


def test_trellis_block_takes_the_mask_of_masking_and_propagates_it(rng):
    x = rng.normal(size=(2, 5, 4)).astype("float32")
    padded, mask = pad(x, 0, 2)
    inputs = keras.Input((None, 4))
    masked = keras.layers.Masking(0.0)(inputs)
    block = trellis_block(4)
    sequences, h, _ = block(masked)
    pooled = keras.layers.GlobalAveragePooling1D()(sequences)  # mask-aware
    model = keras.Model(inputs, [pooled, h])
    pooled_short, h_short = numpy(model(x))
    pooled_long, h_long = numpy(model(padded))
    np.testing.assert_allclose(h_long, h_short, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(pooled_long, pooled_short, rtol=1e-5, atol=1e-5)


def test_trellis_block_with_a_fully_masked_row_returns_the_initial_state(rng):
    x = rng.normal(size=(2, 4, 4)).astype("float32")
    mask = np.array([[True] * 4, [False] * 4])
    h0, c0 = (rng.normal(size=(2, 8)).astype("float32") for _ in range(2))
    _, h, c = numpy(trellis_block(4)(x, mask=mask, initial_state=[h0, c0]))
    np.testing.assert_allclose(h[1], h0[1], rtol=1e-6)
    np.testing.assert_allclose(c[1], c0[1], rtol=1e-6)
    assert np.all(np.isfinite(h)) and np.all(np.isfinite(c))


def test_trellis_block_dropout_with_a_mask_stays_finite(rng):
    x = rng.normal(size=(3, 6, 4)).astype("float32")
    padded, mask = pad(x, 1, 2)
    block = trellis_block(4, dropout=0.3, weight_dropout=0.2)
    outputs = numpy(block(padded, mask=mask, training=True))
    assert all(np.all(np.isfinite(o)) for o in outputs)


def test_trellisnet_sequence_head_reads_the_last_real_step(rng):
    model = TrellisNet(8, 4, 3, input_dim=2, num_outputs=5, return_sequences=False, dilations=(1, 2))
    x = rng.normal(size=(2, 6, 2)).astype("float32")
    padded, mask = pad(x, 0, 3)
    expected = numpy(model(x))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Keras warns when a layer drops a mask it was given
        last = model(padded, mask=mask)
    np.testing.assert_allclose(numpy(last), expected, rtol=1e-5, atol=1e-5)
    assert model.compute_mask(padded, mask) is None  # no time axis left to mask


def test_trellisnet_carries_the_mask_on_its_sequence_outputs(rng):
    model = TrellisNet(8, 4, 3, input_dim=2, num_outputs=5, dilations=(1, 2))
    padded, mask = pad(rng.normal(size=(2, 6, 2)).astype("float32"), 0, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model(padded, mask=mask)
    np.testing.assert_array_equal(numpy(model.compute_mask(padded, mask)), mask)


@pytest.mark.parametrize("layer", ["scrbm", "lmn"])
def test_recurrent_layers_padding_changes_nothing(rng, layer):
    x = rng.normal(size=(2, 5, 3)).astype("float32")
    make = {
        "scrbm": lambda: SCRBM(4, 3, return_state=True),
        "lmn": lambda: LMN(4, 5, return_sequences=True, return_state=True),
    }
    model = make[layer]()
    out, state = numpy(model(x))
    for before, after in ((0, 3), (3, 0)):
        padded, mask = pad(x, before, after, value=5.0)
        padded_out, padded_state = numpy(model(padded, mask=mask))
        np.testing.assert_allclose(padded_state, state, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(padded_out[:, before : before + 5], out, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "make",
    [lambda: SCRBM(4, 3), lambda: LMN(4, 5), lambda: TrellisBlock(8, 3, num_levels=2)],
    ids=["SCRBM", "LMN", "TrellisBlock"],
)
def test_sequences_of_length_zero_are_refused(make):
    with pytest.raises(ValueError, match="at least one time step"):
        make()(np.zeros((2, 0, 3), "float32"))


@pytest.mark.parametrize(
    "make",
    [
        lambda: SCRBM(4, 3),
        lambda: LMN(4, 5),
        lambda: trellis_block(4),
        lambda: LastStep(),
        lambda: MaskedGlobalMaxPooling1D(),
        lambda: NgramConvolution(2),
    ],
    ids=["SCRBM", "LMN", "TrellisBlock", "LastStep", "MaskedGlobalMaxPooling1D", "NgramConvolution"],
)
def test_mask_of_the_wrong_shape_is_refused(rng, make):
    x = rng.normal(size=(2, 5, 4)).astype("float32")
    with pytest.raises(ValueError, match=r"`mask` must have shape \(batch, time\) = \(2, 5\); got \(2, 4\)"):
        make()(x, mask=np.ones((2, 4), bool))
    with pytest.raises(ValueError, match=r"`mask` must have shape \(batch, time\) = \(2, 5\); got \(2, 8\)"):
        make()(x, mask=np.ones((2, 8), bool))


@pytest.mark.parametrize(
    "make",
    [lambda: SCRBM(4, 3), lambda: LMN(4, 5), lambda: TrellisBlock(8, 3, num_levels=2)],
    ids=["SCRBM", "LMN", "TrellisBlock"],
)
def test_a_built_layer_refuses_another_feature_size(rng, make):
    layer = make()
    layer(rng.normal(size=(2, 5, 3)).astype("float32"))
    with pytest.raises(
        ValueError,
        match=r"expected axis -1 of input shape to have value 3, but received input with "
        r"shape \(2, 5, 4\)",
    ):
        layer(rng.normal(size=(2, 5, 4)).astype("float32"))


def test_sequence_layers_refuse_inputs_without_a_time_axis():
    with pytest.raises(ValueError, match=r"LastStep inputs must have shape \(batch, time, \.\.\.\); got shape \(4,\)"):
        LastStep()(np.zeros((4,), "float32"))
    with pytest.raises(ValueError, match=r"MaskedGlobalMaxPooling1D inputs must have rank 3 .*got shape \(4, 7\)"):
        MaskedGlobalMaxPooling1D()(np.zeros((4, 7), "float32"))
    with pytest.raises(ValueError, match=r"NgramConvolution inputs must have rank 3 .*got shape \(4, 7\)"):
        NgramConvolution(2)(np.zeros((4, 7), "float32"))
    with pytest.raises(ValueError, match=r"`widths` must be an integer >= 1; got 2.5"):
        NgramConvolution(2, widths=(2.5,))
    with pytest.raises(ValueError, match=r"`filters` must be an integer >= 1; got 2.7"):
        NgramConvolution(2.7)
