"""Closed-form linear autoencoder for sequences (Sperduti 2013; LMN paper
Sec. 2).

Pure numpy/scipy: it runs once, before training, on arrays in memory.

Notation. For a sequence `v_1..v_l` (`v in R^a`) row `t` of the data matrix
`Xi` is the reversed prefix `xi_t = [v_t, v_{t-1}, ..., v_{t-K+1}]` (zeros
before the sequence starts), `K` blocks of `a` columns, `K` = the history
(`history=k`, or the longest training length). The rows of all sequences are
stacked. With the truncated SVD `Xi ~ V S U^T` (`p` components, `U` is
`a*K x p`):

    m_t = A v_t + B m_{t-1},    A = U^T P (p x a),   B = U^T R U (p x p)

(`P = [I_a; 0]` picks block 0, `R` shifts block `i` to `i + 1`), and the
decoder `[v_t; m_{t-1}] ~ [A^T; B^T] m_t`, i.e. `v_{t-i} ~ A^T (B^T)^i m_t`.
When `p >= rank(Xi)` the encoding is exact: `m_t = U^T xi_t` and the decoder
returns the last `K` inputs exactly.

`Xi` has one row per time step and `a*K` columns, so it is never formed
unless it is small: both products the SVD needs are convolutions along
time (`Xi @ W` is a causal convolution of each sequence with the filter bank
`W` reshaped `(K, a, r)`; `Xi^T @ Q` the matching correlation), done here
by shifted products for short histories and by FFTs over the padded
`(n, T, a)` array for long ones (`XiOperator`), and a randomized range finder
(Halko, Martinsson & Tropp 2011) with power iterations gives the truncated
SVD.
"""

import numbers
import warnings

import numpy as np
import scipy.fft

_SOLVERS = ("auto", "dense", "randomized")


class LinearAutoencoder:
    """Linear autoencoder for sequences, fitted in closed form.

    Args:
        memory_units: Integer >= 1, size `p` of the encoding `m_t`. If it
            exceeds the largest possible rank of `Xi`,
            `min(rows, a * history)`, it is clamped to that with a
            `UserWarning`: `n_components_` is the size actually used and
            `A`, `B` have that many rows (the encoding is then exact).
        history: Integer >= 1, number `K` of past steps (the current one
            included) each row of `Xi` holds, i.e. what the decoder can
            reconstruct. `None` (default): the longest training sequence.
        center: If `True`, subtract the mean input vector (over all valid
            steps) before encoding and add it back after decoding; steps
            before a sequence's start then decode to the mean.
        solver: `"dense"` forms `Xi` and runs `numpy.linalg.svd`;
            `"randomized"` never forms it (FFT products, randomized SVD);
            `"auto"` (default) is dense when `Xi` has at most
            `dense_limit` entries.
        dense_limit: Largest `Xi` (in entries) the `"auto"` solver forms.
            Default `4_000_000` (32 MB in float64).
        oversamples: Extra random directions of the randomized range
            finder. Default 10.
        power_iterations: Power iterations of the randomized range finder.
            Default 7 (on JSB piano rolls, p = 50..250: the rank-p error
            within 0.4% of the optimum; 4 iterations: within 1.2%).
        seed: Seed of the randomized solver.

    Attributes (after `fit`):
        A: `(p, a)` input matrix of the encoder.
        B: `(p, p)` recurrent matrix of the encoder.
        U: `(a * history_, p)` right singular vectors of `Xi` (`A`, `B` and
            the decoder are built from it).
        singular_values_: `(p,)` the largest singular values of `Xi`.
        n_components_: `p`, the number of components kept.
        history_: `K`, the history actually used.
        mean_: `(a,)` the subtracted mean (zeros when `center=False`).
        svd_error_: mean squared error per entry of the best rank-`p`
            approximation of the training `Xi` (`||Xi - Xi U U^T||^2 /
            Xi.size`), the bound the recurrent encoder reaches when exact.

    Example:

    ```python
    sequences = [np.random.rand(t, 4) for t in (7, 12, 9)]
    ae = LinearAutoencoder(memory_units=20, history=5).fit(sequences)
    memory = ae.encode(sequences)          # list of (T_i, 20) arrays
    last5 = ae.decode(memory[0][-1], 5)     # (5, 4): v_T, v_{T-1}, ...
    ```
    """

    def __init__(
        self,
        memory_units,
        history=None,
        center=False,
        solver="auto",
        dense_limit=4_000_000,
        oversamples=10,
        power_iterations=7,
        seed=None,
    ):
        _check_int("memory_units", memory_units)
        if history is not None:
            _check_int("history", history)
        if solver not in _SOLVERS:
            raise ValueError(f"`solver` must be one of {', '.join(map(repr, _SOLVERS))}; got {solver!r}.")
        _check_int("dense_limit", dense_limit, minimum=0)
        _check_int("oversamples", oversamples, minimum=0)
        _check_int("power_iterations", power_iterations, minimum=0)
        self.memory_units = int(memory_units)
        self.history = None if history is None else int(history)
        self.center = bool(center)
        self.solver = solver
        self.dense_limit = int(dense_limit)
        self.oversamples = int(oversamples)
        self.power_iterations = int(power_iterations)
        self.seed = seed

    # ------------------------------------------------------------------
    # Fitting
    # ------------------------------------------------------------------
    def fit(self, sequences, lengths=None):
        """Fits `A` and `B` by a truncated SVD of `Xi`.

        Args:
            sequences: A list of `(T_i, a)` arrays, or a padded array
                `(n, T, a)` (with `lengths=`, else every sequence is `T`
                long).
            lengths: Optional `(n,)` valid lengths of a padded array.

        Returns:
            `self`.
        """
        padded, lengths = as_padded(sequences, lengths)
        self.input_dim_ = padded.shape[-1]
        self.mean_ = np.zeros(self.input_dim_)
        if self.center:
            valid = _valid_mask(lengths, padded.shape[1])
            self.mean_ = padded[valid].mean(axis=0)
            padded -= self.mean_  # as_padded's own copy, centred in place
            padded[~valid] = 0.0
        history = self.history or int(lengths.max())
        self.history_ = history
        operator = XiOperator(padded, lengths, history)
        rows, cols = operator.shape
        possible = min(rows, cols)
        p = self.memory_units
        if p > possible:
            warnings.warn(
                f"LinearAutoencoder: memory_units={p} exceeds the largest "
                f"possible rank of Xi, min(rows={rows}, a*history={cols}) = "
                f"{possible}; using {possible} components (the encoding is "
                "exact).",
                UserWarning,
                stacklevel=2,
            )
            p = possible
        self.n_components_ = p

        dense = self.solver == "dense" or (self.solver == "auto" and rows * cols <= self.dense_limit)
        if dense:
            _, s, vt = np.linalg.svd(operator.dense(), full_matrices=False)
            u = vt[:p].T
            s = s[:p]
        else:
            u, s = self._randomized_svd(operator, p)
        self.U = u
        self.singular_values_ = s
        self.A, self.B = encoder_matrices(u, self.input_dim_)
        total = operator.frobenius_squared()
        captured = np.sum(operator.matmul(u) ** 2)
        self.svd_error_ = max(total - captured, 0.0) / (rows * cols)
        return self

    def _randomized_svd(self, operator, p):
        rows, cols = operator.shape
        rng = np.random.default_rng(self.seed)
        width = min(p + self.oversamples, rows, cols)
        q = _orthonormal(operator.matmul(rng.standard_normal((cols, width))))
        # A sketch as wide as Xi spans its whole range: nothing to refine.
        iterations = 0 if width == min(rows, cols) else self.power_iterations
        for _ in range(iterations):
            z = _orthonormal(operator.rmatmul(q))
            q = _orthonormal(operator.matmul(z))
        small = operator.rmatmul(q).T  # Q^T Xi, (width, cols)
        _, s, vt = np.linalg.svd(small, full_matrices=False)
        return vt[:p].T, s[:p]

    # ------------------------------------------------------------------
    # Encoding and decoding
    # ------------------------------------------------------------------
    def encode(self, sequences, lengths=None):
        """Runs the encoder `m_t = A v_t + B m_{t-1}` from `m_0 = 0`.

        Args:
            sequences: A list of `(T_i, a)` arrays or a padded `(n, T, a)`
                array (with optional `lengths=`).

        Returns:
            The memory sequences in the same layout: a list of `(T_i, p)`
            arrays, or a padded `(n, T, p)` array (zeros past each length).
        """
        self._check_fitted()
        is_list = not (isinstance(sequences, np.ndarray) and sequences.dtype != object)
        padded, lengths = as_padded(sequences, lengths, self.input_dim_)
        memory = self._encode_padded(padded, lengths)
        if is_list:
            return [memory[j, :length] for j, length in enumerate(lengths)]
        return memory

    def _encode_padded(self, padded, lengths):
        memory = np.zeros(padded.shape[:2] + (self.n_components_,))
        for t, m in self._encoder_steps(padded - self.mean_):
            memory[:, t] = m
        memory[~_valid_mask(lengths, padded.shape[1])] = 0.0
        return memory

    def _encoder_steps(self, centered):
        """`(t, m_t)` for each step of the padded, centred inputs, `m_t`
        of shape `(n, p)`."""
        m = np.zeros((centered.shape[0], self.n_components_))
        a_t, b_t = self.A.T, self.B.T
        for t in range(centered.shape[1]):
            m = centered[:, t] @ a_t + m @ b_t
            yield t, m

    def decode(self, memory, steps):
        """Reconstructs the last `steps` inputs from memory states.

        `v_{t-i} ~ A^T (B^T)^i m_t` (the paper's decoder `[A^T; B^T]`
        applied `i` times), plus the mean when `center=True`.

        Args:
            memory: `(..., p)` array of memory states `m_t`.
            steps: Integer in `[1, history_]`.

        Returns:
            `(..., steps, a)`, **most recent first**: `[..., i, :]` is the
            reconstruction of `v_{t-i}` (zeros, or the mean, for steps
            before the sequence start).
        """
        self._check_fitted()
        _check_int("steps", steps)
        if steps > self.history_:
            raise ValueError(
                f"`steps` must be at most the history the autoencoder was fitted with ({self.history_}); got {steps}."
            )
        memory = np.asarray(memory, dtype=np.float64)
        if memory.ndim < 1 or memory.shape[-1] != self.n_components_:
            raise ValueError(f"`memory` must have shape (..., {self.n_components_}); got {memory.shape}.")
        decoder = self.decoder_matrices(steps)  # (steps, p, a)
        return np.einsum("...p,spa->...sa", memory, decoder) + self.mean_

    def decoder_matrices(self, steps):
        """`[B^0 A, B^1 A, ..., B^{steps-1} A]`, shape `(steps, p, a)`.

        In the row-vector convention `v_{t-i} ~ m_t B^i A`.
        """
        self._check_fitted()
        blocks = [self.A]
        for _ in range(steps - 1):
            blocks.append(self.B @ blocks[-1])
        return np.stack(blocks)

    def reconstruction_error(self, sequences, lengths=None):
        """Mean squared error per entry of `Xi` reconstructed by the encoder.

        Each row `xi_t` (the last `history_` inputs, zeros before the start,
        centred when `center=True`) is compared with
        `decode(m_t, history_)`, where `m_t` comes from the recurrent
        encoder. Zero at full rank. Computed without forming either matrix:
        `||Xi||^2 - 2 <Xi, M D> + ||M D||^2` with `D` the decoder.
        """
        self._check_fitted()
        centered, lengths = as_padded(sequences, lengths, self.input_dim_)
        valid = _valid_mask(lengths, centered.shape[1])
        centered -= self.mean_  # as_padded's own copy, centred in place
        centered[~valid] = 0.0
        # m_t at the valid steps only, (rows, p) in the operator's row order
        # (sequence by sequence): a padded (n, T, p) memory of long pieces
        # would take several times the data's size.
        first_row = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        m = np.empty((int(valid.sum()), self.n_components_))
        for t, step in self._encoder_steps(centered):
            m[first_row[valid[:, t]] + t] = step[valid[:, t]]
        operator = XiOperator(centered, lengths, self.history_)
        decoder = self.decoder_matrices(self.history_)
        decoder = decoder.transpose(1, 0, 2).reshape(self.n_components_, -1)
        cross = np.sum(operator.matmul(decoder.T) * m)
        own = np.sum((m @ (decoder @ decoder.T)) * m)
        total = operator.frobenius_squared()
        rows, cols = operator.shape
        return max(total - 2.0 * cross + own, 0.0) / (rows * cols)

    def _check_fitted(self):
        if not hasattr(self, "A"):
            raise ValueError("This LinearAutoencoder is not fitted yet; call `fit` first.")


class XiOperator:
    """The data matrix `Xi` of padded sequences as an implicit operator.

    Rows: the valid steps `(j, t)`, `t < lengths[j]`, sequence by sequence.
    Columns: `history` blocks of `a`; block `i` holds `v_{t-i}`.

    The products are computed one of two ways, the cheaper for the shape:
    `"shifted"`, one `(rows, a) @ (a, r)` product per history step on the
    stacked valid steps, shifted by `i` (`K * rows * a * r`; the LMN's
    window of 10); `"fft"`, the causal convolution with FFTs over the padded
    sequences (`~F * n * a * r` complex products for `F` frequencies, each
    worth ~10 shifted ones; long histories, such as a whole sequence). The
    FFT route works through the columns of the operand in blocks, so its
    peak memory stays near `FFT_BLOCK_BYTES` beyond the padded spectrum.

    Args:
        padded: `(n, T, a)` float array, zeros past each length.
        lengths: `(n,)` valid lengths.
        history: Number of blocks `K`.
        products: `"shifted"`, `"fft"` or `None` (default: the cheaper).
    """

    FFT_BLOCK_BYTES = 256 * 2**20

    def __init__(self, padded, lengths, history, products=None):
        if products not in (None, "shifted", "fft"):
            raise ValueError(f"`products` must be 'shifted', 'fft' or None; got {products!r}.")
        self.padded = padded
        self.lengths = lengths
        self.history = history
        n, steps, a = padded.shape
        self.valid = _valid_mask(lengths, steps)
        self.shape = (int(self.valid.sum()), a * history)
        self._fft_size = scipy.fft.next_fast_len(steps + history - 1, real=True)
        frequencies = self._fft_size // 2 + 1
        # Per unit of these counts an FFT product costs 7-11x a shifted one
        # (bench/xi_products.py, window 10: JSB 0.6 s against 1.1 s per product
        # pair, Bach chorales 0.8 / 2.1, Nottingham 11.6 / 30.1, MuseData 18.3 / 60.0).
        self.products = products or ("shifted" if history * self.shape[0] <= 10 * frequencies * n else "fft")
        self._spectrum = None
        if self.products == "shifted":
            self._stacked = padded[self.valid]  # (rows, a), sequence by sequence
            step = np.broadcast_to(np.arange(steps), (n, steps))[self.valid]  # t of each row
            # _reaches[i - 1]: the rows (j, t) from the i-th on whose step t - i exists (t >= i).
            self._reaches = [(step[i:] >= i)[:, None] for i in range(1, min(history, steps))]

    def _padded_spectrum(self):
        if self._spectrum is None:  # (F, n, a), computed once
            spectrum = scipy.fft.rfft(self.padded, n=self._fft_size, axis=1)
            self._spectrum = np.ascontiguousarray(spectrum.transpose(1, 0, 2))
        return self._spectrum

    def _column_blocks(self, width):
        # Columns per block: its complex (F, n, block) and (F, a, block) spectra fit the budget.
        n, _, a = self.padded.shape
        block = max(1, self.FFT_BLOCK_BYTES // (16 * (self._fft_size // 2 + 1) * (n + a)))
        return [slice(start, min(start + block, width)) for start in range(0, width, block)]

    def matmul(self, w):
        """`Xi @ w` for `w` of shape `(a * K, r)`: a causal convolution."""
        n, steps, a = self.padded.shape
        filters = w.reshape(self.history, a, -1)
        if self.products == "shifted":
            out = self._stacked @ filters[0]
            for i, reaches in enumerate(self._reaches, start=1):
                # Row (j, t) takes v_{j, t-i}, i rows up, when t >= i.
                out[i:] += (self._stacked[:-i] @ filters[i]) * reaches
            return out
        out = np.empty((self.shape[0], filters.shape[-1]))
        for columns in self._column_blocks(filters.shape[-1]):
            filters_f = scipy.fft.rfft(filters[..., columns], n=self._fft_size, axis=0)  # (F, a, r)
            out_f = np.matmul(self._padded_spectrum(), filters_f)  # (F, n, r)
            convolved = scipy.fft.irfft(out_f, n=self._fft_size, axis=0)[:steps]
            out[:, columns] = convolved.transpose(1, 0, 2)[self.valid]
        return out  # (rows, r)

    def rmatmul(self, q):
        """`Xi^T @ q` for `q` of shape `(rows, r)`: the matching correlation."""
        n, steps, a = self.padded.shape
        g = np.zeros((self.history, a, q.shape[1]))
        if self.products == "shifted":
            g[0] = self._stacked.T @ q
            for i, reaches in enumerate(self._reaches, start=1):
                g[i] = self._stacked[:-i].T @ (q[i:] * reaches)
            return g.reshape(self.history * a, -1)
        for columns in self._column_blocks(q.shape[1]):
            scattered = np.zeros((n, steps, columns.stop - columns.start))
            scattered[self.valid] = q[:, columns]
            q_f = scipy.fft.rfft(scattered, n=self._fft_size, axis=1).transpose(1, 0, 2)
            # G[i] = sum_{j,t} v_{j,t-i}^T q_{j,t}: correlation, lags 0..K-1.
            g_f = np.matmul(np.conj(self._padded_spectrum()).transpose(0, 2, 1), q_f)
            g[..., columns] = scipy.fft.irfft(g_f, n=self._fft_size, axis=0)[: self.history]
        return g.reshape(self.history * a, -1)

    def dense(self):
        """`Xi` itself, `(rows, a * K)`. Only for small problems."""
        n, steps, a = self.padded.shape
        xi = np.zeros((n, steps, self.history, a))
        for i in range(min(self.history, steps)):
            xi[:, i:, i] = self.padded[:, : steps - i]
        return xi[self.valid].reshape(self.shape)

    def frobenius_squared(self):
        """`||Xi||_F^2`: `v_{j,s}` appears in `min(K, l_j - s)` rows."""
        steps = self.padded.shape[1]
        s = np.arange(steps)
        counts = np.clip(self.lengths[:, None] - s, 0, self.history)
        return float(np.sum(np.sum(self.padded**2, axis=-1) * counts))


def encoder_matrices(u, input_dim):
    """`A = U^T P` and `B = U^T R U` from `U` `(a * K, p)` (no `R` formed)."""
    a = input_dim
    A = u[:a].T
    # R U shifts every block of U's rows one place down (block K-1 drops).
    shifted = np.zeros_like(u)
    shifted[a:] = u[:-a]
    B = u.T @ shifted
    return A, B


def as_padded(sequences, lengths=None, input_dim=None):
    """Validates sequences; returns a float64 padded `(n, T, a)` array (zeros
    past each length) and the `(n,)` int lengths."""
    if isinstance(sequences, np.ndarray) and sequences.dtype != object:
        if sequences.ndim != 3:
            raise ValueError(f"A padded array of sequences must have shape (n, T, a); got shape {sequences.shape}.")
        n, steps, a = sequences.shape
        if n == 0 or steps == 0 or a == 0:
            raise ValueError(f"Empty sequences: got shape {sequences.shape}.")
        padded = np.array(sequences, dtype=np.float64)
        if lengths is None:
            lengths = np.full(n, steps)
        lengths = np.asarray(lengths)
        if (
            lengths.shape != (n,)
            or not np.issubdtype(lengths.dtype, np.integer)
            or lengths.min() < 1
            or lengths.max() > steps
        ):
            raise ValueError(f"`lengths` must be {n} integers in [1, {steps}]; got {lengths!r}.")
        padded[~_valid_mask(lengths, steps)] = 0.0
    else:
        if lengths is not None:
            raise ValueError("`lengths` is only for a padded array; a list of sequences carries its own lengths.")
        sequences = list(sequences)
        if not sequences:
            raise ValueError("Got an empty list of sequences.")
        arrays = [np.asarray(s, dtype=np.float64) for s in sequences]
        for j, s in enumerate(arrays):
            if s.ndim != 2 or s.shape[0] == 0:
                raise ValueError(f"Every sequence must be a non-empty (T, a) array; sequence {j} has shape {s.shape}.")
            if s.shape[1] != arrays[0].shape[1]:
                raise ValueError(
                    "All sequences must have the same feature size: sequence "
                    f"0 has {arrays[0].shape[1]}, sequence {j} has "
                    f"{s.shape[1]}."
                )
        lengths = np.array([s.shape[0] for s in arrays])
        padded = np.zeros((len(arrays), lengths.max(), arrays[0].shape[1]))
        for j, s in enumerate(arrays):
            padded[j, : len(s)] = s
    if input_dim is not None and padded.shape[-1] != input_dim:
        raise ValueError(f"The autoencoder was fitted on {input_dim} features; got sequences with {padded.shape[-1]}.")
    if not np.all(np.isfinite(padded)):
        raise ValueError("Sequences contain NaN or infinite values.")
    return padded, lengths.astype(np.int64)


def _valid_mask(lengths, steps):
    return np.arange(steps)[None, :] < lengths[:, None]


def _orthonormal(y):
    q, _ = np.linalg.qr(y)
    return q


def _check_int(name, value, minimum=1):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"`{name}` must be an integer >= {minimum}; got {value!r}.")
