"""Sequence Classification RBM (Tran et al., "Linear-Time Sequence
Classification using Restricted Boltzmann Machines").

The equations live in `SCRBMCell`; `SCRBM` runs the cell over a sequence and
adds the teacher-forcing call (`labels=`).
"""

import keras
from keras import activations
from keras import constraints
from keras import initializers
from keras import ops
from keras import regularizers
from keras_seq.layers import validation
from keras_seq.layers.carried_output import CarriedOutputCell
from keras_seq.layers.carried_output import CarriedOutputRNN

# Keras keeps the dropout-mask machinery of its RNN cells in this mixin; it has
# no public alias, and `keras.layers.RNN` only pre-creates masks (which JAX's
# scan needs) for cells that inherit from it.
from keras.src.layers.rnn.dropout_rnn_cell import DropoutRNNCell

_LOW_PRECISION = ("float16", "bfloat16")


def _softplus(z):
    """`log(1 + exp(z))`, stable for any z, exact gradient `sigmoid(z)` (also
    at 0). Written out because it is the cell's hot spot and this form runs
    3-5x faster than `ops.softplus` under JAX and PyTorch (bench/scrbm.py)."""
    magnitude = ops.abs(z)
    return 0.5 * (z + magnitude) + ops.log1p(ops.exp(-magnitude))


@keras.saving.register_keras_serializable(package="keras_seq")
class SCRBMCell(keras.layers.Layer, CarriedOutputCell, DropoutRNNCell):
    """One time step of the Sequence Classification RBM.

    With `a_t = x_t W + h_{t-1} W_hh + c` (the shared pre-activation), the cell
    computes, for every class `y` at once:

    - the free energy (eq. 7, recurrent term of eq. 4 kept)
      `F(y) = -b_y - sum_j softplus(a_t[j] + U[y, j])`;
    - the class posterior (eq. 6) `p_t = softmax(-F)`;
    - the mean-field hidden state (eq. 5) `h_t = sigmoid(a_t + e_t U)`, where
      `e_t = p_t` in inference (Algorithm 1: the expected label, not the
      argmax) and `e_t = onehot(y_t)` under teacher forcing (learning, eq. 12).

    The free energy is one `(batch, num_classes, units)` softplus tensor, with
    no loop over classes; in mixed precision it is reduced in float32.

    States: `[p_{t-1}, h_t]`. The hidden state `h` (`units` wide) is the
    model's memory; the previous output `p_{t-1}` (`num_classes` wide) rides
    in front of it because Keras' masked scan on JAX takes the first state as
    the output to repeat at padded steps. It never enters the equations, and
    `SCRBM` hides it (its `initial_state` and `return_state` are `h` alone).

    Teacher forcing in a bare `keras.layers.RNN`: `RNN` passes one tensor per
    step, so the labels travel with the inputs. Build the cell with
    `teacher_forcing=True` and feed `concatenate([x, onehot(y)], axis=-1)`, one
    `(batch, time, input_dim + num_classes)` tensor (the label part may also be
    a distribution over classes). The cell reads the step width: a step of
    `input_dim` features runs Algorithm 1, a step of `input_dim + num_classes`
    runs teacher forcing, with the same weights. `keras_seq.layers.SCRBM` does
    this concatenation for you (`SCRBM(...)(x, labels=y)`).

    Args:
        units: Positive integer, number of hidden units.
        num_classes: Integer >= 2, number of classes `K`.
        return_logits: If `True` the output is the logits `-F(y)`; by default
            the class probabilities `p_t`.
        teacher_forcing: Whether the input the cell is built on carries the
            one-hot labels after the features (see above). Default `False`.
        kernel_initializer: Initializer for `kernel` (`W`).
            Default `"glorot_uniform"`.
        recurrent_initializer: Initializer for `recurrent_kernel` (`W_hh`).
            Default `"orthogonal"`.
        label_initializer: Initializer for `label_kernel` (`U`).
            Default `"glorot_uniform"`.
        bias_initializer: Initializer for `bias` (`c`). Default `"zeros"`.
        label_bias_initializer: Initializer for `label_bias` (`b`).
            Default `"zeros"`.
        kernel_regularizer, recurrent_regularizer, label_regularizer,
        bias_regularizer, label_bias_regularizer: Regularizers of the
            matching weights. Default `None`.
        kernel_constraint, recurrent_constraint, label_constraint,
        bias_constraint, label_bias_constraint: Constraints of the matching
            weights. Default `None`.
        dropout: Float in [0, 1), fraction of the input features dropped (one
            mask per sequence, as in Keras' RNN cells). Never applied to the
            labels.
        recurrent_dropout: Float in [0, 1), fraction of `h_{t-1}` dropped.
        seed: Random seed for dropout.

    Call arguments:
        inputs: A 2D tensor `(batch, input_dim)`, or
            `(batch, input_dim + num_classes)` for teacher forcing.
        states: `[p_{t-1}, h_{t-1}]`, shapes `(batch, num_classes)` and
            `(batch, units)`.
        training: Python boolean; enables dropout.

    Returns:
        `(output, [output, h_t])`: `output` is `(batch, num_classes)`
        probabilities (or logits), `h_t` is `(batch, units)`.

    Example:

    ```python
    x = np.random.random((8, 20, 16)).astype("float32")
    rnn = keras.layers.RNN(SCRBMCell(32, 5), return_sequences=True)
    probs = rnn(x)  # (8, 20, 5), Algorithm 1
    ```
    """

    def __init__(
        self,
        units,
        num_classes,
        return_logits=False,
        teacher_forcing=False,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        label_initializer="glorot_uniform",
        bias_initializer="zeros",
        label_bias_initializer="zeros",
        kernel_regularizer=None,
        recurrent_regularizer=None,
        label_regularizer=None,
        bias_regularizer=None,
        label_bias_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        label_constraint=None,
        bias_constraint=None,
        label_bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        **kwargs,
    ):
        validation.positive_int("units", units)
        validation.positive_int("num_classes", num_classes, minimum=2)
        validation.rate("dropout", dropout)
        validation.rate("recurrent_dropout", recurrent_dropout)
        super().__init__(**kwargs)
        self.units = int(units)
        self.num_classes = int(num_classes)
        self.return_logits = bool(return_logits)
        self.teacher_forcing = bool(teacher_forcing)

        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.label_initializer = initializers.get(label_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.label_bias_initializer = initializers.get(label_bias_initializer)

        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.label_regularizer = regularizers.get(label_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.label_bias_regularizer = regularizers.get(label_bias_regularizer)

        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.label_constraint = constraints.get(label_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.label_bias_constraint = constraints.get(label_bias_constraint)

        self.dropout = float(dropout)
        self.recurrent_dropout = float(recurrent_dropout)
        self.seed = seed
        self.seed_generator = keras.random.SeedGenerator(seed)

        self.state_size = [self.num_classes, self.units]
        self.output_size = self.num_classes
        self.input_dim = None

    def build(self, input_shape):
        validation.rank("SCRBMCell step input", input_shape, 2, "(batch, features)")
        width = input_shape[-1]
        if width is None:
            raise ValueError(
                "SCRBMCell needs a known feature dimension; got step input "
                f"shape {tuple(input_shape)}."
            )
        self.input_dim = width - self.num_classes if self.teacher_forcing else width
        if self.input_dim < 1:
            raise ValueError(
                "SCRBMCell(teacher_forcing=True) expects features followed by "
                f"num_classes={self.num_classes} one-hot label columns, but the "
                f"step input has only {width} columns."
            )
        self.kernel = self.add_weight(
            shape=(self.input_dim, self.units),
            name="kernel",
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.recurrent_kernel = self.add_weight(
            shape=(self.units, self.units),
            name="recurrent_kernel",
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
        )
        self.label_kernel = self.add_weight(
            shape=(self.num_classes, self.units),
            name="label_kernel",
            initializer=self.label_initializer,
            regularizer=self.label_regularizer,
            constraint=self.label_constraint,
        )
        self.bias = self.add_weight(
            shape=(self.units,),
            name="bias",
            initializer=self.bias_initializer,
            regularizer=self.bias_regularizer,
            constraint=self.bias_constraint,
        )
        self.label_bias = self.add_weight(
            shape=(self.num_classes,),
            name="label_bias",
            initializer=self.label_bias_initializer,
            regularizer=self.label_bias_regularizer,
            constraint=self.label_bias_constraint,
        )

    def call(self, inputs, states, training=False):
        h_prev = states[1]
        x, labels = self._split_labels(inputs)
        dp_mask = self.get_dropout_mask(inputs)
        rec_dp_mask = self.get_recurrent_dropout_mask(h_prev)
        if training and dp_mask is not None:
            x = x * dp_mask[:, : self.input_dim]
        if training and rec_dp_mask is not None:
            h_prev = h_prev * rec_dp_mask

        pre_activation = (
            ops.matmul(x, self.kernel)
            + ops.matmul(h_prev, self.recurrent_kernel)
            + self.bias
        )
        logits = self.class_logits(pre_activation)
        probabilities = ops.softmax(logits, axis=-1)
        expected_label = probabilities if labels is None else labels
        h = activations.sigmoid(
            pre_activation + ops.matmul(expected_label, self.label_kernel)
        )
        output = logits if self.return_logits else probabilities
        return output, [output, h]

    def class_logits(self, pre_activation):
        """Logits `-F(y)` of every class (eq. 6-7) from `a_t`, `(batch, K)`."""
        per_class = ops.expand_dims(pre_activation, 1) + self.label_kernel
        if self.compute_dtype in _LOW_PRECISION:
            per_class = ops.cast(per_class, "float32")
        free_energy_sum = ops.sum(_softplus(per_class), axis=-1)
        return ops.cast(free_energy_sum, self.compute_dtype) + self.label_bias

    def _split_labels(self, inputs):
        width = inputs.shape[-1]
        if width == self.input_dim:
            return inputs, None
        if width == self.input_dim + self.num_classes:
            x = inputs[:, : self.input_dim]
            labels = ops.cast(inputs[:, self.input_dim :], self.compute_dtype)
            return x, labels
        raise ValueError(
            f"SCRBMCell was built for {self.input_dim} input features: a step "
            f"must have {self.input_dim} columns (inference) or "
            f"{self.input_dim + self.num_classes} (features + "
            f"num_classes={self.num_classes} one-hot labels, teacher forcing); "
            f"got {width}."
        )

    @property
    def memory_size(self):
        return self.units

    def get_initial_state(self, batch_size=None):
        return [
            ops.zeros((batch_size, self.num_classes), dtype=self.compute_dtype),
            ops.zeros((batch_size, self.units), dtype=self.compute_dtype),
        ]

    def get_config(self):
        config = {
            "units": self.units,
            "num_classes": self.num_classes,
            "return_logits": self.return_logits,
            "teacher_forcing": self.teacher_forcing,
            "dropout": self.dropout,
            "recurrent_dropout": self.recurrent_dropout,
            "seed": self.seed,
        }
        config.update(validation.weight_options_config(self, ("kernel", "recurrent", "label", "bias", "label_bias")))
        return {**super().get_config(), **config}


@keras.saving.register_keras_serializable(package="keras_seq")
class SCRBM(CarriedOutputRNN):
    """Sequence Classification RBM over a whole sequence.

    An RNN over `SCRBMCell` returning one class distribution per step. Called
    without labels it runs the paper's linear-time inference (Algorithm 1:
    the hidden state is updated with the expected label). Called with
    `labels=` it runs teacher forcing (eq. 12: the hidden state is updated
    with the true label), which is how the paper trains. Both share the same
    weights, so a model trained with labels predicts without them.

    Args:
        units: Positive integer, number of hidden units.
        num_classes: Integer >= 2, number of classes.
        return_logits: Output logits instead of probabilities.
        return_sequences: Whether to return the output of every step
            (default `True`, as sequence labelling needs) or of the last.
        return_state: Whether to also return the last hidden state.
        go_backwards, stateful, unroll, zero_output_for_mask: As in
            `keras.layers.RNN`.
        **kwargs: Every other argument of `SCRBMCell` (initializers,
            regularizers, constraints, `dropout`, `recurrent_dropout`,
            `seed`) and of `keras.layers.Layer` (`name`, `dtype`, ...).

    Call arguments:
        inputs: `(batch, time, features)`.
        labels: Optional. Class ids `(batch, time)` or one-hot / label
            distributions `(batch, time, num_classes)`. Given: teacher
            forcing; absent: Algorithm 1.
        mask: Optional boolean `(batch, time)`; masked steps keep the state
            and are excluded from losses and metrics downstream.
        training: Python boolean; enables dropout.
        initial_state: Optional initial hidden state `(batch, units)`.

    Returns:
        `(batch, time, num_classes)` probabilities (or logits), plus the last
        state `(batch, units)` when `return_state=True`.

    Example:

    ```python
    x = keras.Input((None, 16))
    y = keras.Input((None,), dtype="int32")
    scrbm = SCRBM(64, num_classes=5)
    trainer = keras.Model([x, y], scrbm(x, labels=y))   # teacher forcing
    predictor = keras.Model(x, scrbm(x))                # Algorithm 1
    ```
    """

    memory_name = "h_0"
    memory_size_name = "units"

    def __init__(
        self,
        units,
        num_classes,
        return_logits=False,
        return_sequences=True,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        zero_output_for_mask=False,
        **kwargs,
    ):
        cell_kwargs = {
            key: kwargs.pop(key)
            for key in list(kwargs)
            if key in _CELL_ARGUMENTS
        }
        cell = SCRBMCell(
            units,
            num_classes,
            return_logits=return_logits,
            dtype=kwargs.get("dtype"),
            trainable=kwargs.get("trainable", True),
            name="scrbm_cell",
            **cell_kwargs,
        )
        super().__init__(
            cell,
            return_sequences=return_sequences,
            return_state=return_state,
            go_backwards=go_backwards,
            stateful=stateful,
            unroll=unroll,
            zero_output_for_mask=zero_output_for_mask,
            **kwargs,
        )

    def build(self, sequences_shape, labels_shape=None, initial_state_shape=None):
        validation.rank("SCRBM inputs", sequences_shape, 3, "(batch, time, features)")
        super().build(sequences_shape, initial_state_shape)

    def compute_output_shape(
        self, sequences_shape, labels_shape=None, initial_state_shape=None
    ):
        return super().compute_output_shape(sequences_shape)

    def call(self, sequences, labels=None, initial_state=None, mask=None, training=False):
        validation.rank("SCRBM inputs", sequences.shape, 3, "(batch, time, features)")
        if labels is not None:
            sequences = ops.concatenate(
                [sequences, self._label_distribution(labels, sequences)], axis=-1
            )
        return super().call(
            sequences, initial_state=initial_state, mask=mask, training=training
        )

    def _label_distribution(self, labels, sequences):
        num_classes = self.cell.num_classes
        validation.labels(labels, sequences.shape, num_classes)
        if len(labels.shape) == 2:
            labels = ops.one_hot(ops.cast(labels, "int32"), num_classes)
        return ops.cast(labels, sequences.dtype)

    @property
    def units(self):
        return self.cell.units

    @property
    def num_classes(self):
        return self.cell.num_classes

    def get_config(self):
        config = super().get_config()
        cell_config = config.pop("cell")["config"]
        for key in ("name", "trainable", "dtype", "teacher_forcing"):
            cell_config.pop(key, None)
        return {**config, **cell_config}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


_CELL_ARGUMENTS = frozenset(
    [
        "kernel_initializer",
        "recurrent_initializer",
        "label_initializer",
        "bias_initializer",
        "label_bias_initializer",
        "kernel_regularizer",
        "recurrent_regularizer",
        "label_regularizer",
        "bias_regularizer",
        "label_bias_regularizer",
        "kernel_constraint",
        "recurrent_constraint",
        "label_constraint",
        "bias_constraint",
        "label_bias_constraint",
        "dropout",
        "recurrent_dropout",
        "seed",
    ]
)
