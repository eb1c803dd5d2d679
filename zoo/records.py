"""The run record: the JSON every zoo run (trained or counted) writes, so
that reports and RESULTS.md read one format."""

import os
import platform


def cpu_name(cpuinfo="/proc/cpuinfo"):
    """The processor's model name, and "AVX-512" where it has those
    instructions: the backends' CPU kernels differ by instruction set, so
    the same seed repeats bit for bit only on the same kind of CPU."""
    try:
        with open(cpuinfo) as f:
            first_processor = f.read().split("\n\n")[0]
    except OSError:
        first_processor = ""
    fields = {
        key.strip(): value.strip() for key, _, value in (line.partition(":") for line in first_processor.splitlines())
    }
    name = fields.get("model name") or platform.processor() or "unknown CPU"
    return name + (" AVX-512" if "avx512f" in fields.get("flags", "").split() else "")


JSON_KIND_NAMES = {
    int: "a JSON integer",
    float: "a JSON number",
    str: "a JSON string",
    list: "a JSON array",
    dict: "a JSON object",
}


def json_field_problem(record, fields):
    """The first of `fields` (`{key: type or tuple of types}`) that the JSON
    object `record` lacks or holds as another kind, said in words; None when
    every field fits. JSON's true and false are not numbers here."""
    for key, kind in fields.items():
        value = record.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            kinds = kind if isinstance(kind, tuple) else (kind,)
            names = " or ".join(JSON_KIND_NAMES.get(k, k.__name__) for k in kinds)
            return f'"{key}" is missing or not {names} (got {value!r})'
    return None


def run_record(recipe, task, model, quick, seed, test, parameters, wall_seconds, backend, **fields):
    """The fields every record has, then `fields` (stopping, updates,
    history, ... as the run has them).

    Args:
        recipe: The `Recipe` that ran.
        task: Its dataset's task (`DatasetInfo.task`).
        model: The builder's arguments as used (`{"builder": ..., ...}`).
        quick: Whether it was a --quick run.
        seed: The run's seed.
        test: `{metric: value}` on the test split.
        parameters: Parameter (or count-table entry) number.
        wall_seconds: The run's wall time.
        backend: What computed it, e.g. `"backend tensorflow"`.
        **fields: Further keys of the record.

    Example:

    >>> run_record(recipe, "labelling", {"builder": "labelling_model"}, False, 0, {"sequence_error": 0.2},
    ...            25526, 61.0, "backend jax", epochs_run=120)
    """
    return {
        "recipe": recipe.name,
        "dataset": recipe.dataset,
        "task": task,
        "data_options": recipe.data_options,
        "model": model,
        "seed": seed,
        "quick": quick,
        "test": {k: float(v) for k, v in test.items()},
        "headline": recipe.headline,
        "paper": None
        if recipe.paper is None
        else {"value": recipe.paper.value, "metric": recipe.paper.metric, "source": recipe.paper.source},
        "parameters": int(parameters),
        "wall_seconds": round(wall_seconds, 1),
        "hardware": f"{platform.machine()} {os.cpu_count()} CPU cores ({cpu_name()}), {backend}",
        "load_average": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
        **fields,
    }
