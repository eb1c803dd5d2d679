"""Padding-aware n-gram convolutions for text-style CNNs (Kim 2014; Favre,
"Deep learning for NLP: CNNs and RNNs", slides 6-8).

- `NgramConvolution`: parallel 1-D convolutions of several widths over the
  step features (each filter detects an "embedding n-gram"), with centred
  ("same") windows, concatenated along the features. Padded steps are zeroed
  before the convolutions, so a real step's output is the same whether the
  sequence is padded or not: a window that reaches past the end of a
  sequence sees zeros either way.
- `MaskedGlobalMaxPooling1D`: max-pooling over time (the position-independent
  "bag of n-grams") over real steps only.

Both read the Keras mask (from `Embedding(mask_zero=True)` or `Masking`).
"""

import keras
from keras import ops

from keras_seq.layers import validation


def _zero_padded_steps(inputs, mask):
    """`inputs` with every step where `mask` is False set to zero."""
    if mask is None:
        return inputs
    keep = ops.expand_dims(ops.cast(mask, "bool"), axis=-1)
    return ops.where(keep, inputs, ops.zeros_like(inputs))


@keras.saving.register_keras_serializable(package="keras_seq")
class NgramConvolution(keras.layers.Layer):
    """Convolutions of several widths over masked sequences.

    Args:
        filters: Positive integer, filters per width.
        widths: Window widths (n-gram lengths), e.g. `(3, 5)`. Windows are
            centred: odd widths see `(w - 1) / 2` steps each side; even
            widths one step more to the right.
        activation: Activation of the convolutions. Default: `"relu"`.
        kernel_initializer: Initializer of the convolution kernels.
        kernel_regularizer: Optional regularizer of the kernels.
        **kwargs: Base `Layer` arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: `(batch, time, features)`.
        mask: Optional boolean `(batch, time)`, `True` on real steps.

    Returns:
        `(batch, time, filters * len(widths))`, zero on padded steps; the
        mask passes through unchanged.

    Example:

    >>> layer = NgramConvolution(4, widths=(2, 3))
    >>> tuple(layer(np.zeros((2, 7, 5), "float32")).shape)
    (2, 7, 8)
    """

    def __init__(
        self,
        filters,
        widths=(3, 5),
        activation="relu",
        kernel_initializer="glorot_uniform",
        kernel_regularizer=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        validation.positive_int("filters", filters)
        if not widths:
            raise ValueError(f"`widths` must be a non-empty sequence of positive integers; got {widths!r}.")
        for width in widths:
            validation.positive_int("widths", width)
        self.filters = int(filters)
        self.widths = tuple(int(w) for w in widths)
        self.activation = keras.activations.get(activation)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.kernel_regularizer = keras.regularizers.get(kernel_regularizer)
        self.convolutions = [
            keras.layers.Conv1D(
                self.filters,
                width,
                padding="same",
                activation=self.activation,
                kernel_initializer=self.kernel_initializer,
                kernel_regularizer=self.kernel_regularizer,
                dtype=self.dtype_policy,
                name=f"width_{width}",
            )
            for width in self.widths
        ]
        self.supports_masking = True

    def build(self, input_shape):
        validation.rank("NgramConvolution inputs", input_shape, 3, "(batch, time, features)")
        for convolution in self.convolutions:
            convolution.build(input_shape)

    def call(self, inputs, mask=None):
        mask = validation.sequence_mask("NgramConvolution inputs", inputs, mask)
        inputs = _zero_padded_steps(inputs, mask)
        outputs = ops.concatenate([convolution(inputs) for convolution in self.convolutions], axis=-1)
        return _zero_padded_steps(outputs, mask)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-1]) + (self.filters * len(self.widths),)

    def compute_mask(self, inputs, mask=None):
        return mask

    def get_config(self):
        return {
            **super().get_config(),
            "filters": self.filters,
            "widths": list(self.widths),
            "activation": keras.activations.serialize(self.activation),
            "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
            "kernel_regularizer": keras.regularizers.serialize(self.kernel_regularizer)
            if self.kernel_regularizer
            else None,
        }


@keras.saving.register_keras_serializable(package="keras_seq")
class MaskedGlobalMaxPooling1D(keras.layers.Layer):
    """Max over the real steps of each sequence (`keras.layers.
    GlobalMaxPooling1D` ignores masks). A sequence with no real step pools
    to zeros.

    Call arguments:
        inputs: `(batch, time, features)`.
        mask: Optional boolean `(batch, time)`, `True` on real steps.

    Returns:
        `(batch, features)`, with no mask.

    Example:

    >>> x = np.array([[[1.0], [5.0], [9.0]]], "float32")
    >>> pooled = MaskedGlobalMaxPooling1D()(x, mask=np.array([[True, True, False]]))
    >>> keras.ops.convert_to_numpy(pooled)
    array([[5.]], dtype=float32)
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        mask = validation.sequence_mask("MaskedGlobalMaxPooling1D inputs", inputs, mask)
        if mask is None:
            return ops.max(inputs, axis=1)
        real = ops.expand_dims(ops.cast(mask, "bool"), axis=-1)
        lowest = ops.full_like(inputs, float("-inf"))
        pooled = ops.max(ops.where(real, inputs, lowest), axis=1)
        return ops.where(ops.any(real, axis=1), pooled, ops.zeros_like(pooled))

    def compute_output_shape(self, input_shape):
        return (input_shape[0], input_shape[-1])

    def compute_mask(self, inputs, mask=None):
        return None
