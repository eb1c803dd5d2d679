"""Argument and input checks shared by the layers (and one get_config helper).

Each raises a `ValueError` that names the argument, what was expected and
what was received, before any backend op can fail with its own trace.
"""

import numbers

import numpy as np
from keras import ops
from keras import tree


def positive_int(name, value, minimum=1):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"`{name}` must be an integer >= {minimum}; got {value!r}.")


def rate(name, value):
    if not isinstance(value, numbers.Real) or not 0.0 <= value < 1.0:
        raise ValueError(f"`{name}` must be a float in [0, 1); got {value!r}.")


def finite_float(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"`{name}` must be a finite float; got {value!r}.")


def rank(what, shape, expected, layout):
    shape = tuple(shape)
    if len(shape) != expected:
        raise ValueError(f"{what} must have rank {expected} {layout}; got shape {shape} (rank {len(shape)}).")


def nonempty_time(what, shape):
    """Sequences need at least one step (a static length of 0 fails)."""
    if len(shape) > 1 and shape[1] == 0:
        raise ValueError(f"{what} must have at least one time step; got shape {tuple(shape)} (length 0).")


def step_mask(mask, sequences_shape):
    """Checks a mask of shape `(batch, time)` against `(batch, time, ...)`."""
    shape = tuple(mask.shape)
    expected = tuple(sequences_shape[:2])
    if len(shape) != 2 or any(a is not None and b is not None and a != b for a, b in zip(shape, expected)):
        raise ValueError(f"`mask` must have shape (batch, time) = {expected}; got {shape}.")


def sequence_mask(what, sequences, mask=None, sequences_mask=None):
    """Checks `(batch, time, features)` sequences of at least one step and
    returns their `(batch, time)` mask, checked against them: `mask`, else
    `sequences_mask`, where Keras passes the mask carried by `sequences`
    when a call has more than one tensor argument (`labels=`,
    `initial_state=`)."""
    rank(what, sequences.shape, 3, "(batch, time, features)")
    nonempty_time(what, sequences.shape)
    mask = sequences_mask if mask is None else mask
    if mask is not None:
        step_mask(mask, sequences.shape)
    return mask


def labels(labels, sequences_shape, num_classes):
    """Checks labels given as ids `(batch, time)` or one-hot `(..., K)`."""
    shape = tuple(labels.shape)
    if len(shape) not in (2, 3):
        raise ValueError(
            "`labels` must be class ids of shape (batch, time) or one-hot of "
            f"shape (batch, time, num_classes={num_classes}); got shape {shape}."
        )
    if len(shape) == 3 and shape[-1] != num_classes:
        raise ValueError(
            f"One-hot `labels` must have depth num_classes={num_classes}; got shape {shape} (depth {shape[-1]})."
        )
    for axis, axis_name in ((0, "batch size"), (1, "number of time steps")):
        a, b = sequences_shape[axis], shape[axis]
        if a is not None and b is not None and a != b:
            raise ValueError(
                f"`labels` and inputs have different {axis_name}: inputs {tuple(sequences_shape)}, labels {shape}."
            )


def label_values(labels, num_classes, mask=None):
    """Checks the values of `labels` (after `labels(...)` checked the
    shape) at the steps `mask` keeps (all when None): class ids must be
    integers in `[0, num_classes)`; one-hot / distribution rows must lie in
    [0, 1] and sum to 1.

    Eager values raise a `ValueError` here and return None. In traced code
    (`fit`, `predict`, `jit`) the check runs with the step
    (`_raise_at_run_time`) and this returns the scalar boolean tensor
    "labels are invalid", for `guard` to act on where the backend cannot
    raise (TensorFlow under XLA)."""
    ids = len(labels.shape) == 2
    if ids:
        what = f"class ids in `labels` must be integers in [0, {num_classes - 1}] (num_classes={num_classes})"
    else:
        what = (
            "one-hot / distribution `labels` must have values in [0, 1] that "
            f"sum to 1 over the last axis (num_classes={num_classes})"
        )
    return _checked(
        labels,
        lambda xp, values: _bad_label_steps(xp, values, num_classes, ids),
        lambda values, index: f"{what}; got {values[index]!r} at (batch, step) = {index}.",
        f"{what}; got other values.",
        mask,
    )


def id_values(what, ids, sizes):
    """Checks that the token ids `ids` are integers in `[0, sizes)`, where
    `sizes` is one vocabulary size or one per column of the last axis.

    As `label_values`: eager values raise a `ValueError` naming the first
    bad id, its position and its range, and return None; in traced code the
    check runs with the step and this returns the scalar boolean tensor
    "ids are invalid", for `guard`."""
    bounds = np.asarray(sizes)

    def bad_steps(xp, values):
        return _bad_label_steps(
            xp, values, bounds if xp is np else ops.convert_to_tensor(bounds, values.dtype), ids=True
        )

    def eager_message(values, index):
        size, column = (bounds[index[-1]], f" (column {index[-1]})") if bounds.ndim else (bounds, "")
        return f"{what} must be integers in [0, {size}){column}; got {values[index]!r} at {index}."

    if bounds.ndim:
        traced = (
            f"{what} must be integers in [0, n), n the vocabulary size of their column "
            f"({bounds.tolist()}); got other values."
        )
    else:
        traced = f"{what} must be integers in [0, {bounds}); got other values."
    return _checked(ids, bad_steps, eager_message, traced)


def _checked(tensor, bad_steps, eager_message, traced_message, mask=None):
    """The value check of `label_values` and `id_values`: `bad_steps(xp,
    values)` marks the bad entries (`xp` numpy or `keras.ops`), `mask` the
    ones that count. Concrete values raise `ValueError(eager_message(values,
    index of the first bad one))` and return None; traced ones raise
    `traced_message` when the step runs and return the "failed" flag."""
    values = _concrete(tensor)
    keep = None if mask is None else _concrete(mask)
    if values is not None and (mask is None or keep is not None):
        bad = bad_steps(np, values)
        if keep is not None:
            bad = bad & keep.astype(bool)
        if bad.any():
            raise ValueError(eager_message(values, tuple(int(i) for i in np.argwhere(bad)[0])))
        return None
    bad = bad_steps(ops, tensor)
    if mask is not None:
        bad = ops.logical_and(bad, ops.cast(mask, "bool"))
    return _raise_at_run_time(ops.any(bad), traced_message)


def guard(outputs, failed):
    """`outputs` (a tensor or a nest of them, computed from values that
    `label_values` / `id_values` checked), or NaN everywhere when `failed`
    (their scalar boolean flag, or None) holds, with no gradient through
    the NaN: where a compiled step cannot raise (TensorFlow under XLA) the
    loss turns NaN, and the weights get a zero gradient from the step
    instead of one computed from invalid values. On TensorFlow `failed`
    carries the check's assertion, so in graph mode the step raises before
    its update can be applied."""
    from keras import backend

    if failed is None or backend.backend() == "torch":  # PyTorch: eager steps checked the values themselves
        return outputs

    def one(tensor):
        if not hasattr(tensor, "dtype") or "float" not in str(tensor.dtype):
            return tensor
        nan = ops.stop_gradient(ops.full_like(tensor, float("nan")))
        return ops.where(failed, nan, tensor)

    return tree.map_structure(one, outputs)


def _bad_label_steps(xp, labels, num_classes, ids):
    """Boolean `(batch, time)`: where `labels` (numpy or a tensor; `xp` is
    numpy or `keras.ops`) break the rules of `label_values`."""
    if ids:
        bad = xp.logical_or(labels < 0, labels >= num_classes)
        if "int" not in str(labels.dtype):
            bad = xp.logical_or(bad, xp.not_equal(labels, xp.floor(labels)))
        return bad
    out_of_range = xp.any(xp.logical_or(labels < 0, labels > 1), axis=-1)
    not_summing = xp.abs(xp.sum(labels, axis=-1) - 1) > 1e-3
    # NaN fails every comparison: name it as bad explicitly.
    nan = xp.any(xp.isnan(labels), axis=-1) if "float" in str(labels.dtype) else False
    return xp.logical_or(xp.logical_or(out_of_range, not_summing), nan)


def _raise_at_run_time(failed, message):
    """Raises `ValueError(message)` when the scalar boolean `failed` turns
    out true while the traced computation runs; returns the flag (on
    TensorFlow, one that depends on the check).

    The one place where the layers use backend APIs: keras.ops has no
    checked op. JAX: a `jax.debug.callback` raises it (it surfaces in the
    runtime error of the jitted step). TensorFlow: a `tf.debugging.Assert`
    (graph mode: an `InvalidArgumentError` with the message; XLA compiles it
    to nothing, hence `guard`). PyTorch runs eagerly, where the values
    were checked before this point."""
    from keras import backend

    name = backend.backend()
    if name == "jax":
        import jax

        def check(failed):
            if bool(failed):
                raise ValueError(message)

        jax.debug.callback(check, failed)
    elif name == "tensorflow":
        import tensorflow as tf

        # What reads the flag (the guarded outputs, hence the loss, the
        # gradients and the update) runs after the assertion.
        with tf.control_dependencies([tf.debugging.Assert(tf.logical_not(failed), [message])]):
            return tf.identity(failed)
    return failed


def _concrete(tensor):
    """The values of an eager tensor as numpy, or None while tracing."""
    if isinstance(tensor, np.ndarray):
        return tensor
    try:
        return ops.convert_to_numpy(tensor)
    except Exception:  # symbolic or traced: values are unknown until run time
        return None


def one_of(name, value, choices):
    if value not in choices:
        options = ", ".join(repr(c) for c in choices)
        raise ValueError(f"`{name}` must be one of {options}; got {value!r}.")


def positive_int_sequence(name, values):
    """Checks a non-empty sequence of integers >= 1; returns it as a tuple."""
    if isinstance(values, numbers.Integral) and not isinstance(values, bool):
        values = (values,)
    try:
        values = tuple(values)
    except TypeError:
        raise ValueError(f"`{name}` must be a non-empty sequence of integers >= 1; got {values!r}.") from None
    if not values or any(isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1 for v in values):
        raise ValueError(f"`{name}` must be a non-empty sequence of integers >= 1; got {values!r}.")
    return tuple(int(v) for v in values)


def trellis_state(state, batch_size, hidden_units):
    """Checks a TrellisBlock initial state: `[h_0, c_0]`, each
    `(batch, hidden_units)`."""
    expected = (batch_size, hidden_units)
    if not isinstance(state, (list, tuple)) or len(state) != 2:
        raise ValueError(
            "`initial_state` must be [h_0, c_0], two tensors of shape (batch, "
            f"hidden_units) = {expected}; got {_describe(state)}."
        )
    for what, tensor in zip(("h_0", "c_0"), state):
        shape = tuple(getattr(tensor, "shape", np.shape(tensor)))
        if (
            len(shape) != 2
            or shape[1] != hidden_units
            or (None not in (batch_size, shape[0]) and shape[0] != batch_size)
        ):
            raise ValueError(f"`initial_state` {what} must have shape (batch, hidden_units) = {expected}; got {shape}.")


def _describe(value):
    if isinstance(value, (list, tuple)):
        return f"{type(value).__name__} of {len(value)}"
    return f"{type(value).__name__} of shape {tuple(getattr(value, 'shape', ()))}"


def weight_options_config(layer, weights):
    """The `<weight>_initializer/_regularizer/_constraint` entries of
    `get_config` for each name in `weights`, serialized."""
    from keras import constraints
    from keras import initializers
    from keras import regularizers

    config = {}
    for weight in weights:
        config[f"{weight}_initializer"] = initializers.serialize(getattr(layer, f"{weight}_initializer"))
        config[f"{weight}_regularizer"] = regularizers.serialize(getattr(layer, f"{weight}_regularizer"))
        config[f"{weight}_constraint"] = constraints.serialize(getattr(layer, f"{weight}_constraint"))
    return config
