"""The Markdown of `python -m bench`: a header per backend (machine,
versions, load, wall time) and a table per section."""

import os
import platform

MISSING = "—"


def table(headers, rows, left=2):
    """A Markdown table; the first `left` columns left-aligned, the others
    right-aligned."""
    align = ["---" if i < left else "---:" for i in range(len(headers))]
    lines = [headers, align, *rows]
    return "\n".join("| " + " | ".join(str(cell) for cell in line) + " |" for line in lines)


def number(value, digits=1):
    """`value` with `digits` decimals (more below 10), or a dash for None."""
    if value is None:
        return MISSING
    return f"{value:,.{digits + 1 if abs(value) < 10 else digits}f}"


def cpu_name():
    """The CPU's model name (Linux: /proc/cpuinfo), else what platform says."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine():
    """The CPU, its cores and the operating system, in words."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (
        f"{cpu_name()}, {os.cpu_count()} cores ({usable} usable by this process), "
        f"{platform.system()} {platform.release()}"
    )


def load_average():
    """The 1, 5 and 15 minute load averages, in words."""
    return " / ".join(f"{value:.2f}" for value in os.getloadavg()) if hasattr(os, "getloadavg") else MISSING


def backend_header(backend, versions, config, load_before, load_after, wall, cpu, jit_note, memory_note):
    """The header of one backend's report."""
    return "\n".join(
        [
            f"## Backend: {backend}",
            "",
            f"- Machine: {machine()}",
            f"- Versions: {versions}",
            f"- Configuration: `{config}`; {jit_note}",
            f"- Load average (1 / 5 / 15 min): before {load_before}, after {load_after}",
            f"- Wall time: {wall:.0f} s (CPU time of the process, all threads: {cpu:.0f} s)",
            f"- Peak memory: {memory_note}",
        ]
    )


def plan_note(plan, throughput_batch=None, step="`train_on_batch`"):
    """How much was measured, in words."""
    text = f"Training: median of {plan.repeats} interleaved {step} steps per model after {plan.warmup} warm-up step(s)"
    if throughput_batch is not None:
        text += (
            f"; inference: median of {plan.inference_repeats} interleaved `predict_on_batch` calls "
            f"per model at batch 1 and at batch {throughput_batch}, after one warm-up call each"
        )
    return text


def section_report(section, plan, rounds, throughput_batch):
    """The table of one section: a row per model and `jit_compile` setting
    (`rounds` is a list of `(jit_compile, results)`)."""
    headers = [
        "jit_compile",
        "model",
        "parameters",
        "ms / training step",
        "vs LSTM (equal width)",
        "batch-1 ms / sequence",
        f"batch-{throughput_batch} sequences / s",
        "peak MiB, first training step (compiles)",
        "peak MiB, training step",
        f"peak MiB, batch-{throughput_batch} predict",
    ]
    rows = []
    for jit, results in rounds:
        baseline = next(r.train_ms for r in results if r.name == section.baseline)
        rows.extend(
            [
                str(jit),
                r.name,
                f"{r.parameters:,}",
                number(r.train_ms),
                f"{r.train_ms / baseline:.2f}",
                number(r.latency_ms, 2),
                number(r.throughput, 0),
                number(r.first_peak_mib),
                number(r.train_peak_mib),
                number(r.predict_peak_mib),
            ]
            for r in results
        )
    return "\n".join(
        [
            f"### {section.title}",
            "",
            f"{section.shape}. `jit_compile`: {', '.join(str(jit) for jit, _ in rounds)}. "
            f"{plan_note(plan, throughput_batch)}. The ratio divides by the {section.baseline} row "
            "with the same `jit_compile`.",
            "",
            table(headers, rows),
        ]
    )


def failed_section(key, error):
    """What stands in for the table of a section that raised."""
    return f"### Section `{key}`\n\nThe section failed: {error}"


def reference_report(path, plan, shape, results=None, error=None):
    """The table of keras-seq's TrellisNet vs the PyTorch reference, or why
    the reference could not run."""
    title = "### TrellisNet: keras-seq vs the reference PyTorch code"
    context = (
        f"Reference imported from `{path}`. Sequential MNIST: batch {shape['batch']} x {shape['steps']} "
        f"steps, {shape['hidden']} hidden channels incl. 10 outputs, {shape['levels']} levels, the "
        "reference's training setup on both sides (dropouts, weight norm, Adam, gradient clip 0.5). "
        f"{plan_note(plan, step='training (ours `train_on_batch`, the reference forward, backward, clip, Adam)')}"
        ", in one process."
    )
    if error is not None:
        return "\n".join([title, "", context, "", f"The reference could not run: {error}"])
    theirs = results[-1].train_ms
    rows = [
        [
            r.name,
            f"{r.parameters:,}",
            number(r.train_ms),
            f"{r.train_ms / theirs:.2f}",
            number(r.first_peak_mib),
            number(r.train_peak_mib),
        ]
        for r in results
    ]
    headers = [
        "model",
        "parameters",
        "ms / training step",
        "ours / reference",
        "peak MiB, first training step",
        "peak MiB, training step",
    ]
    return "\n".join([title, "", context, "", table(headers, rows, left=1)])
