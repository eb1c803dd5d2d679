import numpy as np
import pytest

from keras_seq.metrics import labelling_errors


def test_sequence_error_averages_over_sequences_not_tokens():
    y_true = np.array([[1, 1, 1, 1], [2, 2, 0, 0]])
    y_pred = np.array([[1, 1, 1, 0], [0, 0, 5, 5]])
    mask = np.array([[1, 1, 1, 1], [1, 1, 0, 0]], bool)
    sequence_error, token_error = labelling_errors(y_true, y_pred, mask)
    assert sequence_error == pytest.approx((1 / 4 + 2 / 2) / 2)
    assert token_error == pytest.approx(3 / 6)


def test_labelling_errors_reject_bad_input():
    with pytest.raises(ValueError, match="shapes"):
        labelling_errors(np.zeros((2, 3)), np.zeros((2, 4)))
    with pytest.raises(ValueError, match="no valid step"):
        labelling_errors(np.zeros((2, 3)), np.zeros((2, 3)), np.zeros((2, 3)))


from keras_seq import metrics  # noqa: E402


def _masked_rolls(rng):
    y_true = (rng.random((3, 6, 10)) < 0.3).astype("float32")
    probs = rng.random((3, 6, 10)).astype("float32")
    mask = np.array([[1] * 6, [1] * 4 + [0] * 2, [1] + [0] * 5], "float32")
    return y_true, probs, mask


def test_frame_accuracy_matches_bay_et_al(rng):
    y_true, probs, mask = _masked_rolls(rng)
    metric = metrics.FrameAccuracy()
    metric.update_state(y_true[:2], probs[:2], mask[:2])
    metric.update_state(y_true[2:], probs[2:], mask[2:])
    on, truth = (probs >= 0.5) & (mask[..., None] > 0), (y_true > 0) & (mask[..., None] > 0)
    tp = (on & truth).sum()
    expected = tp / (tp + (on & ~truth).sum() + (~on & truth).sum())
    np.testing.assert_allclose(float(metric.result()), expected, rtol=1e-6)


def test_frame_nll_sums_notes_and_averages_real_frames(rng):
    y_true, probs, mask = _masked_rolls(rng)
    metric = metrics.FrameNLL()
    metric.update_state(y_true, probs, mask)
    p = np.clip(probs, 1e-7, 1 - 1e-7)
    per_frame = -(y_true * np.log(p) + (1 - y_true) * np.log(1 - p)).sum(-1)
    np.testing.assert_allclose(float(metric.result()), (per_frame * mask).sum() / mask.sum(), rtol=1e-4)


def test_bits_per_event_and_sequence_error_respect_the_mask(rng):
    logits = rng.normal(size=(3, 6, 5)).astype("float32")
    y_true = rng.integers(0, 5, (3, 6))
    mask = np.array([[1] * 6, [1] * 4 + [0] * 2, [0] * 6], "float32")
    bits = metrics.BitsPerEvent(from_logits=True)
    bits.update_state(y_true, logits, mask)
    log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    picked = np.take_along_axis(log_p, y_true[..., None], -1)[..., 0]
    np.testing.assert_allclose(float(bits.result()), -(picked * mask).sum() / mask.sum() / np.log(2), rtol=1e-5)

    error = metrics.SequenceLabellingError()
    error.update_state(y_true, logits, mask)
    expected, _ = labelling_errors(y_true[:2], logits[:2].argmax(-1), mask[:2] > 0)
    np.testing.assert_allclose(float(error.result()), expected, rtol=1e-6)


def test_metrics_inside_compiled_evaluate(rng):
    import keras

    x = (rng.random((8, 5, 6)) < 0.4).astype("float32")
    y = (rng.random((8, 5, 6)) < 0.4).astype("float32")
    weights = (np.arange(5) < rng.integers(1, 6, (8, 1))).astype("float32")
    model = keras.Sequential([keras.Input((5, 6)), keras.layers.Dense(6, activation="sigmoid")])
    model.compile(loss="binary_crossentropy", weighted_metrics=[metrics.FrameAccuracy(), metrics.FrameNLL()])
    results = model.evaluate(x, y, sample_weight=weights, batch_size=3, return_dict=True, verbose=0)
    reference = metrics.FrameAccuracy()
    reference.update_state(y, model.predict(x, verbose=0), weights)
    np.testing.assert_allclose(results["frame_accuracy"], float(reference.result()), rtol=1e-5)
