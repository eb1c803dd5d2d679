"""Property-based tests (hypothesis) of the three layers over batch size,
length (1 included), feature sizes, class counts and masks with leading and
trailing padding per row (and fully masked rows): output shapes, finite
values, and mask invariance (padding never changes a real step's output or
the final state: each row equals its unpadded run alone)."""

import keras
import numpy as np
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from keras_seq.layers import LMN
from keras_seq.layers import SCRBM
from keras_seq.layers import TrellisBlock

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def padded_batches(draw):
    """Rows of real lengths >= 1 with leading and trailing padding, maybe a
    fully masked row; returns (x, mask, [(start, length) or None per row])."""
    rows = draw(st.integers(1, 3))
    features = draw(st.integers(1, 4))
    spans = [(draw(st.integers(0, 2)), draw(st.integers(1, 5))) for _ in range(rows)]
    total = max(start + length for start, length in spans) + draw(st.integers(0, 2))
    if draw(st.booleans()):
        spans.append(None)  # nothing real in this row
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(len(spans), total, features)).astype("float32")
    mask = np.zeros(x.shape[:2], bool)
    for row, span in enumerate(spans):
        if span is not None:
            mask[row, span[0] : span[0] + span[1]] = True
    x[~mask] = rng.normal(size=x[~mask].shape) * 100  # padding values must not matter
    return x, mask, spans, seed


def randomize(layer, seed):
    rng = np.random.default_rng(seed)
    layer.set_weights([rng.normal(size=w.shape).astype("float32") * 0.5 for w in layer.get_weights()])


def check_mask_invariance(layer, x, mask, spans, width):
    """`layer` returns (sequence outputs, final state)."""
    outputs, state = (keras.ops.convert_to_numpy(t) for t in layer(x, mask=mask))
    assert outputs.shape == x.shape[:2] + (width,)
    assert np.all(np.isfinite(outputs)) and np.all(np.isfinite(state))
    for row, span in enumerate(spans):
        if span is None:
            continue
        start, length = span
        alone = x[row : row + 1, start : start + length]
        row_outputs, row_state = (keras.ops.convert_to_numpy(t) for t in layer(alone))
        np.testing.assert_allclose(outputs[row, start : start + length], row_outputs[0], rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(state[row], row_state[0], rtol=1e-4, atol=1e-5)


@SETTINGS
@given(padded_batches(), st.integers(2, 4), st.booleans())
def test_scrbm_properties(batch, classes, teacher_forcing):
    x, mask, spans, seed = batch
    layer = SCRBM(3, classes, return_state=True)
    layer.build(x.shape)
    randomize(layer.cell, seed)
    if teacher_forcing:
        labels = np.random.default_rng(seed).integers(0, classes, size=x.shape[:2])
        labels[~mask] = -1  # padding labels are never read
        outputs, state = (keras.ops.convert_to_numpy(t) for t in layer(x, labels=labels, mask=mask))
        assert outputs.shape == x.shape[:2] + (classes,)
        assert np.all(np.isfinite(outputs)) and np.all(np.isfinite(state))
        for row, span in enumerate(spans):
            if span is not None:
                start, length = span
                part = slice(start, start + length)
                alone = layer(x[row : row + 1, part], labels=labels[row : row + 1, part])
                np.testing.assert_allclose(
                    outputs[row, part], keras.ops.convert_to_numpy(alone[0])[0], rtol=1e-4, atol=1e-5
                )
        return
    check_mask_invariance(layer, x, mask, spans, classes)
    probabilities = keras.ops.convert_to_numpy(layer(x, mask=mask)[0])
    np.testing.assert_allclose(probabilities.sum(-1)[mask], 1.0, rtol=1e-5)  # real steps


@SETTINGS
@given(padded_batches(), st.integers(1, 4), st.sampled_from(["functional", "memory"]))
def test_lmn_properties(batch, memory_units, output):
    x, mask, spans, seed = batch
    layer = LMN(3, memory_units, output=output, return_sequences=True, return_state=True)
    layer.build(x.shape)
    randomize(layer, seed)
    width = 3 if output == "functional" else memory_units
    check_mask_invariance(layer, x, mask, spans, width)


@SETTINGS
@given(padded_batches(), st.integers(1, 3), st.sampled_from([(1,), (1, 2), (2, 4)]), st.integers(1, 3))
def test_trellis_block_properties(batch, levels, dilations, kernel_size):
    x, mask, spans, seed = batch
    layer = TrellisBlock(6, 2, num_levels=levels, dilations=dilations, kernel_size=kernel_size, return_state=True)
    layer.build(x.shape)
    randomize(layer, seed)

    def outputs_and_h(inputs, **kwargs):
        outputs, h, _ = layer(inputs, **kwargs)
        return outputs, h

    check_mask_invariance(outputs_and_h, x, mask, spans, 2)
