"""bench/memory_spectrum.py (the Nottingham note's numbers) reads W_mm
from a saved LMN and reports its spectral radius and norm."""

import importlib

import keras
import numpy as np
import pytest

from keras_seq.layers import LMN


def test_radius_and_norm_of_a_saved_lmn(tmp_path, capsys):
    model = keras.Sequential([keras.Input((None, 3)), LMN(4, 2, name="lmn"), keras.layers.Dense(3)])
    # A non-normal W_mm: radius 0.5 (its eigenvalues), norm above 2.
    w = np.array([[0.5, 2.0], [0.0, -0.5]], "float32")
    model.get_layer("lmn").cell.memory_recurrent_kernel.assign(w)
    path = str(tmp_path / "model.keras")
    model.save(path)
    script = importlib.import_module("bench.memory_spectrum")
    radius, norm = script.spectrum(script.memory_recurrent_kernels(keras.saving.load_model(path))["lmn"])
    np.testing.assert_allclose(radius, 0.5, rtol=1e-6)
    np.testing.assert_allclose(norm, np.linalg.svd(w, compute_uv=False)[0], rtol=1e-6)
    assert norm > 2.0
    import sys

    sys.argv = ["memory_spectrum.py", path]
    script.main()
    assert "W_mm 2x2, spectral radius 0.500, spectral norm 2." in capsys.readouterr().out


def test_memory_response_returns_or_runs_away(rng):
    """A tanh memory whose W_mm has radius 1.5 runs away; one with radius
    0.5 returns from a large start to its input-driven range."""
    script = importlib.import_module("bench.memory_spectrum")
    x = rng.standard_normal((200, 3)).astype("float32")
    for radius, runs_away in ((1.5, True), (0.5, False)):
        lmn = LMN(4, 2, activation="tanh")
        lmn.build((None, None, 3))
        lmn.cell.memory_recurrent_kernel.assign(radius * np.eye(2, dtype="float32"))
        lmn.cell.recurrent_kernel.assign(np.zeros((2, 4), "float32"))  # no feedback through h
        response = script.memory_response(lmn.cell, x, starts=(0.0, 10.0))
        if runs_away:
            assert response[10.0][1] > 1e30
        else:
            assert response[0.0][0] < 10.0 and response[10.0][1] == pytest.approx(response[0.0][1], rel=1e-3)
            assert response[10.0][0] == pytest.approx(10.0 * radius, rel=0.5)


def test_memory_response_selu_matches_keras(rng):
    script = importlib.import_module("bench.memory_spectrum")
    a = rng.standard_normal(50) * 3
    np.testing.assert_allclose(
        script.ACTIVATIONS["selu"](a), keras.ops.convert_to_numpy(keras.activations.selu(a)), rtol=1e-5, atol=1e-6
    )
