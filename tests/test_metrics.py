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
