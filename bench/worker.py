"""One backend's run of `python -m bench`, in the process that the parent
started with KERAS_BACKEND set: every section, then the comparison with the
reference TrellisNet when its path is given; returns the backend's Markdown
report."""

import importlib
import platform
import time
import traceback

import keras
import numpy as np

from bench import reference
from bench import report
from bench import suite
from bench.measure import measure
from bench.memory import METHOD
from bench.memory import PeakMemory

# jit_compile settings measured per backend: on torch `True` would mean
# torch.compile, which this benchmark leaves out.
JIT_SETTINGS = {"tensorflow": (False, True), "jax": (False, True), "torch": (False,)}


def auto_jit(backend):
    """What Keras' `jit_compile="auto"` resolves to here: XLA on JAX, and
    on TensorFlow only with an accelerator (Keras turns it off on CPU-only
    machines); never on torch."""
    if backend == "tensorflow":
        import tensorflow as tf

        return any(device.device_type != "CPU" for device in tf.config.list_physical_devices())
    return backend == "jax"


def versions(backend):
    """Python, Keras, backend and numpy versions, in words."""
    module = importlib.import_module(backend)
    text = f"Python {platform.python_version()}, Keras {keras.__version__}, {backend} {module.__version__}"
    if backend == "jax":
        import jaxlib

        text += f" (jaxlib {jaxlib.__version__})"
    return f"{text}, numpy {np.__version__}"


def jit_note(backend):
    """Which `jit_compile` settings this backend can be measured with."""
    note = "each section at the `jit_compile` settings its plan lists (`auto`: Keras' default)"
    if backend == "jax":
        note += "; `False` (op-by-op eager on JAX) only where the plan allows it, `True` in its place elsewhere"
    if backend == "torch":
        note += "; on torch only `False` (`True` would be torch.compile, not measured)"
    return note


def jit_settings(plan, backend):
    """The plan's `jit_compile` settings that this backend runs ("auto":
    Keras' default for the backend)."""
    settings = [auto_jit(backend) if setting == "auto" else setting for setting in plan.jit]
    if backend == "jax" and not plan.jax_eager:
        settings = [True for _ in settings]
    return [setting for setting in dict.fromkeys(settings) if setting in JIT_SETTINGS[backend]]


def section_markdown(config, key, backend, memory):
    """One section measured at each of its `jit_compile` settings, and
    whether it ran; a section that raises is reported with its error, so
    that the other sections still run."""
    plan = config.plans[key]
    try:
        section = suite.section(config, key)
        rounds = []
        for jit in jit_settings(plan, backend):
            label = f"[{backend}] {key} jit_compile={jit}"
            rounds.append((jit, measure(section.contenders(jit), plan, config.throughput_batch, memory, label)))
            keras.backend.clear_session()
    except Exception as error:  # the report says why the section is missing
        traceback.print_exc()
        return report.failed_section(key, f"{type(error).__name__}: {error}"), False
    return report.section_report(section, plan, rounds, config.throughput_batch), True


def reference_markdown(config, path, backend, memory):
    """The comparison with the reference TrellisNet, or why it failed."""
    plan, shape = config.plans["reference"], config.shapes["reference"]
    try:
        results = reference.compare(path, plan, memory, jit_settings(plan, backend), **shape)
    except Exception as error:  # the report says why the reference did not run
        traceback.print_exc()
        return report.reference_report(path, plan, shape, error=f"{type(error).__name__}: {error}")
    return report.reference_report(path, plan, shape, results=results)


def run(config_name, keys, reference_path=None):
    """The Markdown report of this process's backend, and whether every
    section ran."""
    backend = keras.backend.backend()
    config = suite.CONFIGS[config_name]
    load_before, start, cpu_start = report.load_average(), time.perf_counter(), time.process_time()
    memory = PeakMemory()
    skipped = [key for key in keys if backend not in config.plans[key].backends]
    outcomes = [section_markdown(config, key, backend, memory) for key in keys if key not in skipped]
    parts = [markdown for markdown, _ in outcomes]
    if skipped:
        parts.append(f"Not measured on {backend} (the `{config_name}` plan leaves it out): {', '.join(skipped)}.")
    if reference_path:
        parts.append(reference_markdown(config, reference_path, backend, memory))
    header = report.backend_header(
        backend,
        versions(backend),
        config_name,
        load_before,
        report.load_average(),
        time.perf_counter() - start,
        time.process_time() - cpu_start,
        jit_note(backend),
        f"not measured ({memory.reason})" if memory.reason else METHOD,
    )
    return "\n\n".join([header, *parts]) + "\n", all(ran for _, ran in outcomes)
