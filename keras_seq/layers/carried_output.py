"""Cells whose output is not their memory, made to work with Keras' RNN.

On padded (masked) steps `keras.layers.RNN` repeats the previous output. Its
JAX scan takes that output from the FIRST state, so a cell whose output
differs from its memory (SCRBM: class probabilities vs `h`; LMN-A: `h` vs the
memory `m`) carries its previous output as the first state, in front of the
memory. These two classes keep that detail out of the user's way:

- `CarriedOutputCell` sizes the recurrent dropout mask to the memory (Keras
  pre-creates it from the first state);
- `CarriedOutputRNN` takes and returns the memory alone as the initial and
  final state.
"""

from keras import ops
from keras.layers import RNN

from keras_seq.layers import validation


class CarriedOutputCell:
    """Mixin (before `DropoutRNNCell`) for cells with states
    `[previous output, memory]`. Subclasses define `memory_size`."""

    memory_size = None

    def get_recurrent_dropout_mask(self, step_input):
        if self.recurrent_dropout == 0:
            return None
        if getattr(self, "_recurrent_dropout_mask", None) is None:
            step_input = ops.ones((ops.shape(step_input)[0], self.memory_size), dtype=self.compute_dtype)
        return super().get_recurrent_dropout_mask(step_input)


class CarriedOutputRNN(RNN):
    """An RNN whose `initial_state` and `return_state` are the memory alone.

    Subclasses name the memory for error messages (`memory_name`, e.g.
    `"h_0"`, and `memory_size_name`, e.g. `"units"`).
    """

    memory_name = "the memory"
    memory_size_name = "units"

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        shapes = super().compute_output_shape(sequences_shape)
        if self.return_state:
            return shapes[0], shapes[-1]
        return shapes

    def call(self, sequences, initial_state=None, mask=None, training=False, sequences_mask=None):
        mask = self._sequence_mask(sequences, mask, sequences_mask)
        return self._run(sequences, initial_state, mask, training)

    def _sequence_mask(self, sequences, mask, sequences_mask):
        what = f"{self.__class__.__name__} inputs"
        return validation.sequence_mask(what, sequences, mask, sequences_mask)

    def _run(self, sequences, initial_state, mask, training):
        """`call` after the input checks, on checked inputs."""
        if initial_state is not None:
            initial_state = self._full_initial_state(initial_state, sequences)
        outputs = super().call(sequences, initial_state=initial_state, mask=mask, training=training)
        if self.return_state:
            return outputs[0], outputs[-1]
        return outputs

    def _full_initial_state(self, memory, sequences):
        name, size = self.__class__.__name__, self.cell.memory_size
        expected = (sequences.shape[0], size)
        if isinstance(memory, (list, tuple)):
            if len(memory) != 1:
                raise ValueError(
                    f"{name} takes one initial state, {self.memory_name} of shape "
                    f"(batch, {self.memory_size_name}={size}); got {len(memory)} tensors."
                )
            memory = memory[0]
        memory = ops.convert_to_tensor(memory)
        if (
            len(memory.shape) != 2
            or memory.shape[-1] != size
            or (None not in (expected[0], memory.shape[0]) and memory.shape[0] != expected[0])
        ):
            raise ValueError(
                f"{name} initial_state must have shape (batch, {self.memory_size_name}) = "
                f"{expected}; got {tuple(memory.shape)}."
            )
        if len(self.state_size) == 1:
            return [memory]
        no_previous_output = ops.zeros((ops.shape(memory)[0], self.cell.output_size), dtype=memory.dtype)
        return [no_previous_output, memory]
