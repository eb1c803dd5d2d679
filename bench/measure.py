"""Timing and memory of compiled Keras models, the models of a section taking
turns step by step, so that a noisy machine slows them alike."""

import dataclasses
import functools
import statistics
import sys
import time

import numpy as np


@dataclasses.dataclass
class Contender:
    """One model of a section.

    `model` is compiled; `train_data` is `(inputs, targets)` for
    `train_on_batch`; `inputs` are the training batch the inference batches
    are cut from or tiled to, None for a model that only trains (the SCRBM's
    teacher-forcing trainer, whose predictor is another row)."""

    name: str
    model: object
    train_data: tuple
    inputs: object = None


@dataclasses.dataclass
class Result:
    """What was measured of one contender (None: not measured)."""

    name: str
    parameters: int
    train_ms: float
    first_peak_mib: float = None
    train_peak_mib: float = None
    latency_ms: float = None
    throughput: float = None
    predict_peak_mib: float = None


def progress(message):
    """A line on stderr with the time and this process's CPU seconds, so
    that a long run shows where it is and how much CPU it gets."""
    print(f"{time.strftime('%H:%M:%S')} (CPU {time.process_time():.0f} s) {message}", file=sys.stderr, flush=True)


def interleaved(calls, repeats, memory):
    """Median seconds and largest peak MiB (`memory.timed`) of each of
    `calls` (a dict of name to function), the calls taking turns A, B, C,
    A, B, C, ... (the first of a round rotating each round) for `repeats`
    rounds."""
    names = list(calls)
    seconds, peaks = {name: [] for name in names}, {name: [] for name in names}
    for round_ in range(repeats):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            took, peak = memory.timed(calls[name])
            seconds[name].append(took)
            peaks[name].append(peak)
    return (
        {name: statistics.median(values) for name, values in seconds.items()},
        {name: None if None in values else max(values) for name, values in peaks.items()},
    )


def warm_up(calls, count, memory):
    """Runs each call `count` times untimed (the first compiles); returns
    the peak MiB of each first call, compilation included."""
    first = {}
    for name, call in calls.items():
        _, first[name] = memory.timed(call)
        for _ in range(count - 1):
            call()
    return first


def batch_of(inputs, size):
    """`size` rows of `inputs`: its first rows, repeated cyclically when it
    has fewer."""
    return np.resize(inputs, (size,) + inputs.shape[1:])


def training_calls(contenders):
    """One `train_on_batch` per contender, by name."""
    return {c.name: functools.partial(c.model.train_on_batch, *c.train_data) for c in contenders}


def inference_calls(contenders, batch):
    """One `predict_on_batch` of `batch` sequences per contender that has
    inputs, by name."""
    return {
        c.name: functools.partial(c.model.predict_on_batch, batch_of(c.inputs, batch))
        for c in contenders
        if c.inputs is not None
    }


def measure(contenders, plan, throughput_batch, memory, label):
    """Results of compiled `contenders`: training steps, batch-1 latency and
    batch-`throughput_batch` throughput, each phase warmed up, then
    interleaved."""
    progress(f"{label}: training steps")
    train = training_calls(contenders)
    first_peaks = warm_up(train, plan.warmup, memory)
    train_s, train_peaks = interleaved(train, plan.repeats, memory)
    progress(f"{label}: batch-1 inference")
    single = inference_calls(contenders, 1)
    warm_up(single, 1, memory)
    latency, _ = interleaved(single, plan.inference_repeats, memory)
    progress(f"{label}: batch-{throughput_batch} inference")
    bulk = inference_calls(contenders, throughput_batch)
    warm_up(bulk, 1, memory)
    bulk_s, bulk_peaks = interleaved(bulk, plan.inference_repeats, memory)
    return [
        Result(
            name=c.name,
            parameters=c.model.count_params(),
            train_ms=train_s[c.name] * 1e3,
            first_peak_mib=first_peaks[c.name],
            train_peak_mib=train_peaks[c.name],
            latency_ms=latency[c.name] * 1e3 if c.name in latency else None,
            throughput=throughput_batch / bulk_s[c.name] if c.name in bulk_s else None,
            predict_peak_mib=bulk_peaks.get(c.name),
        )
        for c in contenders
    ]
