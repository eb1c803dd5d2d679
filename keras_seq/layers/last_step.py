"""The output of each sequence's last real step."""

import keras
from keras import ops

from keras_seq.layers import validation


def last_real_step(sequences, mask=None):
    """`sequences[:, t]` at each row's last step that `mask` keeps
    (`(batch, time, ...)` -> `(batch, ...)`): the last step without a mask;
    step 0 for a row with no real step."""
    if mask is None:
        return sequences[:, -1]
    mask = ops.cast(mask, "int32")
    positions = ops.arange(ops.shape(mask)[1], dtype="int32")
    last = ops.max(mask * ops.expand_dims(positions, 0), axis=1)
    index = ops.reshape(last, (-1,) + (1,) * (len(sequences.shape) - 1))
    return ops.take_along_axis(sequences, index, axis=1)[:, 0]


@keras.saving.register_keras_serializable(package="keras_seq")
class LastStep(keras.layers.Layer):
    """The output of each sequence's last real step.

    `sequences[:, -1]` for unpadded batches; with a mask (given, or carried
    by the input after `Masking`, `Embedding(mask_zero=True)` or a masking
    layer such as `TrellisBlock`), the last step the mask keeps, so that
    trailing padding does not reach a sequence-level head.

    Call arguments:
        sequences: `(batch, time, ...)`.
        mask: Optional boolean `(batch, time)`.

    Returns:
        `(batch, ...)`.

    Example:

    ```python
    x = keras.Input((None, 3))
    h = keras.layers.Masking(0.0)(x)
    h = keras_seq.layers.TrellisBlock(16, 4, num_levels=3)(h)
    y = keras.layers.Dense(2)(keras_seq.layers.LastStep()(h))
    ```
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, sequences, mask=None):
        if len(sequences.shape) < 2:
            raise ValueError(f"LastStep inputs must have shape (batch, time, ...); got shape {tuple(sequences.shape)}.")
        if mask is not None:
            validation.step_mask(mask, sequences.shape)
        return last_real_step(sequences, mask)

    def compute_mask(self, sequences, mask=None):
        return None

    def compute_output_shape(self, sequences_shape):
        return (sequences_shape[0],) + tuple(sequences_shape[2:])
