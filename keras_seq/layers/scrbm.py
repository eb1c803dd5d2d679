"""Sequence Classification RBM (Tran et al., "Linear-Time Sequence
Classification using Restricted Boltzmann Machines").

The equations live in `SCRBMCell`; `SCRBM` runs them over a sequence and adds
the teacher-forcing call (`labels=`). `SCRBM` does not step the cell through
`keras.layers.RNN`: it projects the whole sequence (`x W + c`, and under
teacher forcing `onehot(y) U`) in one matmul before the recurrence, whose
steps then only add `h_{t-1} W_hh` and compute the free energy, the softmax
and the sigmoid; the RNN machinery (states, masking, dropout masks, `stateful`,
`go_backwards`, `unroll`) is Keras' own. Same weights, same numbers (up to
float rounding) as the cell in `keras.layers.RNN`.

The free energy's `(batch, num_classes, units)` softplus is the hot spot:
`softplus_sum` computes it without exponentiating that tensor and with one
log per four units (`_fast_softplus_sum`), exactly, and recomputes its
gradient in the backward pass instead of saving it.
"""

import keras
from keras import constraints
from keras import initializers
from keras import ops
from keras import regularizers
from keras import tree

# The loop `keras.layers.RNN` runs (`backend.rnn`) has no public alias.
from keras.src import backend

# Keras keeps the dropout-mask machinery of its RNN cells in this mixin; it has
# no public alias, and `keras.layers.RNN` only pre-creates masks (which JAX's
# scan needs) for cells that inherit from it.
from keras.src.layers.rnn.dropout_rnn_cell import DropoutRNNCell

from keras_seq.layers import validation
from keras_seq.layers.carried_output import CarriedOutputCell
from keras_seq.layers.carried_output import CarriedOutputRNN

_LOW_PRECISION = ("float16", "bfloat16")

# The fast free energy (`_fast_softplus_sum`): above this pre-activation
# `log(1 + e^z)` is split as `c + log(e^-c + e^(z - c))`, so that no exponent
# exceeds e^20 and `_LOG_GROUP` factors `e^-c + e^(z - c)` multiply without
# overflow before one log.
_SHIFT_ABOVE = 20.0
_LOG_GROUP = 4
# The label weights of one hidden unit may span at most this much for the fast
# free energy to be exact (it keeps those products above the smallest normal
# float32); beyond it `softplus_sum` takes the plain softplus.
_MAX_LABEL_SPREAD = 40.0


def _softplus(z):
    """`log(1 + exp(z))`, stable for any z. Written out because this form
    runs 3-5x faster than `ops.softplus` under JAX and PyTorch."""
    magnitude = ops.abs(z)
    return 0.5 * (z + magnitude) + ops.log1p(ops.exp(-magnitude))


def _read(variable):
    """A weight as a tensor of its (autocast) dtype. `ops.convert_to_tensor`
    returns TensorFlow variables as they are, which custom gradients and
    PyTorch's autograd functions do not take."""
    return ops.cast(variable, variable.dtype)


def _cond(pred, true_fn, false_fn):
    """`ops.cond`, or a plain `if` when `pred` has a value (eager), so that
    eager calls run (and JAX traces) only the branch they take."""
    try:
        value = ops.convert_to_numpy(pred)
    except Exception:  # symbolic or traced: decided at run time
        return ops.cond(pred, true_fn, false_fn)
    return true_fn() if bool(value) else false_fn()


def _fast_is_exact(label_kernel):
    """Whether `_fast_softplus_sum` is exact for these label weights (a scalar
    boolean tensor): every unit's weights span at most `_MAX_LABEL_SPREAD`."""
    spread = ops.max(label_kernel, axis=0) - ops.min(label_kernel, axis=0)
    return ops.max(spread) <= _MAX_LABEL_SPREAD


def _fast_terms(pre_activation, label_kernel):
    """With `M_j = max_y U[y, j]`, `w = a + M`, `c = relu(w - 20)`:
    `softplus(a_j + U[y, j]) = c_j + log(e^-c_j + e^(w_j - c_j) e^(U[y, j] - M_j))`.
    Returns `c` `(n, units)`, `e^-c` and `e^(z - c)` `(n, K, units)`: only
    `(n, units)` and `(K, units)` tensors are exponentiated."""
    top = ops.max(label_kernel, axis=0)
    w = pre_activation + top
    shift = ops.relu(w - _SHIFT_ABOVE)
    floor = ops.expand_dims(ops.exp(-shift), 1)
    scaled = ops.expand_dims(ops.exp(w - shift), 1) * ops.exp(label_kernel - top)
    return shift, floor, scaled


def _fast_softplus_sum(pre_activation, label_kernel):
    """`sum_j softplus(a[n, j] + U[y, j])`, `(n, K)`, with one log per
    `_LOG_GROUP` units and no exponential of an `(n, K, units)` tensor. Exact
    (to float rounding) for any pre-activation when
    `_fast_is_exact(label_kernel)`: every factor `e^-c + e^(z - c)` then lies
    in `[e^(20 - spread), 1 + e^20]`, so four multiply within float32."""
    shift, floor, scaled = _fast_terms(pre_activation, label_kernel)
    factors = floor + scaled
    units = factors.shape[-1]
    groups = _log_group(units)
    if groups > 1:
        # Units j, j + units/g, ... multiply: a reshape and a product, which
        # cost less than slicing halves on TensorFlow without XLA.
        shape = ops.shape(factors)[:-1] + (groups, units // groups)
        # (`dtype`: PyTorch's `ops.prod` would return float64 as float32.)
        dtype = keras.backend.standardize_dtype(factors.dtype)
        factors = ops.prod(ops.reshape(factors, shape), axis=-2, dtype=dtype)
    return ops.sum(ops.log(factors), axis=-1) + ops.sum(shift, axis=-1, keepdims=True)


def _log_group(units):
    """The largest group of units, up to `_LOG_GROUP`, that divides `units`."""
    groups = _LOG_GROUP
    while units % groups:
        groups //= 2
    return groups


def plain_softplus_sum(pre_activation, label_kernel):
    """The same sum as one `(n, K, units)` softplus, stable for any values."""
    per_class = ops.expand_dims(pre_activation, 1) + label_kernel
    return ops.sum(_softplus(per_class), axis=-1)


def _fast_sigmoid(pre_activation, label_kernel):
    _, floor, scaled = _fast_terms(pre_activation, label_kernel)
    return scaled / (floor + scaled)


def _exact_sigmoid(pre_activation, label_kernel):
    return ops.sigmoid(ops.expand_dims(pre_activation, 1) + label_kernel)


def softplus_sum(pre_activation, label_kernel):
    """`sum_j softplus(a[n, j] + U[y, j])` for every class, `(n, K)`: the
    free-energy term of eq. 7, the cell's hot spot.

    The fast form where it is exact, else the plain softplus (a `cond` on the
    label weights). Its gradient `sigmoid(a + U)`, contracted with the
    upstream gradient, is recomputed from `a` and `U` in the backward pass, so
    that no `(n, K, units)` tensor is saved per step, and the `cond` is never
    differentiated (TensorFlow cannot differentiate one inside a loop when it
    holds custom gradients)."""

    @ops.custom_gradient
    def with_recomputed_gradient(pre_activation, label_kernel):
        fast = _fast_is_exact(label_kernel)
        total = _cond(
            fast,
            lambda: _fast_softplus_sum(pre_activation, label_kernel),
            lambda: plain_softplus_sum(pre_activation, label_kernel),
        )

        def grad(*args, upstream=None):
            upstream = args[0] if upstream is None else upstream
            sigmoid = _cond(
                fast,
                lambda: _fast_sigmoid(pre_activation, label_kernel),
                lambda: _exact_sigmoid(pre_activation, label_kernel),
            )
            # A batched matmul for `a` (einsum: PyTorch's `ops.matmul` would
            # return float64 as float32) and a sum over the batch for `U`: XLA
            # runs these faster than two sums of `upstream * sigmoid`.
            return (
                ops.einsum("nk,nku->nu", upstream, sigmoid),
                ops.sum(ops.expand_dims(upstream, -1) * sigmoid, axis=0),
            )

        return total, grad

    return with_recomputed_gradient(pre_activation, label_kernel)


def _class_logits(pre_activation, label_kernel, label_bias, compute_dtype):
    """Logits `-F(y) = b_y + sum_j softplus(a_j + U[y, j])` (eq. 6-7),
    `(n, K)`, reduced in float32 under mixed precision."""
    if compute_dtype in _LOW_PRECISION:
        pre_activation = ops.cast(pre_activation, "float32")
        label_kernel = ops.cast(label_kernel, "float32")
    else:
        label_kernel = _read(label_kernel)
    total = softplus_sum(pre_activation, label_kernel)
    return ops.cast(total, compute_dtype) + label_bias


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

    The free energy is one `(batch, num_classes, units)` expression, with no
    loop over classes (computed in the fast exact form of
    `_fast_softplus_sum` when the label weights allow it); in mixed precision
    it is reduced in float32.

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
            raise ValueError(f"SCRBMCell needs a known feature dimension; got step input shape {tuple(input_shape)}.")
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
        projected = ops.matmul(x, self.kernel) + self.bias
        label_term = None if labels is None else ops.matmul(labels, self.label_kernel)
        return self._step(
            projected,
            label_term,
            h_prev,
            self.recurrent_kernel,
            self.label_kernel,
            self.label_bias,
        )

    def _step(
        self,
        projected,
        label_term,
        h_prev,
        recurrent_kernel,
        label_kernel,
        label_bias,
    ):
        """The step after the input projection `projected = x_t W + c`;
        `label_term` is `onehot(y_t) U` (teacher forcing) or `None`
        (Algorithm 1)."""
        pre_activation = projected + ops.matmul(h_prev, recurrent_kernel)
        logits = _class_logits(pre_activation, label_kernel, label_bias, self.compute_dtype)
        probabilities = ops.softmax(logits, axis=-1)
        if label_term is None:
            label_term = ops.matmul(probabilities, label_kernel)
        h = ops.sigmoid(pre_activation + label_term)
        output = logits if self.return_logits else probabilities
        return output, [output, h]

    def class_logits(self, pre_activation):
        """Logits `-F(y)` of every class (eq. 6-7) from `a_t`, `(batch, K)`."""
        return _class_logits(pre_activation, self.label_kernel, self.label_bias, self.compute_dtype)

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
            and are excluded from losses and metrics downstream. A mask
            carried by `inputs` (after `Masking` or
            `Embedding(mask_zero=True)`) is used on every call form,
            `labels=` and `initial_state=` included. Leading padding works
            too: the state stays at its initial value until the first real
            step.
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
        cell_kwargs = {key: kwargs.pop(key) for key in list(kwargs) if key in _CELL_ARGUMENTS}
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
        self.input_spec = keras.layers.InputSpec(ndim=3, axes={-1: self.cell.input_dim})

    def compute_output_shape(self, sequences_shape, labels_shape=None, initial_state_shape=None):
        return super().compute_output_shape(sequences_shape)

    def call(
        self,
        sequences,
        labels=None,
        initial_state=None,
        mask=None,
        training=False,
        sequences_mask=None,
    ):
        mask = self._sequence_mask(sequences, mask, sequences_mask)
        cell = self.cell
        failed = None
        if labels is not None:
            labels, failed = self._label_distribution(labels, sequences, mask)
        if cell.dropout > 0:
            # One mask per sequence, drawn as the cell draws it from a step
            # (features, then the label columns it never applies to), so a
            # seed gives the same mask on both paths.
            width = sequences.shape[-1] + (0 if labels is None else cell.num_classes)
            dp_mask = cell.get_dropout_mask(ops.ones((ops.shape(sequences)[0], width), dtype=sequences.dtype))
            if training:
                features = dp_mask[:, : sequences.shape[-1]]
                sequences = sequences * ops.expand_dims(features, 1)
        # The input projection of every step in one matmul; under teacher
        # forcing the label term `onehot(y_t) U` rides behind it. The RNN
        # machinery (initial and stateful states, dropout masks, masking)
        # then runs `inner_loop` over these projections.
        projected = ops.matmul(sequences, cell.kernel) + cell.bias
        if labels is not None:
            projected = ops.concatenate([projected, ops.matmul(labels, cell.label_kernel)], axis=-1)
        try:
            return validation.guard(self._run(projected, initial_state, mask, training), failed)
        except Exception:
            self._maybe_reset_dropout_masks(cell)
            raise

    def inner_loop(self, sequences, initial_state, mask, training=False):
        cell = self.cell
        units = cell.units
        # Read once for the whole loop (cast once under mixed precision).
        weights = (
            _read(cell.recurrent_kernel),
            _read(cell.label_kernel),
            _read(cell.label_bias),
        )
        recurrent_mask = None
        if training and cell.recurrent_dropout > 0:
            recurrent_mask = cell.get_recurrent_dropout_mask(initial_state[1])
        copy_states = backend.backend() == "torch" and self.stateful
        loop_options = {
            "go_backwards": self.go_backwards,
            "mask": mask,
            "unroll": self.unroll,
            "input_length": sequences.shape[1],
            "return_all_outputs": self.return_sequences,
        }

        def hidden(states):
            # Fresh copies on PyTorch with stateful=True, as keras.layers.RNN
            # does, so that autograd sees no in-place change of a state.
            if copy_states:
                states = tree.map_structure(ops.copy, states)
            h_prev = states[1]
            return h_prev if recurrent_mask is None else h_prev * recurrent_mask

        if sequences.shape[-1] == 2 * units:  # teacher forcing
            # One tensor, split per step: TensorFlow's loop reads the length
            # of a nested input from its first element's static shape.
            def step(inputs, states):
                projected, label_term = inputs[:, :units], inputs[:, units:]
                return cell._step(projected, label_term, hidden(states), *weights)

        else:

            def step(projected, states):
                return cell._step(projected, None, hidden(states), *weights)

        return backend.rnn(
            step,
            sequences,
            list(initial_state),
            zero_output_for_mask=self.zero_output_for_mask,
            **loop_options,
        )

    def _label_distribution(self, labels, sequences, mask=None):
        num_classes = self.cell.num_classes
        validation.labels(labels, sequences.shape, num_classes)
        failed = None
        if not isinstance(labels, keras.KerasTensor):
            failed = validation.label_values(labels, num_classes, mask)
        if len(labels.shape) == 2:
            labels = ops.one_hot(ops.cast(labels, "int32"), num_classes)
        return ops.cast(labels, self.compute_dtype), failed

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
