"""Weight constraints: backend-agnostic, `keras.ops` only."""

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="keras_seq")
class MaxSpectralNorm(keras.constraints.Constraint):
    """Bounds the spectral norm (largest singular value) of a weight matrix.

    After each optimizer step the matrix is scaled back onto the bound when
    it has left it, and left alone otherwise:

        W <- W * min(1, max_value / sigma_max(W))

    For a recurrence `m_t = m_{t-1} W + ...` a spectral norm at most 1 bounds
    the spectral radius by 1, so the state cannot grow geometrically along a
    sequence: the use in this library is the linear memory's own weight
    (`LinearMemoryCell(memory_recurrent_constraint=...)`), whose closed-form
    pretraining yields a spectral norm of 1.

    Args:
        max_value: Positive float, the largest singular value allowed.
            Default `1.0`.

    Example:

    ```python
    cell = LinearMemoryCell(32, 64, memory_recurrent_constraint=MaxSpectralNorm(1.0))
    ```
    """

    def __init__(self, max_value=1.0):
        if isinstance(max_value, bool) or not isinstance(max_value, (int, float)) or not max_value > 0:
            raise ValueError(f"MaxSpectralNorm needs a positive `max_value`; got max_value={max_value!r}.")
        self.max_value = float(max_value)

    def __call__(self, w):
        w = ops.convert_to_tensor(w)
        if len(w.shape) != 2:
            raise ValueError(
                f"MaxSpectralNorm constrains a matrix; got a weight of shape {tuple(w.shape)} (rank {len(w.shape)})."
            )
        largest = ops.max(ops.svd(w, compute_uv=False))
        scale = ops.minimum(1.0, self.max_value / ops.maximum(largest, keras.config.epsilon()))
        return w * ops.cast(scale, w.dtype)

    def get_config(self):
        return {"max_value": self.max_value}


__all__ = ["MaxSpectralNorm"]
