"""Embedding of steps that carry several id features."""

import keras
from keras import ops

from keras_seq.layers import validation


@keras.saving.register_keras_serializable(package="keras_seq")
class FeatureEmbedding(keras.layers.Layer):
    """The sum of one learned embedding per id column of each step.

    A step of `k` ids (a word, its suffixes, its shape class, ...) becomes

        e_t = sum_j E_j[x_t,j],

    one table `E_j` of `input_dims[j]` rows per column, so a word seen
    nowhere in training is still described by its other features. The
    tables are held as one `embeddings` matrix, the rows of column `j`
    following those of the columns before it.

    Args:
        input_dims: Vocabulary size of each column (ids of column `j` in
            `[0, input_dims[j])`).
        output_dim: Size of the embedding.
        mask_zero: Whether id 0 in the first column is padding; the layer
            then returns the mask `x[..., 0] != 0`.
        embeddings_initializer: Initializer of `embeddings`.
        embeddings_regularizer: Regularizer of `embeddings`.

    Call arguments:
        inputs: Integer `(batch, time, k)`, `k = len(input_dims)`.

    Returns:
        `(batch, time, output_dim)`.

    Example:

    ```python
    x = keras.Input((None, 3), dtype="int32")  # word, suffix, shape ids
    h = keras_seq.layers.FeatureEmbedding((1000, 200, 8), 32)(x)
    y = keras.layers.Dense(10)(keras.layers.LSTM(16, return_sequences=True)(h))
    ```
    """

    def __init__(
        self,
        input_dims,
        output_dim,
        mask_zero=False,
        embeddings_initializer="uniform",
        embeddings_regularizer=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.input_dims = validation.positive_int_sequence("input_dims", input_dims)
        validation.positive_int("output_dim", output_dim)
        self.output_dim = int(output_dim)
        self.mask_zero = bool(mask_zero)
        self.embeddings_initializer = keras.initializers.get(embeddings_initializer)
        self.embeddings_regularizer = keras.regularizers.get(embeddings_regularizer)
        self.supports_masking = self.mask_zero
        offsets, start = [], 0
        for size in self.input_dims:
            offsets.append(start)
            start += size
        self._offsets = offsets

    def build(self, input_shape):
        if len(input_shape) != 3 or input_shape[-1] != len(self.input_dims):
            raise ValueError(
                f"FeatureEmbedding expects ids of shape (batch, time, {len(self.input_dims)}) (one column per "
                f"input_dims entry); got shape {tuple(input_shape)}."
            )
        self.embeddings = self.add_weight(
            shape=(sum(self.input_dims), self.output_dim),
            initializer=self.embeddings_initializer,
            regularizer=self.embeddings_regularizer,
            name="embeddings",
        )

    def call(self, inputs):
        failed = None
        if not isinstance(inputs, keras.KerasTensor):
            failed = validation.id_values("FeatureEmbedding ids", inputs, self.input_dims)
        rows = ops.cast(inputs, "int32") + ops.convert_to_tensor(self._offsets, dtype="int32")
        return validation.guard(ops.sum(ops.take(self.embeddings, rows, axis=0), axis=-2), failed)

    def compute_mask(self, inputs, mask=None):
        return ops.not_equal(inputs[..., 0], 0) if self.mask_zero else None

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:2]) + (self.output_dim,)

    def get_config(self):
        return {
            **super().get_config(),
            "input_dims": list(self.input_dims),
            "output_dim": self.output_dim,
            "mask_zero": self.mask_zero,
            "embeddings_initializer": keras.initializers.serialize(self.embeddings_initializer),
            "embeddings_regularizer": keras.regularizers.serialize(self.embeddings_regularizer),
        }
