"""The SCRBM's floor: the free energy of every step computed at once, with
no recurrence, as a Keras layer the OCR section times beside the SCRBM.

An SCRBM training step computes at least what this layer computes (the
input projection `x W + c`, the `(batch, classes, units)` free energy of
eq. 7 at every step and its gradient) and adds the recurrence on top, so
this layer's training step bounds the SCRBM's from below on the machine it
runs on. `form="plain"` is the softplus of every `(step, class, unit)`
(the elementwise throughput bound); `form="fast"` is the factorised form
the SCRBM uses (`keras_seq.layers.scrbm.softplus_sum`).
"""

import keras
from keras import ops

from keras_seq.layers import scrbm

FORMS = {"plain": scrbm.plain_softplus_sum, "fast": scrbm.softplus_sum}


class FreeEnergyFloor(keras.layers.Layer):
    """Logits `b_y + sum_j softplus((x_t W + c)_j + U[y, j])` of every step,
    `(batch, time, classes)`, with the SCRBM's weights minus the recurrent
    kernel."""

    def __init__(self, units, num_classes, form="plain", **kwargs):
        super().__init__(**kwargs)
        if form not in FORMS:
            raise ValueError(f"form must be one of {sorted(FORMS)}, got {form!r}")
        self.units, self.num_classes, self.form = units, num_classes, form

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), name="kernel")
        self.bias = self.add_weight(shape=(self.units,), initializer="zeros", name="bias")
        self.label_kernel = self.add_weight(shape=(self.num_classes, self.units), name="label_kernel")
        self.label_bias = self.add_weight(shape=(self.num_classes,), initializer="zeros", name="label_bias")

    def call(self, sequences):
        batch, steps = ops.shape(sequences)[0], ops.shape(sequences)[1]
        projected = ops.reshape(ops.matmul(sequences, self.kernel) + self.bias, (-1, self.units))
        label_kernel = ops.cast(self.label_kernel, self.label_kernel.dtype)
        logits = FORMS[self.form](projected, label_kernel) + self.label_bias
        return ops.reshape(logits, (batch, steps, self.num_classes))

    def get_config(self):
        return {**super().get_config(), "units": self.units, "num_classes": self.num_classes, "form": self.form}
