"""Throughput of the tf.data pipelines (batches per second), next to what a
model consumes, so one can see the input side is never the bottleneck.

    python bench/pipeline.py --data-dir ../shared/data
"""

import argparse
import os
import platform
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras_seq.data as data  # noqa: E402

CASES = {
    # name: (dataset, split, options)
    "JSB Chorales, padded batches of 32": ("jsb_chorales", "train", {"batch_size": 32, "shuffle": True}),
    "JSB Chorales, fixed length 160, drop remainder": (
        "jsb_chorales",
        "train",
        {"batch_size": 32, "max_length": 160, "drop_remainder": True},
    ),
    "PTB char, 128 x 150 BPTT windows": ("ptb_char", "train", {"batch_size": 128, "bptt": 150}),
    "PTB word, 20 x 70 BPTT windows": ("ptb_word", "train", {"batch_size": 20, "bptt": 70}),
}


def throughput(dataset, epochs):
    batches = 0
    start = time.perf_counter()
    for _ in range(epochs):
        for _ in dataset:
            batches += 1
    return batches, time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"cpu={platform.processor() or platform.machine()} cores={os.cpu_count()} epochs={args.epochs}")
    print("| pipeline | build s | batches | batches / s |")
    print("|---|---:|---:|---:|")
    for label, (name, split, options) in CASES.items():
        start = time.perf_counter()
        dataset = data.load(name, split, data_dir=args.data_dir, **options)
        built = time.perf_counter() - start
        batches, seconds = throughput(dataset, args.epochs)
        print(f"| {label} | {built:.1f} | {batches} | {batches / seconds:,.0f} |")


if __name__ == "__main__":
    main()
