"""Fit time and peak memory of the linear autoencoder on JSB Chorales.

The data matrix `Xi` of the JSB training piano rolls (229 sequences, 13807
frames, 88 notes, longest 129 frames: 13807 x 11352) is the one the
closed-form autoencoder factorises. `LinearAutoencoder` never forms it (FFT
products + randomized SVD); the reference forms it and runs a dense
`numpy.linalg.svd`. A full dense SVD of this size takes minutes and
gigabytes (the spec measured ~600 s / 10 GB for 13807 x 12900), so the
dense reference runs on the first `--slice` sequences, next to our fit of
the same slice (checked against it), and our fit also runs on the whole set. Peak memory is the
`tracemalloc` peak of the fit (numpy's allocations, input included); CPU
time is `time.process_time` (all threads), steadier than wall time on a
shared machine.

    python bench/autoencoder.py [--memory-units 50 250 --slice 40]
"""

import argparse
import os
import platform
import time
import tracemalloc

# One BLAS thread for both methods, before numpy loads: on a shared machine
# OpenBLAS threads spin-wait and the timings become noise (10x spreads).
# Override with BENCH_BLAS_THREADS.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, os.environ.get("BENCH_BLAS_THREADS", "1"))

import numpy as np  # noqa: E402
import scipy.io  # noqa: E402

from keras_seq.pretraining.linear_autoencoder import LinearAutoencoder  # noqa: E402
from keras_seq.pretraining.linear_autoencoder import XiOperator  # noqa: E402
from keras_seq.pretraining.linear_autoencoder import as_padded  # noqa: E402

DEFAULT_DATA = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data", "jsb_chorales", "JSB_Chorales.mat")


def load_jsb(path):
    data = scipy.io.loadmat(path)
    return [np.asarray(s, dtype=np.float64) for s in data["traindata"][0]]


def measure(fn):
    tracemalloc.start()
    start, cpu_start = time.perf_counter(), time.process_time()
    result = fn()
    seconds = (time.perf_counter() - start, time.process_time() - cpu_start)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return result, seconds, peak / 2**20


def ours(sequences, p):
    return LinearAutoencoder(p, solver="randomized", seed=0).fit(sequences)


def dense_reference(sequences):
    padded, lengths = as_padded(sequences)
    xi = XiOperator(padded, lengths, int(lengths.max())).dense()
    _, s, _ = np.linalg.svd(xi, full_matrices=False)  # U is what A, B need
    return xi.shape, s, xi


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--memory-units", type=int, nargs="+", default=[50, 250])
    parser.add_argument("--slice", type=int, default=40, help="sequences for the dense reference")
    args = parser.parse_args(argv)

    sequences = load_jsb(args.data)
    part = sequences[: args.slice]
    rows = []
    start = time.perf_counter()

    (shape, s_ref, xi), dense_s, dense_mb = measure(lambda: dense_reference(part))
    part_shape = f"{shape[0]} x {shape[1]}"
    rows.append(("numpy.linalg.svd (dense Xi)", part_shape, "all", dense_s, dense_mb, "reference"))
    total = np.sum(s_ref**2)
    for p in args.memory_units:
        ae, sec, mb = measure(lambda p=p: ours(part, p))
        rel = np.max(np.abs(ae.singular_values_ - s_ref[:p]) / s_ref[:p])
        optimal_error = total - np.sum(s_ref[:p] ** 2)
        our_error = total - np.linalg.norm(xi @ ae.U) ** 2
        note = (
            f"rank-p error / optimal {our_error / optimal_error:.4f}, max rel. error of the p singular values {rel:.1e}"
        )
        rows.append(("LinearAutoencoder (randomized)", part_shape, p, sec, mb, note))
    del xi

    padded, lengths = as_padded(sequences)
    full_shape = f"{int(lengths.sum())} x {88 * int(lengths.max())}"
    for p in args.memory_units:
        ae, sec, mb = measure(lambda p=p: ours(sequences, p))
        err = ae.reconstruction_error(sequences)
        note = f"svd_error {ae.svd_error_:.2e}, encoder error {err:.2e} (MSE per entry)"
        rows.append(("LinearAutoencoder (randomized)", full_shape, p, sec, mb, note))
    wall = time.perf_counter() - start

    print(
        f"JSB Chorales train, cpu={platform.processor() or platform.machine()} "
        f"cores={os.cpu_count()} BLAS threads={os.environ['OPENBLAS_NUM_THREADS']} "
        f"numpy={np.__version__}, dense slice = first "
        f"{args.slice} sequences, wall {wall:.0f} s"
    )
    print("| method | Xi (rows x cols) | memory units | fit wall (s) | fit CPU (s) | peak memory (MiB) | check |")
    print("|---|---|---:|---:|---:|---:|---|")
    for method, size, p, (wall_s, cpu_s), mb, note in rows:
        print(f"| {method} | {size} | {p} | {wall_s:.2f} | {cpu_s:.2f} | {mb:.0f} | {note} |")


if __name__ == "__main__":
    main()
