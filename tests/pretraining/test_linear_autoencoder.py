import warnings

import numpy as np
import pytest

from keras_seq.pretraining.linear_autoencoder import LinearAutoencoder
from keras_seq.pretraining.linear_autoencoder import XiOperator
from keras_seq.pretraining.linear_autoencoder import as_padded


def random_sequences(rng, lengths=(5, 9, 7, 2, 6), a=3):
    return [rng.normal(size=(t, a)) for t in lengths]


def dense_xi(sequences, history):
    """Xi written out row by row, as the spec defines it."""
    a = sequences[0].shape[1]
    rows = []
    for s in sequences:
        for t in range(len(s)):
            row = np.zeros(history * a)
            for i in range(min(history, t + 1)):
                row[i * a : (i + 1) * a] = s[t - i]
            rows.append(row)
    return np.array(rows)


def reversed_history(sequence, t, steps):
    """[v_t, v_{t-1}, ..., v_{t-steps+1}], zeros before the start."""
    out = np.zeros((steps, sequence.shape[1]))
    for i in range(min(steps, t + 1)):
        out[i] = sequence[t - i]
    return out


# ---------------------------------------------------------------------------
# The implicit operator
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("products", ["shifted", "fft"])
@pytest.mark.parametrize("history", [1, 3, 9, 12])
def test_operator_matches_dense_xi(rng, history, products, monkeypatch):
    sequences = random_sequences(rng)
    padded, lengths = as_padded(sequences)
    monkeypatch.setattr(XiOperator, "FFT_BLOCK_BYTES", 1)  # 1 column per FFT block: 4 blocks
    operator = XiOperator(padded, lengths, history, products=products)
    assert len(operator._column_blocks(4)) == 4
    xi = dense_xi(sequences, history)
    assert operator.shape == xi.shape
    np.testing.assert_allclose(operator.dense(), xi)
    w = rng.normal(size=(xi.shape[1], 4))
    q = rng.normal(size=(xi.shape[0], 4))
    np.testing.assert_allclose(operator.matmul(w), xi @ w, atol=1e-12)
    np.testing.assert_allclose(operator.rmatmul(q), xi.T @ q, atol=1e-12)
    np.testing.assert_allclose(operator.frobenius_squared(), np.sum(xi**2))


def test_operator_takes_the_cheaper_products():
    """Shifted products for the LMN's short window (a Nottingham-sized set:
    FFTs over its padded length took 13 GB), FFTs for a whole-sequence
    history."""
    lengths = np.array([400] * 10 + [20] * 90)
    padded = np.zeros((100, 400, 2))
    assert XiOperator(padded, lengths, 10).products == "shifted"
    assert XiOperator(padded, lengths, 400).products == "fft"
    with pytest.raises(ValueError, match="products"):
        XiOperator(padded, lengths, 10, products="dense")


# ---------------------------------------------------------------------------
# Exactness, truncation, error
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("solver", ["dense", "randomized"])
@pytest.mark.parametrize("history", [None, 4])
def test_exact_reconstruction_at_full_rank(rng, solver, history):
    sequences = random_sequences(rng)
    k = history or max(len(s) for s in sequences)
    p = min(sum(len(s) for s in sequences), 3 * k)  # rank(Xi) for random data
    ae = LinearAutoencoder(p, history=history, solver=solver, seed=0).fit(sequences)
    assert ae.A.shape == (p, 3) and ae.B.shape == (p, p)
    memory = ae.encode(sequences)
    xi = dense_xi(sequences, k)
    np.testing.assert_allclose(np.concatenate(memory), xi @ ae.U, atol=1e-10)  # m_t = U^T xi_t
    for s, m in zip(sequences, memory):
        for t in range(len(s)):
            np.testing.assert_allclose(ae.decode(m[t], k), reversed_history(s, t, k), atol=1e-9)
    assert ae.reconstruction_error(sequences) < 1e-12
    assert ae.svd_error_ < 1e-12


def test_error_falls_monotonically_with_memory_units(rng):
    sequences = random_sequences(rng, lengths=(8, 11, 6, 9), a=2)
    svd_errors, errors = [], []
    for p in (1, 2, 4, 6, 8, 12, 16, 22):
        ae = LinearAutoencoder(p, history=11, solver="dense").fit(sequences)
        svd_errors.append(ae.svd_error_)
        errors.append(ae.reconstruction_error(sequences))
    assert np.all(np.diff(svd_errors) < 0)
    assert np.all(np.diff(errors) < 0)
    assert errors[-1] < 1e-12  # 22 = a * history = rank(Xi)
    # The recurrent encoder cannot beat the best rank-p approximation.
    assert np.all(np.array(errors[:-1]) >= np.array(svd_errors[:-1]))


def test_truncated_history_reconstructs_the_last_k_steps(rng):
    sequences = random_sequences(rng, lengths=(12, 15, 10), a=2)
    k = 3
    ae = LinearAutoencoder(2 * k, history=k).fit(sequences)
    assert ae.history_ == k
    for s, m in zip(sequences, ae.encode(sequences)):
        for t in (0, 1, 5, len(s) - 1):
            np.testing.assert_allclose(ae.decode(m[t], k), reversed_history(s, t, k), atol=1e-9)
    with pytest.raises(ValueError, match="steps"):
        ae.decode(m[-1], k + 1)


def test_padded_array_and_list_agree(rng):
    sequences = random_sequences(rng)
    padded, lengths = as_padded(sequences)
    padded[0, lengths[0] :] = 7.0  # padding content is ignored
    from_list = LinearAutoencoder(10, history=5, solver="dense").fit(sequences)
    from_array = LinearAutoencoder(10, history=5, solver="dense").fit(padded, lengths=lengths)
    np.testing.assert_allclose(from_list.singular_values_, from_array.singular_values_)
    memory = from_array.encode(padded, lengths=lengths)
    assert memory.shape == (5, 9, 10)
    assert np.all(memory[0, lengths[0] :] == 0)
    for j, m in enumerate(from_list.encode(sequences)):
        # Same subspace: the encodings agree up to the sign of each component.
        np.testing.assert_allclose(np.abs(m), np.abs(memory[j, : lengths[j]]), atol=1e-9)
    assert np.isclose(
        from_list.reconstruction_error(sequences),
        from_array.reconstruction_error(padded, lengths=lengths),
    )


def test_randomized_matches_dense_svd(rng):
    # A dominant subspace, as real data has: a scalar signal spread over 6
    # features (rank k after the history stacking) plus small noise.
    basis = rng.normal(size=(1, 6))
    sequences = [rng.normal(size=(t, 1)) @ basis + 1e-3 * rng.normal(size=(t, 6)) for t in (30, 25, 40, 18, 33)]
    k = p = 5
    xi = dense_xi(sequences, k)
    reference = np.linalg.svd(xi, compute_uv=False)[:p]
    dense = LinearAutoencoder(p, history=k, solver="dense").fit(sequences)
    randomized = LinearAutoencoder(p, history=k, solver="randomized", seed=1).fit(sequences)
    np.testing.assert_allclose(dense.singular_values_, reference, rtol=1e-10)
    np.testing.assert_allclose(randomized.singular_values_, reference, rtol=1e-10)
    # Reconstructions (projections onto the subspace), not signs.
    np.testing.assert_allclose(xi @ randomized.U @ randomized.U.T, xi @ dense.U @ dense.U.T, atol=1e-9)
    assert np.isclose(randomized.svd_error_, dense.svd_error_, rtol=1e-6)
    assert np.isclose(randomized.reconstruction_error(sequences), dense.reconstruction_error(sequences), rtol=1e-6)
    # A flat spectrum (white noise, p well inside it): still close.
    sequences = random_sequences(rng, lengths=(40, 35, 50), a=4)
    xi = dense_xi(sequences, 6)
    reference = np.linalg.svd(xi, compute_uv=False)[:8]
    randomized = LinearAutoencoder(8, history=6, solver="randomized", seed=2).fit(sequences)
    np.testing.assert_allclose(randomized.singular_values_, reference, rtol=2e-2)


@pytest.mark.parametrize("center", [False, True])
def test_reconstruction_error_is_the_mean_squared_error_of_every_row(rng, center):
    """Below full rank: each row of Xi (the last k inputs, centred, zeros
    before the start) against the decoding of the encoder's m_t."""
    sequences = [s + 2.0 for s in random_sequences(rng, lengths=(11, 4, 8, 13), a=3)]
    k = 4
    ae = LinearAutoencoder(5, history=k, center=center, solver="dense").fit(sequences)
    squared, entries = 0.0, 0
    for s, memory in zip(sequences, ae.encode(sequences)):
        for t in range(len(s)):
            row = reversed_history(s - ae.mean_, t, k)
            decoded = ae.decode(memory[t], k) - ae.mean_
            squared += np.sum((row - decoded) ** 2)
            entries += row.size
    assert squared / entries > 1e-3  # not at full rank: the test sees errors
    np.testing.assert_allclose(ae.reconstruction_error(sequences), squared / entries, rtol=1e-10)


def test_matrices_follow_the_spec(rng):
    """A = U^T P, B = U^T R U with P = [I; 0] and R the block shift."""
    sequences = random_sequences(rng)
    ae = LinearAutoencoder(7, history=4, solver="dense").fit(sequences)
    a, k = 3, 4
    P = np.zeros((a * k, a))
    P[:a] = np.eye(a)
    R = np.kron(np.eye(k, k=-1), np.eye(a))  # block i -> block i + 1
    np.testing.assert_allclose(ae.A, ae.U.T @ P)
    np.testing.assert_allclose(ae.B, ae.U.T @ R @ ae.U, atol=1e-14)
    m = rng.normal(size=(2, 7))
    decoded = ae.decode(m, 3)
    for i in range(3):  # v_{t-i} ~ A^T (B^T)^i m_t
        expected = m @ np.linalg.matrix_power(ae.B, i) @ ae.A
        np.testing.assert_allclose(decoded[:, i], expected, atol=1e-12)


def test_centering(rng):
    sequences = [s + 5.0 for s in random_sequences(rng)]
    k = 4
    ae = LinearAutoencoder(12, history=k, center=True).fit(sequences)
    np.testing.assert_allclose(ae.mean_, np.concatenate(sequences).mean(0))
    s, m = sequences[1], ae.encode(sequences)[1]
    decoded = ae.decode(m[6], k)
    np.testing.assert_allclose(decoded, reversed_history(s, 6, k), atol=1e-9)
    # Before the start the centred data is zero: the decoder returns the mean.
    np.testing.assert_allclose(ae.decode(m[1], k)[2:], np.tile(ae.mean_, (2, 1)), atol=1e-9)


def test_memory_units_beyond_the_rank_are_clamped_with_a_warning(rng):
    sequences = random_sequences(rng, lengths=(3, 2), a=2)  # 5 rows, a * L = 6
    with pytest.warns(UserWarning, match="memory_units=9"):
        ae = LinearAutoencoder(9).fit(sequences)
    assert ae.n_components_ == 5 and ae.A.shape == (5, 2)
    assert ae.reconstruction_error(sequences) < 1e-12
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        LinearAutoencoder(5).fit(sequences)


# ---------------------------------------------------------------------------
# Errors that name the problem
# ---------------------------------------------------------------------------
def test_bad_inputs(rng):
    ae = LinearAutoencoder(3)
    with pytest.raises(ValueError, match="same feature size"):
        ae.fit([np.ones((3, 2)), np.ones((4, 3))])
    with pytest.raises(ValueError, match="empty list"):
        ae.fit([])
    with pytest.raises(ValueError, match="non-empty"):
        ae.fit([np.ones((3, 2)), np.ones((0, 2))])
    with pytest.raises(ValueError, match="NaN"):
        ae.fit([np.array([[1.0, np.nan], [0.0, 1.0]])])
    with pytest.raises(ValueError, match="NaN"):
        ae.fit([np.array([[1.0, np.inf]])])
    with pytest.raises(ValueError, match=r"\(n, T, a\)"):
        ae.fit(np.ones((3, 4)))
    with pytest.raises(ValueError, match="lengths"):
        ae.fit(np.ones((2, 4, 3)), lengths=[4, 5])
    with pytest.raises(ValueError, match="lengths"):
        ae.fit(np.ones((2, 4, 3)), lengths=[0, 2])
    with pytest.raises(ValueError, match="not fitted"):
        ae.encode([np.ones((3, 2))])
    ae.fit([rng.normal(size=(5, 2))])
    with pytest.raises(ValueError, match="fitted on 2 features"):
        ae.encode([np.ones((3, 4))])
    with pytest.raises(ValueError, match=r"shape \(\.\.\., 3\)"):
        ae.decode(np.ones(4), 2)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"memory_units": 0}, "memory_units"),
        ({"memory_units": 2.5}, "memory_units"),
        ({"memory_units": 3, "history": 0}, "history"),
        ({"memory_units": 3, "solver": "svd"}, "solver"),
        ({"memory_units": 3, "oversamples": -1}, "oversamples"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        LinearAutoencoder(**kwargs)
