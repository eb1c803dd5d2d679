"""The papers' evaluation metrics (frame-level accuracy, Bay et al. 2009; sequence
labelling error and bits per event, SCRBM paper eq. 15): a numpy function
for arrays of predictions, and Keras metrics for `model.compile`."""

import keras
import numpy as np
from keras import ops


def labelling_errors(y_true, y_pred, mask=None):
    """Sequence-labelling error of SCRBM eq. 16, and the token-level error.

    Eq. 16 takes, for each sequence, the fraction of wrongly labelled steps,
    then averages over sequences (not over tokens); the token-level error is
    the plain fraction of wrong labels over all valid steps.

    Args:
        y_true: Class ids, `(num_sequences, time)`.
        y_pred: Predicted class ids, same shape.
        mask: Optional boolean `(num_sequences, time)`, `True` on real steps.

    Returns:
        `(sequence_error, token_error)`, both in [0, 1].
    """
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    if y_true.shape != y_pred.shape or y_true.ndim != 2:
        raise ValueError(
            "y_true and y_pred must both be (num_sequences, time) class ids; got "
            f"shapes {y_true.shape} and {y_pred.shape}."
        )
    mask = np.ones(y_true.shape, bool) if mask is None else np.asarray(mask, bool)
    if mask.shape != y_true.shape:
        raise ValueError(f"mask shape {mask.shape} differs from labels {y_true.shape}.")
    lengths = mask.sum(axis=1)
    if np.any(lengths == 0):
        raise ValueError(
            f"{int(np.sum(lengths == 0))} sequence(s) have no valid step; eq. 16 is undefined for empty sequences."
        )
    wrong = (y_true != y_pred) & mask
    per_sequence = wrong.sum(axis=1) / lengths
    return float(per_sequence.mean()), float(wrong.sum() / lengths.sum())


def frame_scores(predictions, targets):
    """Frame-level accuracy (Bay et al. 2009) and NLL per frame.

    `ACC = sum TP / sum (TP + FP + FN)` over every frame of every sequence,
    predictions thresholded at 0.5; NLL = mean over frames of the summed
    binary cross-entropy (nats).
    """
    p = np.concatenate([np.asarray(x, np.float64) for x in predictions])
    y = np.concatenate([np.asarray(x, np.float64) for x in targets])
    on = p >= 0.5
    truth = y >= 0.5
    tp = np.sum(on & truth)
    denominator = tp + np.sum(on & ~truth) + np.sum(~on & truth)
    q = np.clip(p, 1e-7, 1 - 1e-7)
    nll = -np.sum(y * np.log(q) + (1 - y) * np.log(1 - q), axis=-1).mean()
    return {
        "frame_accuracy": float(tp / denominator) if denominator else 1.0,
        "nll": float(nll),
    }


# Keras metrics take `sample_weight` (batch, time) as the mask of real steps
# (what keras_seq.data pipelines yield) and also honour a Keras mask on y_pred.
# Pass them as `weighted_metrics=` in `compile`: Keras gives `metrics=` no
# sample weights.


def _step_weights(y_pred, sample_weight, steps_shape):
    weights = ops.ones(steps_shape, dtype="float32")
    if sample_weight is not None:
        weights = weights * ops.reshape(ops.cast(sample_weight, "float32"), steps_shape)
    mask = getattr(y_pred, "_keras_mask", None)
    if mask is not None:
        weights = weights * ops.cast(mask, "float32")
    return weights


class _RatioMetric(keras.metrics.Metric):
    """numerator / denominator, both accumulated over batches."""

    def __init__(self, name, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.numerator = self.add_variable((), initializer="zeros", name="numerator")
        self.denominator = self.add_variable((), initializer="zeros", name="denominator")

    def _accumulate(self, numerator, denominator):
        self.numerator.assign_add(ops.cast(numerator, self.numerator.dtype))
        self.denominator.assign_add(ops.cast(denominator, self.denominator.dtype))

    def result(self):
        return ops.divide_no_nan(self.numerator, self.denominator)


@keras.saving.register_keras_serializable(package="keras_seq")
class FrameAccuracy(_RatioMetric):
    """Frame-level accuracy of polyphonic transcription (Bay et al. 2009):
    notes on where p >= threshold; `sum TP / sum (TP + FP + FN)` over every
    real frame of every sequence. Inputs `(batch, time, notes)`."""

    def __init__(self, threshold=0.5, from_logits=False, name="frame_accuracy", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.threshold = threshold
        self.from_logits = from_logits

    def update_state(self, y_true, y_pred, sample_weight=None):
        probs = ops.sigmoid(y_pred) if self.from_logits else y_pred
        weights = _step_weights(y_pred, sample_weight, ops.shape(y_true)[:2])[..., None]
        on = ops.cast(probs >= self.threshold, "float32") * weights
        truth = ops.cast(y_true, "float32") * weights
        true_positive = ops.sum(on * truth)
        self._accumulate(true_positive, ops.sum(on) + ops.sum(truth) - true_positive)

    def get_config(self):
        return {**super().get_config(), "threshold": self.threshold, "from_logits": self.from_logits}


@keras.saving.register_keras_serializable(package="keras_seq")
class FrameNLL(_RatioMetric):
    """Mean negative log-likelihood per real frame: the binary cross-entropy
    summed over the notes of a frame (nats). Inputs `(batch, time, notes)`."""

    def __init__(self, from_logits=False, name="frame_nll", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.from_logits = from_logits

    def update_state(self, y_true, y_pred, sample_weight=None):
        weights = _step_weights(y_pred, sample_weight, ops.shape(y_true)[:2])
        per_note = ops.binary_crossentropy(
            ops.cast(y_true, "float32"), ops.cast(y_pred, "float32"), from_logits=self.from_logits
        )
        self._accumulate(ops.sum(ops.sum(per_note, axis=-1) * weights), ops.sum(weights))

    def get_config(self):
        return {**super().get_config(), "from_logits": self.from_logits}


@keras.saving.register_keras_serializable(package="keras_seq")
class BitsPerEvent(_RatioMetric):
    """Cross-entropy in bits per event (SCRBM eq. 15; bits per character for
    character language models): `-sum log2 p(s_t) / number of events`."""

    def __init__(self, from_logits=False, name="bits_per_event", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.from_logits = from_logits

    def update_state(self, y_true, y_pred, sample_weight=None):
        weights = _step_weights(y_pred, sample_weight, ops.shape(y_true))
        nats = ops.sparse_categorical_crossentropy(
            ops.cast(y_true, "int32"), ops.cast(y_pred, "float32"), from_logits=self.from_logits
        )
        self._accumulate(ops.sum(nats * weights) / np.log(2.0), ops.sum(weights))

    def get_config(self):
        return {**super().get_config(), "from_logits": self.from_logits}


@keras.saving.register_keras_serializable(package="keras_seq")
class SequenceLabellingError(_RatioMetric):
    """SCRBM eq. 16: per sequence, the fraction of wrong labels over its real
    steps; averaged over sequences (not tokens). Sequences with no real step
    are left out. Inputs: ids `(batch, time)`, scores `(batch, time, K)`."""

    def __init__(self, name="sequence_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        weights = _step_weights(y_pred, sample_weight, ops.shape(y_true))
        wrong = ops.cast(
            ops.not_equal(ops.cast(y_true, "int32"), ops.cast(ops.argmax(y_pred, axis=-1), "int32")), "float32"
        )
        steps = ops.sum(weights, axis=1)
        has_steps = ops.cast(steps > 0, "float32")
        per_sequence = ops.divide_no_nan(ops.sum(wrong * weights, axis=1), steps)
        self._accumulate(ops.sum(per_sequence * has_steps), ops.sum(has_steps))


@keras.saving.register_keras_serializable(package="keras_seq")
class Perplexity(BitsPerEvent):
    """Perplexity per event, `exp(-sum ln p(s_t) / number of events)`
    (= 2 ** bits per event), accumulated over batches like `BitsPerEvent`
    (word-level language models)."""

    def __init__(self, from_logits=False, name="perplexity", dtype=None):
        super().__init__(from_logits=from_logits, name=name, dtype=dtype)

    def result(self):
        return ops.power(2.0, super().result())
