"""How much the output of a freshly initialised TrellisNet depends on inputs
far back: mean |d y / d x_t| on adding-problem batches (T=200) for a few
initialisations (gate biases i, o, g, f and a scale of the hidden kernel).

    python bench/trellis_sensitivity.py

Runs on JAX (one gradient per setting, a few seconds). Prints a Markdown
table; the columns are positions t, counted from the last step T-1.
"""

import os
import sys

os.environ["KERAS_BACKEND"] = "jax"
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402

from keras_seq.data import synthetic  # noqa: E402
from keras_seq.models.trellisnet import TrellisNet  # noqa: E402

STEPS = 200
LAGS = (0, 9, 49, 99, 149, 199)
SETTINGS = (  # kernel size, dilations, gate biases (i, o, g, f), hidden kernel scale
    (2, tuple(2**i for i in range(8)), (0, 0, 0, 0), 1.0),
    (2, tuple(2**i for i in range(8)), (0, 0, 0, 1), 1.0),
    (2, tuple(2**i for i in range(8)), (1, 1, 0, 1), 2.0),
    (2, tuple(2**i for i in range(8)), (2, 2, 0, 2), 2.0),
    (6, (1, 2, 4, 8, 16, 32), (0, 0, 0, 0), 1.0),
    (6, (1, 2, 4, 8, 16, 32), (2, 2, 0, 2), 2.0),
)


def sensitivity(x, kernel_size, dilations, gate_bias, hidden_scale, hidden=32):
    keras.utils.set_random_seed(0)
    model = TrellisNet(
        hidden,
        16,
        len(dilations),
        input_dim=2,
        num_outputs=1,
        return_sequences=False,
        dilations=dilations,
        kernel_size=kernel_size,
    )
    block = model.get_layer("trellis")
    block.bias.assign(np.repeat(gate_bias, hidden).astype("float32"))
    block.hidden_kernel_gain.assign(hidden_scale * block.hidden_kernel_gain)
    grad = jax.grad(lambda inputs: model(inputs).sum())(jnp.asarray(x))
    return np.abs(np.asarray(grad)).mean(axis=(0, 2))


def main():
    x, _ = synthetic.adding_problem(64, STEPS, seed=0)
    print(
        "| kernel | dilations | gate bias i,o,g,f | hidden scale | "
        + " | ".join(f"t = T-1-{lag}" for lag in LAGS)
        + " |"
    )
    print("|---|---|---|---|" + "---:|" * len(LAGS))
    for kernel_size, dilations, gate_bias, scale in SETTINGS:
        per_step = sensitivity(x, kernel_size, dilations, gate_bias, scale)
        cells = " | ".join(f"{per_step[STEPS - 1 - lag]:.1e}" for lag in LAGS)
        print(f"| {kernel_size} | {','.join(map(str, dilations))} | {gate_bias} | {scale} | {cells} |")


if __name__ == "__main__":
    main()
