"""The papers' evaluation metrics (shared/spec/metrics.md), in numpy."""

import numpy as np


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
            f"{int(np.sum(lengths == 0))} sequence(s) have no valid step; "
            "eq. 16 is undefined for empty sequences."
        )
    wrong = (y_true != y_pred) & mask
    per_sequence = wrong.sum(axis=1) / lengths
    return float(per_sequence.mean()), float(wrong.sum() / lengths.sum())
