"""RESULTS.md, rebuilt from committed run records beside the papers' numbers.

    keras-seq results --data-dir ../shared/data --only jsb_chorales_lstm --seeds 0 1 2
    keras-seq results --rebuild

Each run writes one record, `records/<recipe>/seed-<seed>.json`, the JSON
that `keras-seq train` writes, plus the command that reproduces it (a
`--quick` check writes `seed-<seed>-quick.json`, never a real record's
file; a record must stand where its recipe and seed say). A recipe
with a grid trains the point `keras-seq select` chose on validation
(`records/<recipe>/selected.json`, see zoo.selection), if it has one. A record
already there is reused, never retrained (`--retrain` forces it), so runs
accumulate across days and machines; `--rebuild` only rewrites RESULTS.md
from the records. A row shows the mean ± standard deviation over its seeds,
how many of them converged (early stopping ended the run, not the epoch
limit or a time budget), the paper's number, parameters, epochs, wall time,
hardware and the command. A recipe's `records/<recipe>/NOTE.md`, if any,
becomes a findings page of the docs (`docs/findings/<recipe>.md`: what was
tried, the numbers, the conclusion), and its finding one line under its
section.
Planned recipes without records are listed as not measured, with their
command.
"""

import dataclasses
import datetime
import glob
import json
import os
import re
import textwrap

from keras_seq.zoo import recipes
from keras_seq.zoo import report
from keras_seq.zoo.records import json_field_problem

RECORDS = "records"
# The data folder the README documents; row commands name it instead of the machine path a run used.
DOCUMENTED_DATA_DIR = "../shared/data"

# (section title, recipe names), in the order of the papers' tables.
SECTIONS = (
    (
        "LMN paper: polyphonic music, JSB Chorales (frame-level accuracy)",
        (
            "jsb_chorales_lmn_a",
            "jsb_chorales_lmn_b",
            "jsb_chorales_lmn_b_pretrained",
            "jsb_chorales_lstm",
            "jsb_chorales_gru",
            "jsb_chorales_simple_rnn",
        ),
    ),
    (
        "LMN paper: polyphonic music, Bach chorales of music21 (frame-level accuracy; the main job's data)",
        (
            "bach_chorales_lmn_b_pretrained",
            "bach_chorales_lmn_b",
            "bach_chorales_lstm",
            "bach_chorales_gru",
            "bach_chorales_simple_rnn",
        ),
    ),
    # The second of the LMN paper's four sets: Nottingham, which has the TCN
    # paper's NLL anchors and 44 updates per epoch at batch 16 (Piano-midi's
    # 87 pieces give 6, so its runs need about seven times the epochs).
    (
        "LMN paper: polyphonic music, Nottingham (frame-level accuracy)",
        (
            "nottingham_lmn_b_pretrained",
            "nottingham_lmn_b",
            "nottingham_lstm",
            "nottingham_gru",
            "nottingham_simple_rnn",
        ),
    ),
    (
        "SCRBM paper: OCR letters, cv protocol (sequence labelling error)",
        (
            "ocr_cv_scrbm",
            "ocr_cv_lstm",
            "ocr_cv_gru",
            "ocr_cv_simple_rnn",
            "ocr_cv_conv",
        ),
    ),
    (
        "SCRBM paper: OCR letters, ms protocol",
        (
            "ocr_ms_scrbm",
            "ocr_ms_lstm",
            "ocr_ms_gru",
            "ocr_ms_simple_rnn",
            "ocr_ms_conv",
        ),
    ),
    (
        "SCRBM paper: CoNLL-2000 chunking",
        (
            "conll2000_scrbm",
            "conll2000_lstm",
            "conll2000_gru",
            "conll2000_simple_rnn",
            "conll2000_conv",
        ),
    ),
    (
        "SCRBM paper: WSJ POS tagging, 2000 training sentences",
        (
            "wsj_pos_2000_scrbm",
            "wsj_pos_2000_lstm",
            "wsj_pos_2000_gru",
            "wsj_pos_2000_simple_rnn",
            "wsj_pos_2000_conv",
            "wsj_pos_2000_lexical_scrbm",
            "wsj_pos_2000_lexical_lstm",
            "wsj_pos_2000_lexical_gru",
            "wsj_pos_2000_lexical_simple_rnn",
            "wsj_pos_2000_lexical_conv",
        ),
    ),
    (
        "SCRBM paper: melodies, next-pitch cross-entropy (bits per event)",
        (
            "bach_melodies_scrbm",
            "bach_melodies_lstm",
            "bach_melodies_simple_rnn",
            "bach_melodies_ngram",
            "kinderlieder_scrbm",
            "kinderlieder_lstm",
            "kinderlieder_simple_rnn",
            "kinderlieder_ngram",
        ),
    ),
    (
        "TrellisNet paper: long-memory stress tests and char-level PTB at CPU scale",
        (
            "adding_trellisnet",
            "copy_memory_trellisnet",
            "ptb_char_trellisnet_cpu",
        ),
    ),
)

# Recipes whose full settings need an accelerator: listed, not run here.
GPU_SCALE = (
    "sequential_mnist_trellisnet",
    "permuted_mnist_trellisnet",
    "ptb_char_trellisnet",
    "ptb_word_trellisnet",
)


def planned_recipes(only=None):
    """The recipe names of `SECTIONS` that exist, filtered by substring."""
    names = [name for _, section in SECTIONS for name in section]
    missing = [name for name in names if name not in recipes.RECIPES]
    if missing:
        raise ValueError(f"RESULTS sections name unknown recipes: {', '.join(missing)}.")
    return [name for name in names if not only or any(part in name for part in only)]


def record_path(records_dir, name, seed, quick=False):
    """Where the record of (recipe, seed) is kept; --quick checks have their
    own file, so that a check never replaces a real record."""
    return os.path.join(records_dir, name, f"seed-{seed}{'-quick' if quick else ''}.json")


# What a table row reads from a run record, and the JSON types it must have.
RUN_RECORD_FIELDS = {
    "recipe": str,
    "seed": int,
    "test": dict,
    "parameters": int,
    "wall_seconds": (int, float),
    "hardware": str,
}


def check_run_record(record, path, name=None):
    """Raises a ValueError naming `path` and the field when the run record
    lacks what a table row reads, or when it is not the record its place
    says (`<records>/<name>/seed-<seed>[-quick].json`)."""

    def damaged(problem):
        return ValueError(f"The run record {path} {problem}; rerun its command (or restore the file from git).")

    problem = json_field_problem(record, RUN_RECORD_FIELDS)
    if problem:
        raise damaged(f"is damaged: {problem}")
    if not record["test"] or not all(isinstance(v, (int, float)) for v in record["test"].values()):
        raise damaged(f'has no test scores (got "test": {record["test"]!r})')
    stopping = record.get("stopping")
    if stopping is not None and not (isinstance(stopping, dict) and "reason" in stopping and "converged" in stopping):
        raise damaged('has a "stopping" without "reason" and "converged"')
    metric = report.headline(record)
    if metric not in record["test"]:
        raise damaged(f"has no test score of its headline metric ({metric or 'none'})")
    if name is not None:
        expected = record_path(
            os.path.dirname(os.path.dirname(path)), record["recipe"], record["seed"], bool(record.get("quick"))
        )
        if record["recipe"] != name or os.path.basename(expected) != os.path.basename(path):
            raise ValueError(
                f"{path} holds the {'--quick ' if record.get('quick') else ''}record of seed {record['seed']} "
                f"of {record['recipe']}, which belongs in {expected}; move it there."
            )


def load_record(path, keys=("recipe", "test")):
    """One run record (or a grid choice: `keys=("recipe", "point")`); a file
    that is not a whole JSON record raises an error that names it and says
    what to do."""
    try:
        with open(path) as f:
            record = json.load(f)
    except json.JSONDecodeError as error:
        raise ValueError(
            f"The run record {path} is not valid JSON ({error.msg} at line {error.lineno}): it was "
            "probably cut short by a crash. Delete it and rerun its command to measure it again."
        ) from None
    if not isinstance(record, dict) or any(key not in record for key in keys):
        raise ValueError(f"{path} is not a keras-seq record (it lacks the keys {', '.join(keys)}).")
    return record


def selection_path(records_dir, name, quick=False):
    return os.path.join(records_dir, name, "selected-quick.json" if quick else "selected.json")


def selected_point(records_dir, name, quick=False):
    """The grid point `keras-seq select` chose for recipe `name`
    (`records/<name>/selected.json`; `selected-quick.json` for --quick
    checks), or None."""
    path = selection_path(records_dir, name, quick)
    if not os.path.exists(path):
        return None
    return load_record(path, keys=("recipe", "point"))["point"]


def point_name(point, separator="_"):
    """A grid point as text: `dropout=0.2_units=100` (a file name), or with
    `separator=", "` for a table."""
    return separator.join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in sorted(point.items()))


def grid_record_path(records_dir, name, point, quick=False):
    return os.path.join(records_dir, name, "grid", f"{point_name(point)}{'-quick' if quick else ''}.json")


def with_point(recipe, point):
    """`recipe` with its model arguments set to the grid `point`."""
    return dataclasses.replace(recipe, model={**recipe.model, **point})


PRESET_RUNS = "preset"  # records/<recipe>/preset/: the runs the built-in presets were exported from


def load_records(records_dir, quick=False):
    """`{recipe: [record, ...]}` (sorted by seed) of every record under
    `records_dir`; `quick` records are kept apart from real ones. The run a
    built-in preset was exported from (`<recipe>/preset/seed-*.json`) is one
    more run of its row, after the seeds, marked by `is_preset_run`."""
    found = {}
    patterns = [("*", "seed-*.json"), ("*", PRESET_RUNS, "seed-*.json")]
    for pattern in patterns:
        for path in sorted(glob.glob(os.path.join(records_dir, *pattern))):
            preset_run = pattern[1] == PRESET_RUNS
            record = load_record(path)
            if preset_run:  # trained by `--set` at the row's point: its model arguments are checked below
                record = {**record, "recipe": record["recipe"].split("+")[0], "is_preset_run": True}
                check_run_record(record, path)
                if record["recipe"] != os.path.basename(os.path.dirname(os.path.dirname(path))):
                    raise ValueError(f"{path} holds a run of {record['recipe']}; move it to its recipe's folder.")
            else:
                check_run_record(record, path, os.path.basename(os.path.dirname(path)))
            if bool(record.get("quick")) == quick:
                found.setdefault(record["recipe"], []).append(record)
    return {
        name: sorted(rows, key=lambda r: (r.get("is_preset_run", False), r["seed"])) for name, rows in found.items()
    }


def record_source(records_dir, record):
    """The file a record of `load_records` was read from."""
    name, seed, quick = record["recipe"], record["seed"], bool(record.get("quick"))
    if record.get("is_preset_run"):
        return os.path.join(records_dir, name, PRESET_RUNS, f"seed-{seed}.json")
    return record_path(records_dir, name, seed, quick)


def write_record(record, path):
    """Writes through a temporary file renamed into place: a crash leaves the
    previous file or none, never half a record."""
    write_text(path, json.dumps(record, indent=2) + "\n")


def write_text(path, text):
    """Writes `text` to `path` through a temporary file renamed into place."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    temporary = f"{path}.tmp-{os.getpid()}"
    with open(temporary, "w") as f:
        f.write(text)
    os.replace(temporary, path)


def check_new_record_path(path):
    """Raises unless `path` can take a kept record: a JSON file not there yet,
    in a folder that exists (it is made) and takes a file (one is written and
    removed), so that a bad path fails before training, not after."""
    if not path.endswith(".json"):
        raise ValueError(f"--record {path}: a record is a JSON file; name it seed-<seed>.json.")
    if os.path.exists(path):
        raise FileExistsError(
            f"--record {path}: the file exists; move it away or name another, so that no kept record is overwritten."
        )
    folder = os.path.dirname(path) or "."
    probe = os.path.join(folder, f".record-check-{os.getpid()}")
    try:
        os.makedirs(folder, exist_ok=True)
        with open(probe, "w"):
            pass
        os.remove(probe)
    except OSError as error:
        raise ValueError(f"--record {path}: no record can be written there ({error.strerror or error}).") from None


def keep_record(record, path, command, root="."):
    """Writes a finished run's `record` to `path` (under `records/`, to be
    committed) with the `command` that reproduces it, run from `root`, and
    today's date; its run directory is named relative to `root`."""
    record["run_directory"] = portable_run_directory(record.get("run_directory"), root)
    record["command"] = portable_command(command)
    record["date"] = datetime.date.today().isoformat()
    write_record(record, path)


def reproduce_command(name, seed, data_dir, budget_seconds, quick=False):
    parts = ["keras-seq results", f"--only {name}", f"--seeds {seed}"] + (["--quick"] if quick else [])
    if data_dir:
        parts.append(f"--data-dir {data_dir}")
    if budget_seconds:
        parts.append(f"--budget-seconds {budget_seconds:g}")
    return " ".join(parts)


def run_name(name, point):
    """The run directory name of recipe `name` at grid `point` (None: the
    recipe's own arguments), so that a resumed checkpoint is of this point."""
    return name if not point else f"{name}+{point_name(point, ',')}"


def portable_run_directory(directory, root):
    """`directory` relative to `root` (the checkout's root, for the default
    `runs/`), so that a committed record names no path of the machine it
    ran on."""
    if directory is None or not os.path.isabs(directory):
        return directory
    return os.path.relpath(directory, os.path.abspath(root))


def checkout_root(records_dir):
    """The folder that holds `records_dir`: where its commands run from and
    its records' run directories are named relative to."""
    return os.path.dirname(os.path.abspath(records_dir))


def default_output(records_dir):
    """Where `results` and `select` keep their runs (checkpoints, models):
    `runs/` beside the records folder."""
    return os.path.join(checkout_root(records_dir), "runs")


def measure(
    data_dir=None,
    records_dir=RECORDS,
    seeds=(0,),
    budget_seconds=None,
    epochs=None,
    only=None,
    quick=False,
    retrain=False,
    verbose=0,
    output=None,
    set_aside=None,
):
    """Trains every planned (recipe, seed) that has no record yet and
    writes its record; returns `{name: [record, ...]}` of what was run.
    With `output`, each run keeps a run directory there and a checkpoint
    per epoch (zoo.runs), so a killed `measure` resumes where it stopped.
    `set_aside`: a label; records trained at other model arguments than the
    recipe's now (a new `keras-seq select` choice) move to
    `records/<recipe>/<label>/` first, so that their seeds are trained again."""
    from keras_seq.zoo import train

    measured = {}
    for name in planned_recipes(only):
        if set_aside:
            set_aside_records(records_dir, name, set_aside, quick)
        point = selected_point(records_dir, name, quick)
        for seed in seeds:
            path = record_path(records_dir, name, seed, quick)
            if os.path.exists(path) and not retrain:
                # A damaged record, or one of another grid point, is named now, not at the rebuild.
                record = load_record(path)
                check_run_record(record, path, name)
                _check_trained_at(record, path, recipes.get(name), point)
                continue
            recipe = recipes.get(name) if point is None else with_point(recipes.get(name), point)
            searched = None if point is None else grid_record_path(records_dir, name, point, quick)
            limit = epochs or (1 if quick else recipe.epochs)
            searched_run = load_record(searched) if searched and os.path.exists(searched) else None
            if (
                searched_run
                and not budget_seconds
                and searched_run["seed"] == seed
                and searched_run["stopping"]["epoch_limit"] == limit
            ):
                record = searched_run  # the grid search already ran this point with this seed
            else:
                print(
                    f"[results] {name} seed {seed}"
                    + (
                        f" with {point}"
                        if point
                        else (
                            f" ({UNSEARCHED}: `keras-seq select {name}` chooses on validation)" if recipe.grid else ""
                        )
                    ),
                    flush=True,
                )
                record = train.run(
                    recipe,
                    data_dir=data_dir,
                    epochs=epochs,
                    quick=quick,
                    seed=seed,
                    verbose=verbose,
                    max_seconds=budget_seconds,
                    output=output,
                    run_name=run_name(name, point),
                )
            record["selected_point"] = point
            keep_record(
                record,
                path,
                reproduce_command(name, seed, data_dir, budget_seconds, quick),
                root=checkout_root(records_dir),
            )
            measured.setdefault(name, []).append(record)
    return measured


def stale_records(records_dir, name, quick=False):
    """The seed records of recipe `name` trained at other model arguments
    than its selected point (or its own arguments)."""
    recipe, point = recipes.get(name), selected_point(records_dir, name, quick)
    stale = []
    for path in sorted(glob.glob(os.path.join(records_dir, name, "seed-*.json"))):
        record = load_record(path)
        if bool(record.get("quick")) == quick and arguments_differing_from(record, recipe, point):
            stale.append(path)
    return stale


def set_aside_records(records_dir, name, label, quick=False):
    """Moves the `stale_records` of recipe `name` into
    `records/<name>/<label>/`, never over a record there; returns the moved
    paths."""
    folder = os.path.join(records_dir, name, label)
    moved = []
    for path in stale_records(records_dir, name, quick):
        target = os.path.join(folder, os.path.basename(path))
        if os.path.exists(target):
            raise ValueError(f"--set-aside {label}: {target} exists; choose another label.")
        os.makedirs(folder, exist_ok=True)
        os.replace(path, target)
        print(f"[results] {path} set aside in {folder}/ (trained at other model arguments)", flush=True)
        moved.append(target)
    return moved


def _check_trained_at(record, path, recipe, point):
    """Refuses a record trained with other model arguments than the chosen
    grid `point` (None: the recipe's own): kept, it would stand in a row of
    a configuration it is not."""
    differing = arguments_differing_from(record, recipe, point)
    if differing:
        raise ValueError(
            f"{path} was trained with {', '.join(f'{k}={a}' for k, a, _ in differing)}, but "
            f"{recipe.name} now trains {', '.join(f'{k}={b}' for k, _, b in differing)}"
            f"{' (chosen by keras-seq select)' if point else ''}. Move the old records aside "
            f"(records/{recipe.name}/<label>/; `--set-aside <label>` does it) or rerun with --retrain."
        )


def arguments_differing_from(record, recipe, point):
    """`[(argument, recorded value, value at point)]` where the run `record`
    does not build the model of `recipe` at grid `point` (None: its own
    arguments; a --quick record: with its quick arguments)."""
    wanted = {
        **(with_point(recipe, point) if point else recipe).model,
        **(recipe.quick_model if record.get("quick") else {}),
    }
    return _differing_arguments(recipe, record.get("model", {}), wanted)


def _differing_arguments(recipe, model, other):
    """`[(argument, value in model, value in other)]` where two model
    argument dicts of `recipe`'s builder disagree, its defaults filled in;
    the arguments read from the dataset (sizes, task) are not compared."""
    if model == other:  # the common case, decided without importing the builders (Keras)
        return []
    from keras_seq.zoo import registry

    family = registry.family(recipe.builder)
    derived = {"builder"} | set(family.data_arguments(recipe.dataset_info, recipe) if family.data_arguments else ())
    a, b = (
        registry.effective_arguments(recipe.builder, {k: v for k, v in m.items() if k not in derived})
        for m in (model, other)
    )
    as_json = lambda value: json.loads(json.dumps(value))  # tuples as lists, as records hold them
    return [(k, a[k], b[k]) for k in sorted((set(a) & set(b)) - derived) if as_json(a[k]) != as_json(b[k])]


def _row(name, rows, selection=None):
    """One table row of a recipe's records; `selection`: the grid point
    `keras-seq select` chose, which the records were checked to be trained
    at (records made before the choice do not carry it)."""
    recipe = recipes.RECIPES.get(name)
    first = rows[0]
    metric = report.headline(first)
    nll = report.separate_nll(first)
    mean, spread = report.mean_and_spread([r["test"][metric] for r in rows])
    ours = report.format_value(metric, mean, spread)
    if nll is None:
        nll_text = report.nll_column(first)
    elif all(nll in r["test"] for r in rows):
        nll_text = report.format_value(nll, *report.mean_and_spread([r["test"][nll] for r in rows]))
    else:
        nll_text = "–"
    paper = report.format_value(metric, first["paper"]["value"]) if first.get("paper") else "–"
    marks = [report.converged(r) for r in rows]
    if all(m is None for m in marks):
        convergence = report.STOPPED_BY[first["stopping"]["reason"]] if first.get("stopping") else "–"
    else:
        done = sum(1 for m in marks if m)
        blew_up = sum(1 for r in rows if report.loss_diverged(r))
        convergence = f"{done}/{len(rows)}" + ("" if done == len(rows) else " **(not converged)**")
        convergence += f" **({blew_up} diverged: training loss not finite)**" if blew_up else ""
    worse = sum(1 for r in rows if report.worse_than_chance(r))
    if worse:
        convergence += f" **({worse} worse than chance)**"
    epochs = [r["epochs_run"] for r in rows if r.get("epochs_run") is not None]
    epochs_text = "–" if not epochs else (str(epochs[0]) if len(set(epochs)) == 1 else f"{min(epochs)}-{max(epochs)}")
    wall = sum(r["wall_seconds"] for r in rows) / len(rows)
    hardware = "; ".join(dict.fromkeys(r["hardware"] for r in rows))
    seeds = ", ".join(str(r["seed"]) + (" (preset)" if r.get("is_preset_run") else "") for r in rows)
    seeded = [r for r in rows if not r.get("is_preset_run")] or rows
    command = first.get("command", f"keras-seq train {name}")
    if len(seeded) > 1:
        command = f"keras-seq results --only {name} --seeds {' '.join(str(r['seed']) for r in seeded)}"
        if "--data-dir" in first.get("command", ""):
            command += " --data-dir " + first["command"].split("--data-dir ")[1].split()[0]
    command = portable_command(command)
    selection = first.get("selected_point") or selection
    if selection:
        name += f" ({point_name(selection, ', ')})"
    elif recipe and recipe.grid:
        name += f" ({UNSEARCHED})"
    return (
        f"| {name} | {metric} | {ours} | {seeds} | {paper} | {nll_text} | {first['parameters']:,} | "
        f"{epochs_text} | {convergence} | {wall:.0f} | {hardware} | `{command}` |"
    )


def portable_command(command):
    """`command` with an absolute `--data-dir` replaced by the documented data folder."""
    words = command.split(" ")
    for i, word in enumerate(words[:-1]):
        if word == "--data-dir" and os.path.isabs(words[i + 1]):
            words[i + 1] = DOCUMENTED_DATA_DIR
    return " ".join(words)


# A row of a recipe with a grid that `select` has not searched.
UNSEARCHED = "recipe defaults, no recorded selection"

TABLE_HEAD = (
    "| recipe | metric | ours (mean ± std) | seeds | paper | test NLL | parameters | epochs | converged | "
    "wall s (mean) | hardware | command |\n"
    "|---|---|---:|---|---:|---:|---:|---:|---|---:|---|---|"
)


FINDINGS = os.path.join("docs", "findings")  # beside RESULTS.md: one page per recipe with a NOTE.md
SUMMARY_CHARACTERS = 300


def _note_text(records_dir, name):
    """The text of recipe `name`'s NOTE.md, or None."""
    path = os.path.join(records_dir, name, "NOTE.md")
    if not os.path.isfile(path):
        return None
    with open(path) as f:
        return f.read().strip()


def summary(note, limit=SUMMARY_CHARACTERS):
    """A note's finding in one line: its opening bold sentence, else its first
    sentence, shortened at a clause boundary to at most `limit` characters."""
    text = " ".join(note.split())
    bold = re.match(r"\*\*(.+?)\*\*", text)
    if bold:
        text = bold.group(1)
    else:
        text = re.split(r"(?<=[.!?])\s+(?=[A-Z(*`])", text, maxsplit=1)[0]
    text = text.strip().rstrip(":")
    if len(text) <= limit:
        return text
    cuts = [i for i in range(limit // 2, limit - 1) if text[i : i + 2] in ("; ", ", ", " (") and _balanced(text[:i])]
    head = text[: cuts[-1]] if cuts else text[: text.rfind(" ", 0, limit - 1)]
    return head.rstrip(",;: ") + " …"


def _balanced(text):
    """Whether `text` closes every code span and bracket it opens."""
    return text.count("`") % 2 == 0 and text.count("(") == text.count(")") and text.count("[") == text.count("]")


def _finding(records_dir, name):
    """RESULTS.md's line for recipe `name`'s note: its finding and the page that explains it."""
    note = _note_text(records_dir, name)
    if note is None:
        return []
    return [f"- **{name}**: {summary(note)} ([findings]({FINDINGS}/{name}.md))"]


def findings_pages(records, records_dir=RECORDS):
    """`{file name: Markdown}` of the docs' findings pages: one per recipe with
    a NOTE.md (its table row above the note), and their index."""
    pages, index = {}, []
    for title, names in (*SECTIONS, ("Recipes not measured with their current arguments", ())):
        if not names:
            names = [n for n in sorted(os.listdir(records_dir)) if n not in pages and _listed_nowhere(n)]
        entries = []
        for name in names:
            note = _note_text(records_dir, name)
            if note is None:
                continue
            lines = [f"# {name}", "", f"Section: {title}.", ""]
            if records.get(name):
                selection = selected_point(records_dir, name) if name in recipes.RECIPES else None
                lines += [TABLE_HEAD, _row(name, records[name], selection), ""]
            else:
                lines += ["No record of this recipe at its current arguments; RESULTS.md lists its command.", ""]
            pages[f"{name}.md"] = "\n".join([*lines, note, ""])
            entries.append(f"- [{name}]({name}.md): {summary(note)}")
        if entries:
            index += [f"## {title}", "", *entries, ""]
    head = [
        "# Findings",
        "",
        "What each recipe's runs measured beyond its table row: what was tried, the numbers and the",
        "conclusion. Generated with RESULTS.md from `records/<recipe>/NOTE.md` by",
        "`keras-seq results --rebuild`; the records beside each note are the evidence.",
        "",
    ]
    pages["index.md"] = "\n".join([*head, *index]).rstrip("\n") + "\n"
    return pages


def _listed_nowhere(name):
    return not any(name in names for _, names in SECTIONS)


def write_findings(pages, directory):
    """Writes the findings pages into `directory`, each atomically, and removes
    the pages of notes that no longer exist."""
    os.makedirs(directory, exist_ok=True)
    for stale in set(os.listdir(directory)) - set(pages):
        if stale.endswith(".md"):
            os.remove(os.path.join(directory, stale))
    for name, text in pages.items():
        write_text(os.path.join(directory, name), text)


def _paper_in_brackets(recipe):
    """ " (paper: metric value)" for a recipe with a published number, else ""."""
    if recipe.paper is None:
        return ""
    return f" (paper: {recipe.paper.metric} {report.format_value(recipe.paper.metric, recipe.paper.value)})"


def markdown(records, records_dir=RECORDS):
    """The RESULTS.md text from `{name: [record, ...]}`: one table per
    section with its notes, then the recipes not measured yet."""
    lines = [
        "# Results",
        "",
        "Rebuilt from the run records under `records/` by `keras-seq results --rebuild` (no training); "
        "each row's command reruns it. *converged*: how many of the row's seeds early stopping ended on "
        "validation; a run cut by its epoch limit or a time budget while still improving is marked "
        "**not converged**, and no comparison should be read from it; a run whose test NLL is above "
        "chance (predicting the training frequencies whatever the input; `scripts/add_chance_level.py` "
        "added it to the records written before runs recorded it) is "
        "marked **worse than chance**: it learnt less than those counts, whatever ended it; a run whose "
        "training loss became NaN or infinite is stopped there and marked **diverged**. "
        "Test NLL: nats per frame (piano "
        "rolls), bits per step (labels, tokens); *= metric* where the row's metric is itself the test NLL "
        "(bits per event) or the task's only loss (a regression's MSE). "
        "Wall times are per run, on the hardware named, often "
        "sharing its cores with other work (`load_average` in the records from 2026-12-01 on). A seed "
        "repeats bit for bit only on the same kind of CPU with the same thread settings (the backends' "
        "kernels differ by instruction set; the Bach chorales LSTM's seed 0 moved 1.2 accuracy points "
        "between two CPUs, see docs/main-job.md), so the records name the CPU model from 2026-12-03 on and a "
        "row names every hardware its seeds ran on. Records dated before 2026-12-06 were shuffled by "
        "TensorFlow's reshuffling; from then on each epoch's batch order is keyed by (seed, epoch), so that "
        "a resumed run repeats an uninterrupted one: rerun, the older commands train on other batch orders, "
        "a source of variation like the seed's. Seeds `0 (preset)`: the run a built-in preset was exported "
        "from (`records/<recipe>/preset/`), a rerun of seed 0 at the row's point, counted as one more run; "
        "the notes' 3-seed figures are over seeds 0-2.",
    ]
    lines = [lines[0], lines[1], textwrap.fill(" ".join(lines[2:]), 100), ""]
    selections = {}
    for name, rows in records.items():
        if name in recipes.RECIPES:  # a row stands for what its command trains today
            point = selected_point(records_dir, name, bool(rows[0].get("quick")))  # load_records keeps quick apart
            for record in rows:
                _check_trained_at(
                    record,
                    record_source(records_dir, record),
                    recipes.get(name),
                    point,
                )
            selections[name] = point
    unmeasured = []
    for title, names in SECTIONS:
        rows = [_row(name, records[name], selections.get(name)) for name in names if records.get(name)]
        unmeasured += [name for name in names if not records.get(name)]
        if not rows:
            continue
        lines += [f"## {title}", "", TABLE_HEAD, *rows, ""]
        findings = [line for name in names if records.get(name) for line in _finding(records_dir, name)]
        if findings:
            lines += [
                "Findings (each links to its page: what was tried, the numbers, the conclusion):",
                "",
                *findings,
                "",
            ]
    lines += ["## Not measured yet", ""]
    lines += (
        [
            "CPU-feasible rows without a record (each line is its command; a recipe with a grid is "
            "first selected on validation):",
            "",
        ]
        if unmeasured
        else ["Every CPU-feasible recipe has a record."]
    )
    for name in unmeasured:
        recipe = recipes.get(name)
        command = f"`keras-seq results --only {name} --seeds 0 1 2 --data-dir {DOCUMENTED_DATA_DIR}`"
        if recipe.grid and selected_point(records_dir, name) is None:  # else the seeds train the defaults
            command = f"`keras-seq select {name} --data-dir {DOCUMENTED_DATA_DIR}`, then {command}"
        lines.append(f"- {command}{_paper_in_brackets(recipe)}")
    notes = [line for name in unmeasured for line in _finding(records_dir, name)]
    if notes:  # what was measured before a recipe changed, and why it changed
        lines += ["", "Findings of recipes not measured with their current arguments:", "", *notes]
    lines += ["", "GPU/TPU scale (run when an accelerator is available):", ""]
    for name in GPU_SCALE:
        lines.append(
            f"- `keras-seq train {name} --data-dir {DOCUMENTED_DATA_DIR}`: not yet measured"
            f"{_paper_in_brackets(recipes.get(name))}"
        )
    return "\n".join(lines) + "\n"


def add_arguments(parser):
    parser.add_argument("--data-dir", default=None, help="the benchmark data folder")
    parser.add_argument("--records", default=RECORDS, help="folder of the run records")
    parser.add_argument("--markdown", default="RESULTS.md", help="the file to (re)write")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0], help="seeds to run per recipe")
    parser.add_argument(
        "--budget-seconds",
        type=float,
        default=None,
        help="training wall-time limit per run (runs it cuts are marked not converged)",
    )
    parser.add_argument("--epochs", type=int, default=None, help="epoch limit (default: the recipe's)")
    parser.add_argument("--only", nargs="*", default=None, help="recipes whose name contains one of these")
    parser.add_argument("--rebuild", action="store_true", help="only rebuild the Markdown from the records")
    parser.add_argument("--retrain", action="store_true", help="rerun (seed, recipe) pairs that have records")
    parser.add_argument("--quick", action="store_true", help="tiny data and models (a check, not results)")
    parser.add_argument(
        "--output",
        default=None,
        help="run directories and per-epoch checkpoints, so that a killed run resumes "
        "(default: runs/ beside --records)",
    )
    parser.add_argument(
        "--set-aside",
        default=None,
        metavar="LABEL",
        help="first move records trained at other model arguments than the recipe's now "
        "(a new select choice) into records/<recipe>/LABEL/",
    )


def selections(records_dir):
    """{recipe: point} of every `records/<recipe>/selected.json`."""
    chosen = [
        load_record(path, keys=("recipe", "point"))
        for path in sorted(glob.glob(os.path.join(records_dir, "*", "selected.json")))
    ]
    return {selection["recipe"]: selection["point"] for selection in chosen}


def sync_selected_points(records_dir):
    """Writes the package's copy of the selections (`recipes.SELECTED_POINTS`)
    from the checkout's records, if `records_dir` is that folder; returns
    whether it did."""
    checkout_records = os.path.join(os.path.dirname(os.path.dirname(recipes.SELECTED_POINTS)), RECORDS)
    if (
        not os.path.isdir(records_dir)
        or not os.path.isdir(checkout_records)
        or not os.path.samefile(records_dir, checkout_records)
    ):
        return False
    points = selections(records_dir)
    if points != recipes.selected_points():
        temporary = f"{recipes.SELECTED_POINTS}.tmp-{os.getpid()}"
        with open(temporary, "w") as f:
            json.dump(points, f, indent=2, sort_keys=True)
            f.write("\n")
        os.replace(temporary, recipes.SELECTED_POINTS)
    return True


def run(args, argv_text=None):
    if not args.rebuild:
        measure(
            args.data_dir,
            args.records,
            args.seeds,
            args.budget_seconds,
            args.epochs,
            args.only,
            args.quick,
            args.retrain,
            output=args.output or default_output(args.records),
            set_aside=args.set_aside,
        )
    records = load_records(args.records, quick=args.quick)
    text = markdown(records, args.records)
    write_text(args.markdown, text)
    if not args.quick:
        write_findings(findings_pages(records, args.records), os.path.join(os.path.dirname(args.markdown), FINDINGS))
    if not args.quick:
        sync_selected_points(args.records)
    print(text)
