"""The optimizer a zoo builder compiles with."""

import keras

OPTIMIZERS = {"adam": keras.optimizers.Adam, "sgd": keras.optimizers.SGD}


def make_optimizer(name="adam", learning_rate=1e-3, clipnorm=None):
    """`name` ("adam" or "sgd") at `learning_rate`, with global gradient-norm
    clipping at `clipnorm` if given.

    Example:

    >>> make_optimizer("sgd", 20.0, clipnorm=0.225)
    """
    if name not in OPTIMIZERS:
        raise ValueError(f"Unknown optimizer {name!r}; use one of {', '.join(OPTIMIZERS)}.")
    clip = {"global_clipnorm": clipnorm} if clipnorm else {}
    return OPTIMIZERS[name](learning_rate, **clip)


def optimizer_steps(optimizer):
    """The updates `optimizer` applied, read as a number under any strategy
    (a MirroredVariable has no `int()`)."""
    value = optimizer.iterations.value
    if hasattr(value, "numpy"):  # a TensorFlow variable, mirrored or not
        return int(value.numpy())
    return int(keras.ops.convert_to_numpy(value))
