"""What the layer benchmarks share: timing `train_on_batch` of a compiled
model, and the header line that says where a number was measured."""

import os
import platform
import statistics
import time

import keras

JIT_CHOICES = {"auto": "auto", "true": True, "false": False}


def time_training_step(layers, x, y, loss, repeats, jit_compile, warmup=3):
    """Median milliseconds per `train_on_batch` of `Sequential(layers)`, and
    its parameter count. The first `warmup` steps (compilation) are not timed."""
    model = keras.Sequential([keras.Input(x.shape[1:])] + list(layers))
    model.compile(optimizer="adam", loss=loss, jit_compile=jit_compile)
    return time_compiled_steps(model, x, y, repeats, warmup), model.count_params()


def time_compiled_steps(model, x, y, repeats, warmup=3):
    """Median milliseconds per `train_on_batch` of a compiled model."""
    for _ in range(warmup):
        model.train_on_batch(x, y)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        model.train_on_batch(x, y)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def machine():
    return (
        f"backend={keras.backend.backend()} cpu={platform.processor() or platform.machine()} "
        f"cores={os.cpu_count()}"
    )
