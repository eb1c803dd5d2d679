"""Trellis Networks (Bai, Kolter, Koltun, "Trellis Networks for Sequence
Modeling", ICLR 2019).

`TrellisBlock` is the whole weight-tied stack of trellis levels: one causal
convolution over the input, computed once and injected at every level, and
one causal convolution over the previous level's hidden state, with the same
weights at every level, followed by the gated (LSTM-cell) activation.
`TrellisBlock.from_lstm` is the paper's Theorem 1 for a one-layer LSTM.
"""

import keras
import numpy as np
from keras import constraints
from keras import initializers
from keras import ops
from keras import regularizers

from keras_seq.layers import validation
from keras_seq.layers.last_step import last_real_step

# The spec's (and the reference code's) gate order along the 4 * hidden axis.
GATES = ("i", "o", "g", "f")
# Position, in Keras' LSTM order (i, f, g, o), of each of the spec's gates.
_FROM_KERAS_LSTM_ORDER = (0, 3, 2, 1)


@keras.saving.register_keras_serializable(package="keras_seq")
class TrellisBlock(keras.layers.Layer):
    """A TrellisNet: weight-tied causal convolutions with input injection.

    With kernel size `k`, dilation `d` at level `i` (cycled from
    `dilations`), input `x` and the level-`i` state `z^(i) = (h^(i), c^(i))`,
    each `hidden_units` wide, one level is (paper eq. 1-2 and Sec. 5.1, the
    gated activation):

        pre^(i+1)_t = sum_j x_{t-(k-1-j)d} U_j + sum_j h^(i)_{t-(k-1-j)d} W_j + b
        i, o, g, f  = split(pre^(i+1)_t, 4)
        c^(i+1)_t   = sigmoid(f) * c^(i)_{t-d} + sigmoid(i) * tanh(g)
        h^(i+1)_t   = sigmoid(o) * tanh(c^(i+1)_t)

    `U` (`input_kernel`, `(k, input_dim, 4 * hidden_units)`), `W`
    (`hidden_kernel`, `(k, hidden_units, 4 * hidden_units)`) and `b` (`bias`)
    are the same at every level, so depth costs no parameters. The input
    convolution (with the bias) is injected at every level. Level 0 is
    `h = c = 0`. The output is the last `output_units` channels of `h` at the
    top level.

    How it is computed (the equations above are what it computes): each
    convolution is one matmul over its taps stacked along the channels. A
    narrow input's taps, with a ones column for `b`, join the hidden taps in
    that matmul; a wide one's `conv_x(x) + b` is computed once per distinct
    dilation. Level 0 reads `h = c = 0`, so it needs the hidden kernel only
    for a nonzero history. The top level computes only the output channels
    unless its state is returned or stored. Runs of whole cycles of
    `dilations` without auxiliary outputs are one loop (`keras.ops`), so
    that a compiled (XLA) program does not grow with the depth.

    Causal padding: the `(k - 1) d` positions before the first step of `h`,
    and the `d` positions before the first step of `c` (for `c_{t-d}`), are
    filled at every level with the carried state `(h_0, c_0)` (zeros by
    default): the paper's history repackaging (Appendix B). Pass the final
    state of one segment (`return_state=True`) as `initial_state` of the next.
    The input is zero-padded. Because the carried state is the top level's
    last step, two segments equal one long sequence exactly only for
    recurrent-structured kernels whose receptive field covers the whole
    sequence (e.g. `from_lstm` with `history >= time`); for dense kernels it
    is the paper's approximation.

    Weight normalisation (`weight_norm=True`): each kernel is used as
    `g * v / ||v||`, the norm taken per output channel over the taps and the
    input channels (PyTorch's `weight_norm(dim=0)`, as in the reference code),
    computed once per call, not per level. The gains (`input_kernel_gain`,
    `hidden_kernel_gain`, `(4 * hidden_units,)`) start at the norms of the
    initial kernels, so the effective initial kernels are the initializers'.
    An all-zero output channel (e.g. a `"zeros"` initializer) has no
    direction: use `weight_norm=False` for such kernels.

    Dropout (`dropout > 0`, `training=True`): variational hidden dropout
    (Appendix B), placed where the reference implementation places it: on
    the INPUT of the hidden convolution. One mask `m` of shape
    `(batch, hidden_units)` per call (entries 0 or `1 / (1 - dropout)`,
    drawn from the layer's `SeedGenerator`), shared by every time step and
    every level, multiplies the padded hidden sequence that `conv_h` reads,
    history padding `h_0` included:

        pre^(i+1)_t = sum_j x_{t-(k-1-j)d} U_j + sum_j (m * h^(i))_{t-(k-1-j)d} W_j + b

    (with `h^(i)_s = h_0` for `s < 0`). The levels' outputs themselves are
    not masked: the block output, the auxiliary outputs and the returned
    (or stored) `(h, c)` are the unmasked `h`, and `c` is never dropped.

    Weight dropout (`weight_dropout > 0`, `training=True`): the reference
    implementation's temporal weight drop (DropConnect, Wan et al. 2013, in
    AWD-LSTM's form). On BOTH kernels, entries of the taps that look at
    earlier steps (`j < k - 1`; the whole kernel when `k = 1`) are zeroed
    independently with probability `weight_dropout` and the kept ones scaled
    by `1 / (1 - weight_dropout)`; the current-step tap `j = k - 1` is never
    dropped. With weight normalisation this happens to the direction `v`
    BEFORE the norm, so the kernel is `g * v' / ||v'||` with the dropped
    `v'` in the norm too (an output channel whose `v'` is all zero gets a
    zero kernel). One mask per kernel per call, used at every level (the
    weights are tied). At inference the kernels are unchanged.

    Stateful mode (`stateful=True`, like Keras RNNs): the block keeps the
    final `(h, c)` of each call in two non-trainable variables (`state_h`,
    `state_c`, `(batch, hidden_units)`, saved with the model) and uses them
    as `initial_state` of the next call when none is given: history
    repackaging across consecutive windows of a stream (row `i` of batch
    `k + 1` continues row `i` of batch `k`). The stored state carries no
    gradient (truncated BPTT). The batch size must be static (e.g.
    `keras.Input(..., batch_size=B)` and batches of exactly `B` rows, as
    `keras_seq.data` language-model streams are). `reset_states()` zeroes the
    stored state; `keras_seq.models.trellisnet.ResetStates` does so at the
    start of every epoch and before evaluation and prediction.

    Deep supervision (`aux_frequency=n`): the layer RETURNS the output
    channels of `h` at levels `n, 2n, ..., n * floor(num_levels / n)` (the
    top level included when `n` divides `num_levels`, as in the reference
    implementation), stacked as `(batch, time, num_aux, output_units)`,
    rather than adding a loss with
    `add_loss`: the auxiliary loss needs the task head (decoder) and the
    targets, which live outside the block. `keras_seq.models.TrellisNet`
    applies the shared head and weights the auxiliary loss by lambda.

    Args:
        hidden_units: Positive integer, width of `h` (and of `c`), output
            channels included.
        output_units: Positive integer <= `hidden_units`; the output is the
            last `output_units` channels of `h`.
        num_levels: Positive integer, depth of the trellis.
        kernel_size: Positive integer, taps of both convolutions. Default 2.
        dilations: Non-empty sequence of positive integers, cycled over the
            levels (level `i` uses `dilations[i % len(dilations)]`).
            Default `(1,)`.
        dropout: Float in [0, 1), variational hidden dropout rate (on the
            hidden convolution's input, history included; see above).
        weight_dropout: Float in [0, 1), temporal weight-drop rate on the
            earlier taps of both kernels (of `v`, before the norm, with
            weight normalisation; one mask per kernel per call).
        weight_norm: Whether to weight-normalise both kernels. Default `True`.
        aux_frequency: `None` or a positive integer `<= num_levels`: return
            the output channels every `aux_frequency` levels, the top one
            included when it is a multiple (deep supervision).
        return_state: Whether to also return the final `(h, c)` at the last
            step of the top level.
        stateful: Whether to carry the final `(h, c)` of each call into the
            next one (see above). Needs a static batch size.
        forget_bias: Float added to the initial bias of the forget gate `f`
            (default 0, as in the reference code; Keras' LSTM
            `unit_forget_bias` adds 1). A large value (e.g. 4: `sigmoid(f)`
            about 0.98) makes `c` a near-identity path through the levels
            at initialisation, which long-lag tasks such as copy memory need
            (see `bench/long_memory.py`).
        input_kernel_initializer: Initializer for `input_kernel`.
            Default `"glorot_uniform"`.
        hidden_kernel_initializer: Initializer for `hidden_kernel`.
            Default `"glorot_uniform"`.
        bias_initializer: Initializer for `bias`. Default `"zeros"`.
        input_kernel_regularizer, hidden_kernel_regularizer,
        bias_regularizer: Regularizers of the matching weights.
        input_kernel_constraint, hidden_kernel_constraint, bias_constraint:
            Constraints of the matching weights.
        seed: Random seed for dropout and weight dropout.
        **kwargs: Base layer arguments (`name`, `dtype`, ...).

    Call arguments:
        sequences: `(batch, time, features)`.
        initial_state: Optional `[h_0, c_0]`, each `(batch, hidden_units)`:
            the history that fills the causal padding. When given, it
            overrides the stored state of a stateful block.
        training: Python boolean; enables dropout and weight dropout.
        mask: Optional boolean `(batch, time)`, also taken from the input
            (after `Masking` or `Embedding(mask_zero=True)`) and passed on
            to the outputs. Padded steps read as zero input and, at every
            level, hold what precedes the sequence (the history, or zeros),
            so that padding never changes the real steps: trailing padding
            (the convolutions are causal) and leading padding alike. The
            returned and stored state is the one after each sequence's last
            real step (the initial state for a row with none). Meant for
            padding; a masked step between real ones reads as the history.

    Returns:
        `output` `(batch, time, output_units)`; then, if `aux_frequency`,
        `aux` `(batch, time, num_aux, output_units)`; then, if
        `return_state`, `h` and `c`, each `(batch, hidden_units)`.

    Example:

    ```python
    x = np.random.random((8, 100, 16)).astype("float32")
    block = TrellisBlock(64, 10, num_levels=8, dilations=[1, 2, 4],
                         return_state=True)
    y, h, c = block(x[:, :50])            # (8, 50, 10)
    y2, h, c = block(x[:, 50:], initial_state=[h, c])  # history repackaging

    stateful = TrellisBlock(64, 10, num_levels=8, stateful=True,
                            weight_dropout=0.2)
    y1 = stateful(x[:, :50])
    y2 = stateful(x[:, 50:])              # continues from y1's final (h, c)
    stateful.reset_states()               # back to zeros
    ```
    """

    def __init__(
        self,
        hidden_units,
        output_units,
        num_levels,
        kernel_size=2,
        dilations=(1,),
        dropout=0.0,
        weight_norm=True,
        aux_frequency=None,
        return_state=False,
        weight_dropout=0.0,
        stateful=False,
        forget_bias=0.0,
        input_kernel_initializer="glorot_uniform",
        hidden_kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        input_kernel_regularizer=None,
        hidden_kernel_regularizer=None,
        bias_regularizer=None,
        input_kernel_constraint=None,
        hidden_kernel_constraint=None,
        bias_constraint=None,
        seed=None,
        **kwargs,
    ):
        validation.positive_int("hidden_units", hidden_units)
        validation.positive_int("output_units", output_units)
        if output_units > hidden_units:
            raise ValueError(
                "`output_units` must be <= `hidden_units` (the output is the "
                f"last output_units channels of h); got output_units="
                f"{output_units!r}, hidden_units={hidden_units!r}."
            )
        validation.positive_int("num_levels", num_levels)
        validation.positive_int("kernel_size", kernel_size)
        dilations = validation.positive_int_sequence("dilations", dilations)
        validation.rate("dropout", dropout)
        validation.rate("weight_dropout", weight_dropout)
        validation.finite_float("forget_bias", forget_bias)
        if aux_frequency is not None:
            validation.positive_int("aux_frequency", aux_frequency)
            if aux_frequency > num_levels:
                raise ValueError(
                    "`aux_frequency` must be <= `num_levels` (auxiliary outputs "
                    "come from levels aux_frequency, 2 * aux_frequency, ...); got "
                    f"aux_frequency={aux_frequency!r}, num_levels={num_levels!r}."
                )
        super().__init__(**kwargs)
        self.hidden_units = int(hidden_units)
        self.output_units = int(output_units)
        self.num_levels = int(num_levels)
        self.kernel_size = int(kernel_size)
        self.dilations = dilations
        self.dropout = float(dropout)
        self.weight_norm = bool(weight_norm)
        self.aux_frequency = None if aux_frequency is None else int(aux_frequency)
        self.return_state = bool(return_state)
        self.weight_dropout = float(weight_dropout)
        self.stateful = bool(stateful)
        self.forget_bias = float(forget_bias)
        self.state_h = self.state_c = None

        self.input_kernel_initializer = initializers.get(input_kernel_initializer)
        self.hidden_kernel_initializer = initializers.get(hidden_kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.input_kernel_regularizer = regularizers.get(input_kernel_regularizer)
        self.hidden_kernel_regularizer = regularizers.get(hidden_kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.input_kernel_constraint = constraints.get(input_kernel_constraint)
        self.hidden_kernel_constraint = constraints.get(hidden_kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

        self.seed = seed
        self.seed_generator = keras.random.SeedGenerator(seed)
        self.input_dim = None

    # ------------------------------------------------------------------
    # Structure
    # ------------------------------------------------------------------
    @property
    def num_aux(self):
        """Number of auxiliary outputs (levels n, 2n, ... <= num_levels)."""
        if self.aux_frequency is None:
            return 0
        return self.num_levels // self.aux_frequency

    @property
    def receptive_field(self):
        """Number of input steps the top output at `t` depends on (`t`
        included): `1 + (k-1) d_0 + sum_{i>0} max(k-1, 1) d_i` (level 0 sees
        only the input; deeper levels add their hidden taps and `c_{t-d}`)."""
        k = self.kernel_size
        span = (k - 1) * self._dilation(0)
        span += sum(max(k - 1, 1) * self._dilation(level) for level in range(1, self.num_levels))
        return 1 + span

    def _dilation(self, level):
        return self.dilations[level % len(self.dilations)]

    def build(self, sequences_shape, initial_state_shape=None):
        validation.rank("TrellisBlock inputs", sequences_shape, 3, "(batch, time, features)")
        if sequences_shape[-1] is None:
            raise ValueError(f"TrellisBlock needs a known feature dimension; got input shape {tuple(sequences_shape)}.")
        self.input_dim = int(sequences_shape[-1])
        self.input_spec = keras.layers.InputSpec(ndim=3, axes={-1: self.input_dim})
        width = 4 * self.hidden_units
        k = self.kernel_size
        self.input_kernel = self.add_weight(
            shape=(k, self.input_dim, width),
            name="input_kernel",
            initializer=self.input_kernel_initializer,
            regularizer=self.input_kernel_regularizer,
            constraint=self.input_kernel_constraint,
        )
        self.hidden_kernel = self.add_weight(
            shape=(k, self.hidden_units, width),
            name="hidden_kernel",
            initializer=self.hidden_kernel_initializer,
            regularizer=self.hidden_kernel_regularizer,
            constraint=self.hidden_kernel_constraint,
        )
        self.bias = self.add_weight(
            shape=(width,),
            name="bias",
            initializer=self.bias_initializer,
            regularizer=self.bias_regularizer,
            constraint=self.bias_constraint,
        )
        if self.forget_bias:
            shift = np.zeros((width,), "float32")
            f = GATES.index("f") * self.hidden_units
            shift[f : f + self.hidden_units] = self.forget_bias
            self.bias.assign(self.bias + ops.cast(shift, self.bias.dtype))
        if self.weight_norm:
            self.input_kernel_gain = self.add_weight(shape=(width,), name="input_kernel_gain", initializer="ones")
            self.hidden_kernel_gain = self.add_weight(shape=(width,), name="hidden_kernel_gain", initializer="ones")
            self.input_kernel_gain.assign(_channel_norm(self.input_kernel))
            self.hidden_kernel_gain.assign(_channel_norm(self.hidden_kernel))
        if self.stateful:
            batch = sequences_shape[0]
            if batch is None:
                raise ValueError(
                    "A stateful TrellisBlock needs a static batch size (e.g. "
                    "keras.Input(..., batch_size=B)); got input shape "
                    f"{tuple(sequences_shape)}."
                )
            self.state_h, self.state_c = (
                self.add_weight(
                    shape=(int(batch), self.hidden_units),
                    name=name,
                    initializer="zeros",
                    trainable=False,
                )
                for name in ("state_h", "state_c")
            )

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        batch, steps = sequences_shape[0], sequences_shape[1]
        shapes = [(batch, steps, self.output_units)]
        if self.aux_frequency is not None:
            shapes.append((batch, steps, self.num_aux, self.output_units))
        if self.return_state:
            shapes += [(batch, self.hidden_units)] * 2
        return shapes[0] if len(shapes) == 1 else tuple(shapes)

    # ------------------------------------------------------------------
    # Forward pass
    # ------------------------------------------------------------------
    def compute_mask(self, sequences, mask=None):
        if mask is None:
            return None
        masks = [mask] + ([mask] if self.aux_frequency is not None else [])
        masks += [None, None] if self.return_state else []
        return masks[0] if len(masks) == 1 else masks

    def call(self, sequences, initial_state=None, training=False, mask=None, sequences_mask=None):
        mask = validation.sequence_mask("TrellisBlock inputs", sequences, mask, sequences_mask)
        step_mask = _step_mask(mask)
        if step_mask is not None:  # padded steps read as zero input
            sequences = ops.where(step_mask, sequences, ops.zeros_like(sequences))
        # Without a given or stored state the history is zero, which is known
        # when the call is traced: level 0 then reads nothing but the input.
        zero_history = initial_state is None and not self.stateful
        if self.stateful and initial_state is None:
            h0, c0 = self._stored_state(sequences)
        else:
            h0, c0 = self._initial_state(sequences, initial_state)
        input_kernel, hidden_kernel = self._kernels(weight_dropout=bool(training) and self.weight_dropout > 0)
        # Variational hidden dropout: one mask on conv_h's input (history
        # padding included) at every level; the levels' outputs stay unmasked.
        dropout_mask = self._dropout_mask(h0) if training and self.dropout > 0 else None
        h_pad = None if zero_history else h0 if dropout_mask is None else h0 * dropout_mask[:, 0]
        c_pad = None if zero_history else c0
        hidden = self.hidden_units

        def keep_real_steps(h, c):
            """Masked steps of every level hold what precedes the sequence
            (the history `h_0`, `c_0`, or zeros), so that real steps read
            them as the causal padding: leading padding changes nothing."""
            if step_mask is None:
                return h, c
            start = hidden - h.shape[-1]
            fills = (0.0, 0.0) if zero_history else (h0[:, None, start:], c0[:, None, start:])
            return (
                ops.where(step_mask, h, ops.cast(fills[0], h.dtype)),
                ops.where(step_mask, c, ops.cast(fills[1], c.dtype)),
            )

        pre_activation = _PreActivation(
            sequences,
            input_kernel,
            hidden_kernel,
            self.bias,
            self._level_dilations(),
            self._fold_input(int(sequences.shape[-1])),
        )
        # Only the output channels of the top level are read, unless its
        # full (h, c) is returned or stored.
        top_channels = self.hidden_units if self.return_state or self.stateful else self.output_units
        channels = top_channels if self.num_levels == 1 else self.hidden_units

        def level_fn(level, h, c, channels=self.hidden_units):
            h_in = h if dropout_mask is None else h * dropout_mask
            return keep_real_steps(*self._level(pre_activation, level, h_in, c, h_pad, c_pad, channels))

        if step_mask is None or zero_history:
            h, c = keep_real_steps(*self._first_level(pre_activation, h_pad, c_pad, channels))
        else:  # level 0 reads h = c = 0 at real steps, the history at padded ones
            zeros = ops.repeat(ops.zeros_like(sequences[..., :1]), hidden, axis=-1)
            h, c = keep_real_steps(zeros, zeros)
            h, c = level_fn(0, h, c, channels)
        aux = [h[..., -self.output_units :]] if self._is_aux(0) else []

        for start, cycles in self._level_plan():
            if cycles:  # whole cycles of the dilations, one loop body

                def cycle(_, carry, start=start):
                    for level in range(start, start + len(self.dilations)):
                        carry = level_fn(level, *carry)
                    return carry

                h, c = _repeat(cycle, cycles, (h, c))
            else:
                h, c = level_fn(start, h, c)
                if self._is_aux(start):
                    aux.append(h[..., -self.output_units :])
        if self.num_levels > 1:
            h, c = level_fn(self.num_levels - 1, h, c, top_channels)
            if self._is_aux(self.num_levels - 1):
                aux.append(h[..., -self.output_units :])
        outputs = [h[..., -self.output_units :]]
        if self.aux_frequency is not None:
            outputs.append(ops.stack(aux, axis=2))
        # The state after each sequence's last real step.
        h_last, c_last = last_real_step(h, mask), last_real_step(c, mask)
        if self.stateful:  # history repackaging: no gradient into the past
            self.state_h.assign(ops.cast(ops.stop_gradient(h_last), self.state_h.dtype))
            self.state_c.assign(ops.cast(ops.stop_gradient(c_last), self.state_c.dtype))
        if self.return_state:
            outputs += [h_last, c_last]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _level_dilations(self):
        return [self._dilation(level) for level in range(self.num_levels)]

    # Whether runs of whole dilation cycles without an auxiliary output are
    # one loop (`_repeat`; the same weights and dilations in every cycle):
    # the compiled program then does not grow with the depth. Tests turn it
    # off to compare with the levels one by one.
    _loop_cycles = True

    def _level_plan(self):
        """The levels between the first and the top: `(level, 0)` for one
        level, `(start, n)` for `n >= 2` whole cycles of the dilations from
        `start` (levels `start .. start + n * len(dilations) - 1`) with no
        auxiliary output among them."""
        period, f = len(self.dilations), self.aux_frequency
        plan, level, top = [], 1, self.num_levels - 1
        while level < top:
            # The loop stops before the next auxiliary level, run on its own.
            end = min(top, -(-(level + 1) // f) * f - 1) if f else top
            cycles = (end - level) // period if self._loop_cycles else 0
            if cycles >= 2:
                plan.append((level, cycles))
                level += cycles * period
            stop = min(end + 1, top)
            plan.extend((single, 0) for single in range(level, stop))
            level = max(level, stop)
        return plan

    def _is_aux(self, level):
        return bool(self.aux_frequency) and (level + 1) % self.aux_frequency == 0

    def _fold_input(self, input_dim):
        """Whether each level's matmul also reads the input taps (and a ones
        column for the bias), instead of adding an input convolution computed
        once per distinct dilation. Folding saves one `4 * hidden_units`-wide
        tensor per distinct dilation and an addition per level; it costs
        `kernel_size * input_dim` more rows of the matmul at the levels whose
        dilation an earlier level already had: folded when those extra rows
        average at most 1/16 of the hidden convolution's."""
        dilations = self._level_dilations()
        repeated = len(dilations) - len(set(dilations))
        k = self.kernel_size
        return 16 * k * input_dim * repeated <= k * self.hidden_units * len(dilations)

    def _first_level(self, pre_activation, h_pad, c_pad, channels):
        """Level 0 reads `h = c = 0`: the hidden convolution only sees the
        history `h_pad` in the first `(k - 1) d` steps, and `c_{t-d}` is `c_0`
        in the first `d` steps (nothing at all with a zero history, where the
        forget gate is not needed)."""
        hidden, k = self.hidden_units, self.kernel_size
        d = self._dilation(0)
        columns = _Columns(hidden, channels, gates=3 if c_pad is None else 4)
        pre = pre_activation.input_part(0, columns)
        if h_pad is not None and k > 1:
            pre = _add_to_first_steps(pre, pre_activation.history_rows(h_pad, d, columns))
        gates = ops.split(pre, columns.gates, axis=-1)
        c = ops.sigmoid(gates[0]) * ops.tanh(gates[2])
        if c_pad is not None:  # + sigmoid(f) c_0 in the first d steps
            forget = ops.sigmoid(gates[3][:, :d]) * ops.expand_dims(c_pad[:, hidden - channels :], 1)
            c = ops.concatenate([c[:, :d] + forget, c[:, d:]], axis=1)
        return ops.sigmoid(gates[1]) * ops.tanh(c), c

    def _level(self, pre_activation, level, h, c, h_pad, c_pad, channels):
        """One trellis level: eq. 1 (convolution + injection) and the gated
        activation of Sec. 5.1, for the last `channels` hidden channels. `h`
        and `h_pad` (the history that fills the causal padding; None when
        zero) are the hidden convolution's input, already masked by the
        hidden dropout in training."""
        hidden = self.hidden_units
        d = self._dilation(level)
        columns = _Columns(hidden, channels)
        pre = pre_activation(level, _hidden_taps(h, h_pad, d, self.kernel_size), columns)
        i, o, g, f = ops.split(pre, 4, axis=-1)
        c_pad = None if c_pad is None else c_pad[:, hidden - channels :]
        c_prev = _shift(c[..., hidden - channels :], c_pad, d)
        c = ops.sigmoid(f) * c_prev + ops.sigmoid(i) * ops.tanh(g)
        return ops.sigmoid(o) * ops.tanh(c), c

    def _kernels(self, weight_dropout=False):
        """The effective `(input_kernel, hidden_kernel)` of this call. With
        `weight_dropout`, the earlier taps of each raw kernel (the direction
        `v` under weight normalisation) are masked first, then normalised."""
        if not weight_dropout:
            if not self.weight_norm:
                return self.input_kernel, self.hidden_kernel
            return (
                self.input_kernel_gain * self.input_kernel / _channel_norm(self.input_kernel),
                self.hidden_kernel_gain * self.hidden_kernel / _channel_norm(self.hidden_kernel),
            )
        kernels = []
        for name in ("input_kernel", "hidden_kernel"):
            v = self._drop_earlier_taps(getattr(self, name))
            if self.weight_norm:
                v = getattr(self, name + "_gain") * v / _safe_channel_norm(v)
            kernels.append(v)
        return tuple(kernels)

    def _drop_earlier_taps(self, kernel):
        """Temporal weight drop: the taps `j < k - 1` (all of them if
        `k = 1`) times `_weight_dropout_mask`; the current-step tap as is."""
        kernel = ops.convert_to_tensor(kernel)
        if kernel.shape[0] == 1:
            return kernel * ops.cast(self._weight_dropout_mask(tuple(kernel.shape)), kernel.dtype)
        earlier = kernel[:-1]
        mask = ops.cast(self._weight_dropout_mask(tuple(earlier.shape)), kernel.dtype)
        return ops.concatenate([earlier * mask, kernel[-1:]], axis=0)

    def _weight_dropout_mask(self, shape):
        """Multiplier of the dropped taps: 0 with probability
        `weight_dropout`, else `1 / (1 - weight_dropout)`, elementwise.
        Called once per kernel per training call (input kernel first); a
        hook that tests override to inject a known mask."""
        ones = ops.ones(shape, dtype=self.compute_dtype)
        return keras.random.dropout(ones, self.weight_dropout, seed=self.seed_generator)

    def _stored_state(self, sequences):
        batch = sequences.shape[0]
        expected = self.state_h.shape[0]
        if batch is not None and batch != expected:
            raise ValueError(
                f"A stateful TrellisBlock was built for batch size {expected}; "
                f"got a batch of {batch}. Use batches of exactly {expected} rows "
                "(drop_remainder=True)."
            )
        # A copy, so that the assignment at the end of the call does not
        # modify a tensor the backward pass still needs (PyTorch).
        return tuple(
            ops.cast(ops.copy(ops.convert_to_tensor(v)), self.compute_dtype) for v in (self.state_h, self.state_c)
        )

    def reset_states(self):
        """Zeroes the stored `(h, c)` of a stateful block."""
        for variable in (self.state_h, self.state_c):
            if variable is not None:
                variable.assign(ops.zeros(variable.shape, dtype=variable.dtype))

    reset_state = reset_states

    def _dropout_mask(self, like):
        """The hidden-dropout mask `(batch, 1, hidden_units)` of this call
        (shared over time and levels; `like` is `h_0`): 0 with probability
        `dropout`, else `1 / (1 - dropout)`. Drawn after the weight-drop
        masks; a hook that tests override to inject a known mask."""
        ones = ops.ones_like(like)[:, None, :]
        return keras.random.dropout(ones, self.dropout, seed=self.seed_generator)

    def _initial_state(self, sequences, initial_state):
        batch = ops.shape(sequences)[0]
        if initial_state is None:
            zeros = ops.zeros((batch, self.hidden_units), dtype=self.compute_dtype)
            return zeros, zeros
        validation.trellis_state(initial_state, sequences.shape[0], self.hidden_units)
        return tuple(ops.cast(ops.convert_to_tensor(s), self.compute_dtype) for s in initial_state)

    # ------------------------------------------------------------------
    # Theorem 1
    # ------------------------------------------------------------------
    @classmethod
    def from_lstm(cls, lstm, history, **kwargs):
        """A TrellisBlock computing a (built) Keras LSTM truncated to `history`
        steps: Theorem 1 / Appendix A for one LSTM layer.

        With kernel size 2, dilation 1 and `history` levels, the block's
        level-`j` output at `t` is the LSTM's hidden state after the `j` steps
        `x_{t-j+1..t}` from a zero state, so the top output at `t` is the LSTM
        run over the last `history` inputs. The kernels are the sparse ones of
        the theorem: the input tap at `t-1` and the hidden tap at `t` are zero,
        the input tap at `t` is the LSTM's `kernel` and the hidden tap at `t-1`
        is its `recurrent_kernel` (gates reordered from Keras' i, f, g, o to
        i, o, g, f). The cell-state channels are carried separately (`c`), as
        the theorem's construction requires; the spec's layout already does
        this, so the width stays `units` (no mixed-group widening is needed
        for one layer). Weight normalisation is off.

        Args:
            lstm: A built `keras.layers.LSTM` or `keras.layers.LSTMCell` with
                the default activations (`tanh`, `sigmoid`), not
                `go_backwards`.
            history: Positive integer `M`, the truncation length (levels).
            **kwargs: Other `TrellisBlock` arguments (`return_state`, `name`,
                ...). `kernel_size`, `dilations` and `weight_norm` are fixed.

        Returns:
            A built `TrellisBlock` with `hidden_units = output_units = units`.
        """
        validation.positive_int("history", history)
        cell = getattr(lstm, "cell", lstm)
        if not isinstance(cell, keras.layers.LSTMCell):
            raise ValueError(f"`from_lstm` expects a keras.layers.LSTM or LSTMCell; got {type(lstm).__name__}.")
        if not cell.built:
            raise ValueError(
                f"`from_lstm` needs a built LSTM (call it once or call build); {lstm.name!r} is not built."
            )
        if getattr(lstm, "go_backwards", False):
            raise ValueError("`from_lstm` cannot emulate an LSTM with go_backwards=True.")
        activations = (
            keras.activations.serialize(cell.activation),
            keras.activations.serialize(cell.recurrent_activation),
        )
        if activations != ("tanh", "sigmoid"):
            raise ValueError(
                "`from_lstm` needs activation='tanh' and recurrent_activation="
                f"'sigmoid' (the gated activation of TrellisBlock); got {activations}."
            )
        for fixed in ("kernel_size", "dilations", "weight_norm"):
            if fixed in kwargs:
                raise ValueError(f"`from_lstm` fixes `{fixed}`; do not pass it.")
        kwargs.setdefault("dtype", lstm.dtype_policy)
        units = cell.units
        block = cls(
            units,
            units,
            history,
            kernel_size=2,
            dilations=(1,),
            weight_norm=False,
            **kwargs,
        )
        kernel = ops.convert_to_numpy(cell.kernel)
        input_dim = kernel.shape[0]
        block.build((None, None, input_dim))
        recurrent = ops.convert_to_numpy(cell.recurrent_kernel)
        bias = ops.convert_to_numpy(cell.bias) if cell.use_bias else np.zeros((4 * units,), kernel.dtype)
        input_kernel = np.zeros((2, input_dim, 4 * units), kernel.dtype)
        hidden_kernel = np.zeros((2, units, 4 * units), kernel.dtype)
        input_kernel[1] = _reorder_gates(kernel, units)  # x_t
        hidden_kernel[0] = _reorder_gates(recurrent, units)  # h_{t-1}
        block.input_kernel.assign(input_kernel)
        block.hidden_kernel.assign(hidden_kernel)
        block.bias.assign(_reorder_gates(bias, units))
        return block

    def get_config(self):
        config = {
            "hidden_units": self.hidden_units,
            "output_units": self.output_units,
            "num_levels": self.num_levels,
            "kernel_size": self.kernel_size,
            "dilations": list(self.dilations),
            "dropout": self.dropout,
            "weight_norm": self.weight_norm,
            "aux_frequency": self.aux_frequency,
            "return_state": self.return_state,
            "weight_dropout": self.weight_dropout,
            "stateful": self.stateful,
            "forget_bias": self.forget_bias,
            "seed": self.seed,
        }
        config.update(validation.weight_options_config(self, ("input_kernel", "hidden_kernel", "bias")))
        return {**super().get_config(), **config}


class _Columns:
    """Which pre-activation columns a level computes: the first `gates` of
    (i, o, g, f) (3 when the forget gate is not needed), each for the last
    `channels` of the `hidden` channels."""

    def __init__(self, hidden, channels, gates=4):
        self.hidden, self.channels, self.gates = hidden, channels, gates

    def __call__(self, tensor):
        """The selected columns of `(..., 4 * hidden)` -> `(..., gates * channels)`."""
        hidden, start = self.hidden, self.hidden - self.channels
        if start == 0:
            return tensor if self.gates == 4 else tensor[..., : self.gates * hidden]
        return ops.concatenate(
            [tensor[..., g * hidden + start : (g + 1) * hidden] for g in range(self.gates)],
            axis=-1,
        )


class _PreActivation:
    """`pre^(i+1) = conv_x(x) + conv_h(h^(i)) + b` of one call, each
    convolution a matmul over the taps (shifted copies) along the channels.

    Folded (`fold=True`): the input taps and a ones column (for the bias) are
    built once per distinct dilation and concatenated with the hidden taps,
    so each level is one matmul with the stacked kernel `[U; b; W]`.
    Otherwise `conv_x(x) + b` is computed once per distinct dilation and
    added at every level."""

    def __init__(self, sequences, input_kernel, hidden_kernel, bias, dilations, fold):
        k, _, width = input_kernel.shape
        self.fold, self.dilations = fold, dilations
        self.taps_kernel = hidden_kernel  # (k, hidden, width)
        self.hidden_kernel = ops.reshape(hidden_kernel, (-1, width))
        bias = ops.convert_to_tensor(bias)
        if fold:
            ones = ops.ones_like(sequences[..., :1])
            self.inputs = {
                d: ops.concatenate(_input_taps(sequences, d, k) + [ones], axis=-1) for d in sorted(set(dilations))
            }
            self.input_kernel = ops.concatenate(
                [ops.reshape(input_kernel, (-1, width)), ops.expand_dims(bias, 0)], axis=0
            )
            self.kernel = ops.concatenate([self.input_kernel, self.hidden_kernel], axis=0)
        else:
            self.injected = {d: _causal_conv(sequences, input_kernel, d) + bias for d in sorted(set(dilations))}

    def input_part(self, level, columns):
        """`conv_x(x) + b` at `level`, the selected columns."""
        d = self.dilations[level]
        if self.fold:
            return ops.matmul(self.inputs[d], columns(self.input_kernel))
        return columns(self.injected[d])

    def __call__(self, level, hidden_taps, columns):
        """The whole pre-activation of `level` from the hidden taps."""
        d = self.dilations[level]
        if self.fold:
            stacked = ops.concatenate([self.inputs[d]] + hidden_taps, axis=-1)
            return ops.matmul(stacked, columns(self.kernel))
        stacked = hidden_taps[0] if len(hidden_taps) == 1 else ops.concatenate(hidden_taps, axis=-1)
        return columns(self.injected[d]) + ops.matmul(stacked, columns(self.hidden_kernel))

    def history_rows(self, h_pad, d, columns):
        """What the history contributes to conv_h(0) at level 0: step `t`
        gets `sum_j h_pad W_j` over the taps `j` with `t - (k-1-j) d < 0`,
        i.e. `(k - 1) d` rows, in blocks of `d` equal rows."""
        kernel = self.taps_kernel
        k = kernel.shape[0]
        per_tap = [ops.matmul(h_pad, columns(kernel[j])) for j in range(k - 1)]
        blocks, total = [], None
        for j in range(k - 1):  # block m = k - 2 - j holds sum_{j' <= j}
            total = per_tap[j] if total is None else total + per_tap[j]
            blocks.append(_repeat_step(total, d))
        return ops.concatenate(blocks[::-1], axis=1) if len(blocks) > 1 else blocks[0]


def _step_mask(mask):
    """A `(batch, time)` mask as a boolean `(batch, time, 1)`, or None."""
    if mask is None:
        return None
    return ops.expand_dims(ops.cast(mask, "bool"), -1)


def _repeat(body, count, carry):
    """`carry = body(i, carry)` for `i < count` (a static count), as one
    loop that XLA compiles once and that reverse-mode differentiates: a scan
    on JAX (`fori_loop` with static bounds), a Python loop on PyTorch, and on
    TensorFlow a `while_loop` with `maximum_iterations`, without which XLA
    cannot build its gradient."""
    if keras.backend.backend() == "tensorflow":
        return ops.while_loop(
            lambda i, carry: i < count,
            lambda i, carry: (i + 1, body(i, carry)),
            (ops.convert_to_tensor(0, "int32"), carry),
            maximum_iterations=count,
        )[1]
    return ops.fori_loop(0, count, body, carry)


def _add_to_first_steps(sequence, rows):
    """`sequence` with `rows` (`(batch, p, channels)`, p possibly more than
    the steps) added to its first `p` steps."""
    p = rows.shape[1]
    head = sequence[:, :p]
    return ops.concatenate([head + rows[:, : ops.shape(head)[1]], sequence[:, p:]], axis=1)


def _input_taps(sequences, dilation, k):
    """The `k` zero-padded shifted copies `x_{t-(k-1-j)d}`, `j = 0..k-1`."""
    return _hidden_taps(sequences, None, dilation, k)


def _hidden_taps(h, h_pad, dilation, k):
    """The `k` shifted copies `h_{t-(k-1-j)d}` whose first `(k-1-j) d`
    steps hold `h_pad` (`(batch, hidden)`), or zeros when it is None."""
    return [_shift(h, h_pad, (k - 1 - j) * dilation) for j in range(k - 1)] + [h]


def _shift(sequence, fill, steps):
    """`sequence` `(batch, time, channels)` delayed by `steps`: the first
    `steps` (or all, if fewer) steps hold `fill` (`(batch, channels)`), or
    zeros when it is None. (Works for an unknown number of steps.)"""
    head = ops.zeros_like(sequence[:, :steps])
    if fill is not None:
        head = head + ops.expand_dims(fill, 1)
    return ops.concatenate([head, sequence[:, :-steps]], axis=1)


def _causal_conv(sequences, kernel, dilation):
    """Causal dilated convolution `(batch, time, in) -> (batch, time, out)`
    of a zero-padded sequence, as one matmul over the `k` shifted copies."""
    taps = _input_taps(sequences, dilation, kernel.shape[0])
    stacked = taps[0] if len(taps) == 1 else ops.concatenate(taps, axis=-1)
    return ops.matmul(stacked, ops.reshape(kernel, (-1, kernel.shape[-1])))


def _repeat_step(state, steps):
    """`(batch, channels)` -> `(batch, steps, channels)`."""
    return ops.repeat(ops.expand_dims(state, 1), steps, axis=1)


def _channel_norm(kernel):
    """L2 norm per output channel over taps and inputs: `(out,)`."""
    return ops.sqrt(ops.sum(ops.square(kernel), axis=(0, 1)))


def _safe_channel_norm(kernel):
    """`_channel_norm`, with 1 for an all-zero channel (which weight drop can
    make), so that the normalised channel is zero with a finite gradient."""
    squares = ops.sum(ops.square(kernel), axis=(0, 1))
    return ops.sqrt(ops.where(squares > 0, squares, ops.ones_like(squares)))


def _reorder_gates(weights, units):
    blocks = [weights[..., g * units : (g + 1) * units] for g in range(4)]
    return np.concatenate([blocks[g] for g in _FROM_KERAS_LSTM_ORDER], axis=-1)
