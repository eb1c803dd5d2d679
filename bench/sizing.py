"""Equal-size comparisons: the width at which a model has a given number of
parameters."""

# Weights of Keras' recurrent layers of `units` units on `inputs` features:
# kernel, recurrent kernel and bias(es) per gate (GRU: reset_after=True, the
# default, has two bias rows).
GATES = {"SimpleRNN": (1, 1), "GRU": (3, 2), "LSTM": (4, 1)}


def recurrent_parameters(kind, inputs, units):
    """Parameter count of `keras.layers.<kind>(units)` on `inputs` features."""
    gates, biases = GATES[kind]
    return gates * units * (inputs + units + biases)


def matching_width(count, target, largest):
    """The width in [1, largest] whose parameter count `count(width)` is
    closest to `target` (counts grow with the width: bisection)."""
    low, high = 1, largest
    while high - low > 1:
        middle = (low + high) // 2
        if count(middle) < target:
            low = middle
        else:
            high = middle
    return min((low, high), key=lambda width: abs(count(width) - target))
