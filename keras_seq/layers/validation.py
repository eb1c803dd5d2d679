"""Argument and input checks shared by the layers (and one get_config helper).

Each raises a `ValueError` that names the argument, what was expected and
what was received, before any backend op can fail with its own trace.
"""

import numbers

import numpy as np
from keras import ops


def positive_int(name, value, minimum=1):
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Integral)
        or value < minimum
    ):
        raise ValueError(
            f"`{name}` must be an integer >= {minimum}; got {value!r}."
        )


def rate(name, value):
    if not isinstance(value, numbers.Real) or not 0.0 <= value < 1.0:
        raise ValueError(f"`{name}` must be a float in [0, 1); got {value!r}.")


def finite_float(name, value):
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not np.isfinite(value)
    ):
        raise ValueError(f"`{name}` must be a finite float; got {value!r}.")


def rank(what, shape, expected, layout):
    shape = tuple(shape)
    if len(shape) != expected:
        raise ValueError(
            f"{what} must have rank {expected} {layout}; got shape {shape} "
            f"(rank {len(shape)})."
        )


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
            f"One-hot `labels` must have depth num_classes={num_classes}; got "
            f"shape {shape} (depth {shape[-1]})."
        )
    for axis, axis_name in ((0, "batch size"), (1, "number of time steps")):
        a, b = sequences_shape[axis], shape[axis]
        if a is not None and b is not None and a != b:
            raise ValueError(
                f"`labels` and inputs have different {axis_name}: inputs "
                f"{tuple(sequences_shape)}, labels {shape}."
            )
    if len(shape) == 2:
        values = _concrete(labels)
        if values is not None and values.size and (
            values.min() < 0 or values.max() >= num_classes
        ):
            raise ValueError(
                f"Class ids in `labels` must lie in [0, {num_classes - 1}] "
                f"(num_classes={num_classes}); got values from {values.min()} "
                f"to {values.max()}."
            )


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
        raise ValueError(
            f"`{name}` must be a non-empty sequence of integers >= 1; got "
            f"{values!r}."
        ) from None
    if not values or any(
        isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1
        for v in values
    ):
        raise ValueError(
            f"`{name}` must be a non-empty sequence of integers >= 1; got "
            f"{values!r}."
        )
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
            raise ValueError(
                f"`initial_state` {what} must have shape (batch, hidden_units) "
                f"= {expected}; got {shape}."
            )


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
