"""The `keras-seq` command line (also `python -m keras_seq.zoo`)."""

import argparse
import sys


def _datasets(args):
    import keras_seq.data as data

    print("| name | task | splits | source |")
    print("|---|---|---|---|")
    for name in data.names():
        info = data.info(name)
        splits = "/".join(f"{k} {v}" if v is not None else k for k, v in info.splits.items())
        print(f"| {name} | {info.task} | {splits} | {info.source} |")


def _quickstart(args):
    from keras_seq.zoo import quickstart

    quickstart.main(args.rest)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="keras-seq", description="keras-seq model zoo")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("datasets", help="list the datasets of keras_seq.data").set_defaults(run=_datasets)
    quick = commands.add_parser("quickstart", help="SCRBM vs LSTM on a download-free labelling task")
    quick.add_argument("rest", nargs=argparse.REMAINDER, help="options of the quickstart (--epochs ...)")
    quick.set_defaults(run=_quickstart)
    args = parser.parse_args(argv)
    args.run(args)


if __name__ == "__main__":
    sys.exit(main())
