"""`python -m bench`: training-step and inference timings of SCRBM, LMN and
TrellisNet next to Keras' SimpleRNN / GRU / LSTM on the papers' shapes, as a
Markdown report.

    python -m bench                                   # all three backends, full size
    python -m bench --tiny --backends torch           # tiny shapes, a smoke test
    python -m bench --trellisnet-reference ../trellisnet   # + the PyTorch reference
    python -m bench --sections seq_mnist --output /tmp/bench.md

Each backend runs in its own process (KERAS_BACKEND set), which measures
every model of a section in turn, step by step (bench/measure.py), so that
the ratios between models hold on a loaded machine. The report goes to
stdout (and `--output`); progress goes to stderr.
"""

import argparse
import collections
import os
import shlex
import subprocess
import sys
import tempfile
import time

from bench import report

BACKENDS = ("tensorflow", "jax", "torch")
CONFIGS = ("full", "tiny")  # bench/suite.py's CONFIGS
# bench/suite.py's SECTIONS, named here so that this process never imports Keras.
SECTIONS = ("ocr", "jsb", "seq_mnist", "ptb_char")
REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def names(allowed):
    """An argparse type: a comma-separated list of names out of `allowed`."""

    def parse(text):
        chosen = [name for name in text.split(",") if name]
        unknown = [name for name in chosen if name not in allowed]
        if unknown:
            raise argparse.ArgumentTypeError(f"unknown {', '.join(unknown)}; choose from {', '.join(allowed)}")
        return chosen

    return parse


def parse(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="Training-step and inference timings of SCRBM, LMN and TrellisNet next to Keras' "
        "SimpleRNN / GRU / LSTM on the papers' shapes, as a Markdown report.",
    )
    parser.add_argument(
        "--backends",
        type=names(BACKENDS),
        default=list(BACKENDS),
        help="comma-separated, one process each (default: all three)",
    )
    parser.add_argument("--config", choices=CONFIGS, default="full", help="shapes and repeats (default: full)")
    parser.add_argument(
        "--tiny",
        dest="config",
        action="store_const",
        const="tiny",
        help="same as --config tiny: tiny shapes, 1-2 repeats",
    )
    parser.add_argument(
        "--sections",
        type=names(SECTIONS),
        default=list(SECTIONS),
        help=f"comma-separated (default: all of {','.join(SECTIONS)})",
    )
    parser.add_argument("--output", help="also write the report to this file")
    parser.add_argument(
        "--trellisnet-reference",
        metavar="PATH",
        help="the public PyTorch TrellisNet (its repository or its TrellisNet folder), timed against ours on torch",
    )
    parser.add_argument("--worker", metavar="FILE", help=argparse.SUPPRESS)  # internal: one backend, here
    args = parser.parse_args(argv)
    if args.trellisnet_reference:
        args.trellisnet_reference = os.path.abspath(args.trellisnet_reference)
    return args


def jobs(args):
    """(backend, sections) per process; each also runs the reference
    comparison when its path is given."""
    return [(backend, args.sections) for backend in args.backends]


def worker_command(args, backend, sections, output):
    command = [
        sys.executable,
        "-m",
        "bench",
        "--worker",
        output,
        "--config",
        args.config,
        "--sections",
        ",".join(sections),
    ]
    if args.trellisnet_reference:
        command += ["--trellisnet-reference", args.trellisnet_reference]
    return command


def run_backend(args, backend, sections):
    """The Markdown of one backend's process and whether all of it ran; its
    stderr is passed through, and its last lines kept for a process that
    wrote no report."""
    environment = dict(os.environ, KERAS_BACKEND=backend)
    environment.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    with tempfile.TemporaryDirectory() as folder:
        output = os.path.join(folder, "report.md")
        process = subprocess.Popen(
            worker_command(args, backend, sections, output),
            cwd=REPOSITORY,
            env=environment,
            stderr=subprocess.PIPE,
            text=True,
        )
        tail = collections.deque(maxlen=15)
        for line in process.stderr:
            sys.stderr.write(line)
            tail.append(line)
        process.wait()
        if os.path.exists(output):  # written even when a section failed (exit status 1)
            with open(output) as markdown:
                return markdown.read(), process.returncode == 0
    lines = "".join(tail)
    return f"## Backend: {backend}\n\nThe run failed (exit status {process.returncode}):\n\n```\n{lines}```\n", False


def header(args, argv, load_before, wall):
    return "\n".join(
        [
            "# keras-seq benchmark",
            "",
            f"`python -m bench {shlex.join(argv)}`: configuration `{args.config}`, one process per backend.",
            "",
            f"- Machine: {report.machine()}",
            f"- Load average (1 / 5 / 15 min): before {load_before}, after {report.load_average()}",
            f"- Total wall time: {wall:.0f} s",
        ]
    )


def run_worker(args):
    """Runs this process's backend, writes its report to `args.worker` and
    returns the exit status (1 when a section failed)."""
    from bench import worker  # imports Keras: only in the backend's own process

    markdown, ran = worker.run(args.config, args.sections, args.trellisnet_reference)
    with open(args.worker, "w") as output:
        output.write(markdown)
    return 0 if ran else 1


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse(argv)
    if args.worker:
        return run_worker(args)
    load_before, start = report.load_average(), time.perf_counter()
    outcomes = [run_backend(args, backend, sections) for backend, sections in jobs(args)]
    text = "\n\n".join(
        [header(args, argv, load_before, time.perf_counter() - start), *(markdown for markdown, _ in outcomes)]
    )
    print(text)
    if args.output:
        with open(args.output, "w") as output:
            output.write(text)
    return 0 if all(ok for _, ok in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
