"""Peak memory and CPU time of the linear autoencoder's reconstruction error
on the music sets.

The LMN pretraining reports `LinearAutoencoder.reconstruction_error` of the
unrolled network's hidden states: it runs the recurrent encoder over every
training piece, padded to the longest. This measures that call on random
states of each training set's real lengths (the cost does not depend on the
values), with an autoencoder fitted on the first pieces (the fit is timed
by `bench.autoencoder`). Peak memory is the `tracemalloc` peak of the call
beyond the padded states it is given; CPU time is `time.process_time`.

    python -m bench.reconstruction_memory [--sets nottingham] [--units 250 --memory-units 500]
"""

import os
import time
import tracemalloc

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, os.environ.get("BENCH_BLAS_THREADS", "1"))


from bench.xi_products import machine  # noqa: E402
from bench.xi_products import music_set_parser  # noqa: E402
from bench.xi_products import random_states  # noqa: E402
from keras_seq.pretraining.linear_autoencoder import LinearAutoencoder  # noqa: E402


def measured_error(autoencoder, padded, lengths):
    tracemalloc.start()
    start = time.process_time()
    error = autoencoder.reconstruction_error(padded, lengths=lengths)
    seconds = time.process_time() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return error, seconds, peak / 2**20


def main(argv=None):
    parser = music_set_parser(__doc__.splitlines()[0])
    parser.add_argument("--memory-units", type=int, default=250)
    parser.add_argument("--fit-pieces", type=int, default=40, help="pieces the autoencoder is fitted on")
    args = parser.parse_args(argv)

    print(f"{machine()}, {args.units} units, {args.memory_units} memory units, history {args.history}")
    print("| set | sequences | longest | rows | padded states (MiB) | CPU (s) | peak beyond them (MiB) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in args.sets:
        padded, lengths = random_states(name, args.data_dir, args.units)
        autoencoder = LinearAutoencoder(args.memory_units, history=args.history, seed=0).fit(
            padded[: args.fit_pieces], lengths=lengths[: args.fit_pieces]
        )
        _, seconds, peak = measured_error(autoencoder, padded, lengths)
        print(
            f"| {name} | {len(lengths)} | {lengths.max()} | {lengths.sum()} | {padded.nbytes / 2**20:.0f} | "
            f"{seconds:.1f} | {peak:.0f} |"
        )


if __name__ == "__main__":
    main()
