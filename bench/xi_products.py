"""The linear autoencoder's two routes for Xi's products, on the music sets.

The LMN pretraining fits the autoencoder on the unrolled network's hidden
states (100 units) with a history of its window (10 steps); the randomized
SVD needs about 17 products `Xi @ W` / `Xi^T @ Q` with 260 columns
(memory units 250 + 10 oversamples). `XiOperator` computes them by shifted
matrix products or by FFTs over the padded sequences and picks the cheaper
for the shape; this times one product pair each way, on random states of
each training set's real lengths (the cost does not depend on the values),
and checks they agree. CPU time is `time.process_time`; peak memory the
`tracemalloc` peak of the pair (the operator's own arrays included).

    python -m bench.xi_products [--sets nottingham jsb_chorales] [--data-dir ../shared/data]
"""

import argparse
import os
import platform
import time
import tracemalloc

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, os.environ.get("BENCH_BLAS_THREADS", "1"))

import numpy as np  # noqa: E402

from keras_seq.pretraining.linear_autoencoder import XiOperator  # noqa: E402

SETS = ("jsb_chorales", "bach_chorales", "nottingham", "piano_midi", "musedata")
DEFAULT_DATA = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data")


def product_pair(padded, lengths, history, columns, products, rng):
    tracemalloc.start()
    start = time.process_time()
    operator = XiOperator(padded, lengths, history, products=products)
    forward = operator.matmul(rng.standard_normal((operator.shape[1], columns)))
    backward = operator.rmatmul(forward)
    seconds = time.process_time() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return operator, (forward, backward), seconds, peak / 2**20


def random_states(name, data_dir, units):
    """Random hidden states of `units` at the real lengths of music set
    `name`'s training pieces, padded with zeros: `(padded, lengths)`."""
    from keras_seq import data

    lengths = np.array([len(x) for x in data.load_arrays(name, "train", data_dir=data_dir).inputs])
    rng = np.random.default_rng(0)
    padded = np.zeros((len(lengths), lengths.max(), units))
    for j, steps in enumerate(lengths):
        padded[j, :steps] = rng.random((steps, units))
    return padded, lengths


def music_set_parser(description):
    """The options of a bench on the music sets' hidden states."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    parser.add_argument("--data-dir", default=DEFAULT_DATA)
    parser.add_argument("--units", type=int, default=100, help="hidden units (the autoencoder's input size)")
    parser.add_argument("--history", type=int, default=10, help="the pretraining window")
    return parser


def machine():
    return (
        f"cpu={platform.processor() or platform.machine()} cores={os.cpu_count()} "
        f"BLAS threads={os.environ['OPENBLAS_NUM_THREADS']} numpy={np.__version__}"
    )


def main(argv=None):
    parser = music_set_parser(__doc__.splitlines()[0])
    parser.add_argument("--columns", type=int, default=260, help="memory units + oversamples")
    args = parser.parse_args(argv)

    print(
        f"{machine()}, one product pair (Xi @ W, Xi^T @ Q), {args.units} units, history {args.history}, "
        f"{args.columns} columns"
    )
    print(
        "| set | sequences | longest | rows | chosen | shifted CPU (s) | shifted peak (MiB) "
        "| FFT CPU (s) | FFT peak (MiB) | max rel. difference |"
    )
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    for name in args.sets:
        padded, lengths = random_states(name, args.data_dir, args.units)
        timings, results = {}, {}
        for products in ("shifted", "fft"):
            operator, results[products], seconds, peak = product_pair(
                padded, lengths, args.history, args.columns, products, np.random.default_rng(1)
            )
            timings[products] = (seconds, peak)
        chosen = XiOperator(padded, lengths, args.history).products
        difference = max(np.abs(a - b).max() / np.abs(b).max() for a, b in zip(results["shifted"], results["fft"]))
        print(
            f"| {name} | {len(lengths)} | {lengths.max()} | {lengths.sum()} | "
            f"{'shifted' if chosen == 'shifted' else 'FFT'} | "
            f"{timings['shifted'][0]:.1f} | {timings['shifted'][1]:.0f} | "
            f"{timings['fft'][0]:.1f} | {timings['fft'][1]:.0f} | {difference:.1e} |"
        )


if __name__ == "__main__":
    main()
