"""`MaxSpectralNorm`: against numpy's singular values, in an optimizer step
(compiled: XLA on JAX and TensorFlow), and through saving."""

import keras
import numpy as np
import pytest

from keras_seq.constraints import MaxSpectralNorm
from keras_seq.layers import LMN


def _largest_singular_value(w):
    return float(np.linalg.svd(np.asarray(w, "float64"), compute_uv=False)[0])


@pytest.mark.parametrize("shape", [(6, 6), (4, 9)])
def test_a_matrix_above_the_bound_is_scaled_onto_it(rng, shape):
    w = (3.0 * rng.standard_normal(shape)).astype("float32")
    assert _largest_singular_value(w) > 2.0
    bounded = keras.ops.convert_to_numpy(MaxSpectralNorm(2.0)(w))
    np.testing.assert_allclose(_largest_singular_value(bounded), 2.0, rtol=1e-5)
    np.testing.assert_allclose(bounded, w * (2.0 / _largest_singular_value(w)), rtol=1e-5, atol=1e-6)


def test_a_matrix_within_the_bound_is_left_alone(rng):
    w = rng.standard_normal((5, 5)).astype("float32")
    w *= 0.5 / _largest_singular_value(w)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(MaxSpectralNorm(1.0)(w)), w, rtol=1e-6)


def _fit_memory_recurrent_kernel(x, constraint):
    model = keras.Sequential(
        [
            keras.Input(x.shape[1:]),
            LMN(
                4,
                5,
                return_sequences=True,
                memory_recurrent_constraint=constraint,
                memory_recurrent_initializer="identity",
            ),
            keras.layers.Dense(x.shape[-1]),
        ]
    )
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", jit_compile=keras.backend.backend() != "torch")
    model.fit(x, 3.0 * x, epochs=3, batch_size=4, verbose=0)
    return keras.ops.convert_to_numpy(model.layers[0].cell.memory_recurrent_kernel)


def test_the_bound_holds_after_each_compiled_optimizer_step(rng):
    """The optimizer applies the constraint after every update: W_mm starts
    at spectral norm 1 (identity), the updates push it above, the
    constraint holds it at 1."""
    x = rng.standard_normal((8, 7, 3)).astype("float32")
    keras.utils.set_random_seed(0)
    free = _fit_memory_recurrent_kernel(x, None)
    keras.utils.set_random_seed(0)
    bounded = _fit_memory_recurrent_kernel(x, MaxSpectralNorm(1.0))
    assert _largest_singular_value(free) > 1.01
    assert not np.allclose(bounded, np.eye(5))
    assert _largest_singular_value(bounded) <= 1.0 + 1e-5


def test_config_round_trip_and_saving(rng, tmp_path):
    constraint = MaxSpectralNorm(0.9)
    assert MaxSpectralNorm.from_config(constraint.get_config()).max_value == 0.9
    model = keras.Sequential([keras.Input((None, 3)), LMN(4, 5, memory_recurrent_constraint=constraint)])
    path = str(tmp_path / "lmn.keras")
    model.save(path)
    cell = keras.saving.load_model(path).layers[0].cell
    assert isinstance(cell.memory_recurrent_constraint, MaxSpectralNorm)
    assert cell.memory_recurrent_constraint.max_value == 0.9


@pytest.mark.parametrize("max_value", [0, -1.0, "1", True, None])
def test_bad_bound(max_value):
    with pytest.raises(ValueError, match="positive `max_value`"):
        MaxSpectralNorm(max_value)


def test_a_weight_that_is_not_a_matrix():
    with pytest.raises(ValueError, match=r"shape \(5,\) \(rank 1\)"):
        MaxSpectralNorm()(np.ones(5, "float32"))
