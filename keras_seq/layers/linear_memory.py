"""Linear Memory Network (Bacciu, Carta, Sperduti, "Linear Memory Networks",
ICANN 2019).

The equations live in `LinearMemoryCell`; `LMN` runs the cell over a
sequence. The closed-form pretraining of the memory is in
`keras_seq.pretraining`.
"""

import keras
from keras import activations
from keras import constraints
from keras import initializers
from keras import ops
from keras import regularizers

# Keras keeps the dropout-mask machinery of its RNN cells in this mixin; it has
# no public alias, and `keras.layers.RNN` only pre-creates masks (which JAX's
# scan needs) for cells that inherit from it.
from keras.src.layers.rnn.dropout_rnn_cell import DropoutRNNCell

from keras_seq.layers import validation
from keras_seq.layers.carried_output import CarriedOutputCell
from keras_seq.layers.carried_output import CarriedOutputRNN

_OUTPUTS = ("memory", "functional")
# Argument prefix -> weight name (the weight names are public API).
_WEIGHTS = {
    "kernel": "kernel",  # W_xh
    "recurrent": "recurrent_kernel",  # W_mh
    "memory": "memory_kernel",  # W_hm
    "memory_recurrent": "memory_recurrent_kernel",  # W_mm
    "bias": "bias",  # b_h
    "memory_bias": "memory_bias",  # b_m
}


@keras.saving.register_keras_serializable(package="keras_seq")
class LinearMemoryCell(keras.layers.Layer, CarriedOutputCell, DropoutRNNCell):
    """One time step of the Linear Memory Network.

    A nonlinear functional component (`units` wide) and a linear memory
    (`memory_units` wide), in the row-vector convention of Keras' cells
    (paper eq. 3-4):

        h_t = activation(x_t W_xh + m_{t-1} W_mh + b_h)    functional
        m_t = h_t W_hm + m_{t-1} W_mm (+ b_m)               linear memory

    The recurrent state is the memory `m` alone. The output is `m_t` for
    `output="memory"` (the paper's LMN-B, which reads the memory) or `h_t`
    for `output="functional"` (LMN-A). The mode is kept as `output_mode`
    (`Layer.output` is Keras' symbolic output tensor).

    States: `[m_t]` for `output="memory"`; `[h_t, m_t]` for
    `output="functional"`. There the previous output `h_{t-1}` rides in front
    of the memory because Keras' masked scan on JAX takes the first state as
    the output to repeat at padded steps. It never enters the equations, and
    `LMN` hides it (its `initial_state` and `return_state` are `m` alone).

    Args:
        units: Positive integer, width of the functional component `h`.
        memory_units: Positive integer, width of the linear memory `m`.
        output: `"memory"` (LMN-B, default: the output is `m_t`,
            `memory_units` wide) or `"functional"` (LMN-A: the output is
            `h_t`, `units` wide).
        use_memory_bias: Whether the memory update has a bias `b_m`
            (`memory_bias`). Default `False`: the memory is the paper's
            purely linear autoencoder.
        activation: Activation of the functional component. Default
            `"tanh"`.
        kernel_initializer: Initializer for `kernel` (`W_xh`, input to
            functional). Default `"glorot_uniform"`.
        recurrent_initializer: Initializer for `recurrent_kernel` (`W_mh`,
            memory to functional). Default `"orthogonal"`.
        memory_initializer: Initializer for `memory_kernel` (`W_hm`,
            functional to memory). Default `"glorot_uniform"`.
        memory_recurrent_initializer: Initializer for
            `memory_recurrent_kernel` (`W_mm`). Default `"orthogonal"`.
        bias_initializer: Initializer for `bias` (`b_h`). Default `"zeros"`.
        memory_bias_initializer: Initializer for `memory_bias` (`b_m`).
            Default `"zeros"`.
        kernel_regularizer, recurrent_regularizer, memory_regularizer,
        memory_recurrent_regularizer, bias_regularizer,
        memory_bias_regularizer: Regularizers of the matching weights.
            Default `None`.
        kernel_constraint, recurrent_constraint, memory_constraint,
        memory_recurrent_constraint, bias_constraint, memory_bias_constraint:
            Constraints of the matching weights. Default `None`.
        dropout: Float in [0, 1), fraction of the input features dropped (one
            mask per sequence, as in Keras' RNN cells).
        recurrent_dropout: Float in [0, 1), fraction of `m_{t-1}` dropped on
            its way into the functional component (`m_{t-1} W_mh`). The
            memory's own linear update `m_{t-1} W_mm` is never dropped, as
            the LSTM never drops its carry.
        seed: Random seed for dropout.

    Call arguments:
        inputs: A 2D tensor `(batch, input_dim)`.
        states: `[m_{t-1}]` (`output="memory"`) or `[h_{t-1}, m_{t-1}]`
            (`output="functional"`), shapes `(batch, memory_units)` and
            `(batch, units)`.
        training: Python boolean; enables dropout.

    Returns:
        `(output, new_states)`: `output` is `m_t`, `(batch, memory_units)`,
        or `h_t`, `(batch, units)`; `new_states` is `[m_t]` or `[h_t, m_t]`.

    Example:

    ```python
    x = np.random.random((8, 20, 16)).astype("float32")
    rnn = keras.layers.RNN(LinearMemoryCell(32, 64), return_sequences=True)
    memory = rnn(x)  # (8, 20, 64), LMN-B
    ```
    """

    def __init__(
        self,
        units,
        memory_units,
        output="memory",
        use_memory_bias=False,
        activation="tanh",
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        memory_initializer="glorot_uniform",
        memory_recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        memory_bias_initializer="zeros",
        kernel_regularizer=None,
        recurrent_regularizer=None,
        memory_regularizer=None,
        memory_recurrent_regularizer=None,
        bias_regularizer=None,
        memory_bias_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        memory_constraint=None,
        memory_recurrent_constraint=None,
        bias_constraint=None,
        memory_bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        **kwargs,
    ):
        validation.positive_int("units", units)
        validation.positive_int("memory_units", memory_units)
        validation.one_of("output", output, _OUTPUTS)
        validation.rate("dropout", dropout)
        validation.rate("recurrent_dropout", recurrent_dropout)
        arguments = dict(locals())
        super().__init__(**kwargs)
        self.units = int(units)
        self.memory_units = int(memory_units)
        # `output` is taken: `Layer.output` is the symbolic output tensor.
        self.output_mode = output
        self.use_memory_bias = bool(use_memory_bias)
        self.activation = activations.get(activation)

        for weight in _WEIGHTS:
            setattr(
                self,
                f"{weight}_initializer",
                initializers.get(arguments[f"{weight}_initializer"]),
            )
            setattr(
                self,
                f"{weight}_regularizer",
                regularizers.get(arguments[f"{weight}_regularizer"]),
            )
            setattr(
                self,
                f"{weight}_constraint",
                constraints.get(arguments[f"{weight}_constraint"]),
            )

        self.dropout = float(dropout)
        self.recurrent_dropout = float(recurrent_dropout)
        self.seed = seed
        self.seed_generator = keras.random.SeedGenerator(seed)

        if self.output_mode == "memory":
            self.state_size = [self.memory_units]
            self.output_size = self.memory_units
        else:
            self.state_size = [self.units, self.memory_units]
            self.output_size = self.units

    def build(self, input_shape):
        validation.rank("LinearMemoryCell step input", input_shape, 2, "(batch, features)")
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError(
                f"LinearMemoryCell needs a known feature dimension; got step input shape {tuple(input_shape)}."
            )
        shapes = {
            "kernel": (input_dim, self.units),
            "recurrent": (self.memory_units, self.units),
            "memory": (self.units, self.memory_units),
            "memory_recurrent": (self.memory_units, self.memory_units),
            "bias": (self.units,),
        }
        if self.use_memory_bias:
            shapes["memory_bias"] = (self.memory_units,)
        self.memory_bias = None
        for weight, shape in shapes.items():
            name = _WEIGHTS[weight]
            setattr(
                self,
                name,
                self.add_weight(
                    shape=shape,
                    name=name,
                    initializer=getattr(self, f"{weight}_initializer"),
                    regularizer=getattr(self, f"{weight}_regularizer"),
                    constraint=getattr(self, f"{weight}_constraint"),
                ),
            )

    def call(self, inputs, states, training=False):
        m_prev = states[-1]
        dp_mask = self.get_dropout_mask(inputs)
        rec_dp_mask = self.get_recurrent_dropout_mask(m_prev)
        if training and dp_mask is not None:
            inputs = inputs * dp_mask
        m_into_functional = m_prev
        if training and rec_dp_mask is not None:
            m_into_functional = m_prev * rec_dp_mask

        # Functional component (eq. 3).
        h = self.activation(
            ops.matmul(inputs, self.kernel) + ops.matmul(m_into_functional, self.recurrent_kernel) + self.bias
        )
        # Linear memory (eq. 4).
        m = ops.matmul(h, self.memory_kernel) + ops.matmul(m_prev, self.memory_recurrent_kernel)
        if self.memory_bias is not None:
            m = m + self.memory_bias
        # Keras' type promotion computes some float64 ops in float32 on JAX
        # and PyTorch; JAX's scan needs the states to keep their dtype.
        h = ops.cast(h, self.compute_dtype)
        m = ops.cast(m, self.compute_dtype)

        if self.output_mode == "memory":
            return m, [m]
        return h, [h, m]

    @property
    def memory_size(self):
        return self.memory_units

    def get_initial_state(self, batch_size=None):
        return [ops.zeros((batch_size, size), dtype=self.compute_dtype) for size in self.state_size]

    def get_config(self):
        config = {
            "units": self.units,
            "memory_units": self.memory_units,
            "output": self.output_mode,
            "use_memory_bias": self.use_memory_bias,
            "activation": activations.serialize(self.activation),
            "dropout": self.dropout,
            "recurrent_dropout": self.recurrent_dropout,
            "seed": self.seed,
        }
        config.update(validation.weight_options_config(self, _WEIGHTS))
        return {**super().get_config(), **config}


@keras.saving.register_keras_serializable(package="keras_seq")
class LMN(CarriedOutputRNN):
    """Linear Memory Network over a whole sequence.

    An RNN over `LinearMemoryCell`:
    `h_t = activation(x_t W_xh + m_{t-1} W_mh + b_h)`,
    `m_t = h_t W_hm + m_{t-1} W_mm (+ b_m)`. With `output="memory"` (LMN-B,
    default) the layer outputs the memory `m_t`; with `output="functional"`
    (LMN-A) the functional activation `h_t`. Put the task head (e.g. a
    sigmoid `Dense` for piano rolls) after it. `keras_seq.pretraining`
    builds an LMN-B initialised by the paper's closed-form pretraining.

    Args:
        units: Positive integer, width of the functional component.
        memory_units: Positive integer, width of the linear memory.
        output: `"memory"` (LMN-B) or `"functional"` (LMN-A).
        return_sequences: Whether to return the output of every step or
            (default) of the last.
        return_state: Whether to also return the last memory state.
        go_backwards, stateful, unroll, zero_output_for_mask: As in
            `keras.layers.RNN`.
        **kwargs: Every other argument of `LinearMemoryCell`
            (`use_memory_bias`, `activation`, initializers, regularizers,
            constraints, `dropout`, `recurrent_dropout`, `seed`) and of
            `keras.layers.Layer` (`name`, `dtype`, ...).

    Call arguments:
        inputs: `(batch, time, features)`.
        mask: Optional boolean `(batch, time)`; masked steps keep the memory
            and repeat the previous output (or output zeros with
            `zero_output_for_mask=True`).
        training: Python boolean; enables dropout.
        initial_state: Optional initial memory `m_0`, `(batch, memory_units)`.

    Returns:
        `(batch, time, output_size)` with `return_sequences=True`, else
        `(batch, output_size)`, where `output_size` is `memory_units` (LMN-B)
        or `units` (LMN-A); plus the last memory `(batch, memory_units)` when
        `return_state=True`.

    Example:

    ```python
    model = keras.Sequential([
        keras.Input((None, 88)),
        LMN(100, 250, return_sequences=True),       # LMN-B
        keras.layers.Dense(88, activation="sigmoid"),
    ])
    ```
    """

    memory_name = "the memory m_0"
    memory_size_name = "memory_units"

    def __init__(
        self,
        units,
        memory_units,
        output="memory",
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        zero_output_for_mask=False,
        **kwargs,
    ):
        cell_kwargs = {key: kwargs.pop(key) for key in list(kwargs) if key in _CELL_ARGUMENTS}
        cell = LinearMemoryCell(
            units,
            memory_units,
            output=output,
            dtype=kwargs.get("dtype"),
            trainable=kwargs.get("trainable", True),
            name="linear_memory_cell",
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

    def build(self, sequences_shape, initial_state_shape=None):
        validation.rank("LMN inputs", sequences_shape, 3, "(batch, time, features)")
        super().build(sequences_shape, initial_state_shape)
        self.input_spec = keras.layers.InputSpec(ndim=3, axes={-1: sequences_shape[-1]})

    @property
    def units(self):
        return self.cell.units

    @property
    def memory_units(self):
        return self.cell.memory_units

    @property
    def output_mode(self):
        return self.cell.output_mode

    def get_config(self):
        config = super().get_config()
        cell_config = config.pop("cell")["config"]
        for key in ("name", "trainable", "dtype"):
            cell_config.pop(key, None)
        return {**config, **cell_config}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


_CELL_ARGUMENTS = frozenset(
    ["use_memory_bias", "activation", "dropout", "recurrent_dropout", "seed"]
    + [f"{weight}_{kind}" for weight in _WEIGHTS for kind in ("initializer", "regularizer", "constraint")]
)
