"""RESULTS.md: every CPU-feasible recipe trained under one time budget, each
row measured in the same run, beside the papers' numbers.

    keras-seq results --data-dir ../shared/data --markdown RESULTS.md

Each recipe trains until early stopping, its epoch limit or
`--budget-seconds` of training wall time (whichever comes first), so the
whole table fits in about an hour on two CPU cores. Records are written to
`--output` as they finish; `--resume` reuses the records already there, so
an interrupted run picks up where it stopped. GPU-scale recipes are listed
with the command that runs them, marked as not measured.
"""

import datetime
import json
import os
import platform

from keras_seq.zoo import recipes
from keras_seq.zoo import report

# (section title, recipe names), in the order of the papers' tables.
SECTIONS = (
    ("LMN paper: polyphonic music, JSB Chorales (frame-level accuracy)", (
        "jsb_chorales_lmn_a", "jsb_chorales_lmn_b", "jsb_chorales_lmn_b_pretrained",
        "jsb_chorales_lstm", "jsb_chorales_gru", "jsb_chorales_simple_rnn",
    )),
    ("SCRBM paper: OCR letters, cv protocol (sequence labelling error)", (
        "ocr_cv_scrbm", "ocr_cv_lstm", "ocr_cv_gru", "ocr_cv_simple_rnn", "ocr_cv_conv",
    )),
    ("SCRBM paper: OCR letters, ms protocol", (
        "ocr_ms_scrbm", "ocr_ms_lstm", "ocr_ms_gru", "ocr_ms_simple_rnn", "ocr_ms_conv",
    )),
    ("SCRBM paper: CoNLL-2000 chunking", (
        "conll2000_scrbm", "conll2000_lstm", "conll2000_gru", "conll2000_simple_rnn", "conll2000_conv",
    )),
    ("SCRBM paper: WSJ POS tagging, 2000 training sentences", (
        "wsj_pos_2000_scrbm", "wsj_pos_2000_lstm", "wsj_pos_2000_gru", "wsj_pos_2000_simple_rnn",
        "wsj_pos_2000_conv",
    )),
    ("SCRBM paper: melodies, next-pitch cross-entropy (bits per event)", (
        "bach_melodies_scrbm", "bach_melodies_lstm", "bach_melodies_simple_rnn", "bach_melodies_ngram",
        "kinderlieder_scrbm", "kinderlieder_lstm", "kinderlieder_simple_rnn", "kinderlieder_ngram",
    )),
    ("TrellisNet paper: long-memory stress tests and char-level PTB at CPU scale", (
        "adding_trellisnet", "copy_memory_trellisnet", "ptb_char_trellisnet_cpu",
    )),
)

# Recipes whose full settings need an accelerator: listed, not run here.
GPU_SCALE = (
    "sequential_mnist_trellisnet", "permuted_mnist_trellisnet", "ptb_char_trellisnet", "ptb_word_trellisnet",
)


def planned_recipes(only=None):
    """The recipe names of `SECTIONS` that exist, filtered by substring."""
    names = [name for _, section in SECTIONS for name in section]
    missing = [name for name in names if name not in recipes.RECIPES]
    if missing:
        raise ValueError(f"RESULTS sections name unknown recipes: {', '.join(missing)}.")
    return [name for name in names if not only or any(part in name for part in only)]


def _stored_record(output, name):
    path = os.path.join(output, f"{name}.json")
    if not os.path.isfile(path):
        return None
    with open(path) as f:
        return json.load(f)


def measure(data_dir=None, output="runs/results", budget_seconds=240.0, epochs=None, seed=0,
            resume=False, only=None, quick=False, verbose=0):
    """Trains every planned recipe; returns `{name: record}` in table order."""
    from keras_seq.zoo import train

    records = {}
    for name in planned_recipes(only):
        stored = _stored_record(output, name) if resume else None
        if stored is not None and stored.get("quick") == quick:
            records[name] = stored
            continue
        print(f"[results] {name}", flush=True)
        records[name] = train.run(
            recipes.get(name), data_dir=data_dir, epochs=epochs, quick=quick, output=output,
            seed=seed, verbose=verbose, max_seconds=budget_seconds,
        )
    return records


def markdown(records, command, budget_seconds):
    """The RESULTS.md text: one table per section, then the GPU-scale list."""
    wall_seconds = sum(record["wall_seconds"] for record in records.values())
    lines = [
        "# Results",
        "",
        "Every number below was measured by",
        "",
        f"    {command}",
        "",
        f"on {datetime.date.today().isoformat()}, {platform.machine()} with {os.cpu_count()} CPU cores "
        f"(rows' wall times add up to {wall_seconds / 60:.0f} min). Each recipe trained until early stopping, its epoch "
        f"limit or {budget_seconds:.0f} s of training, whichever came first, so most rows are far "
        "from the papers' training budgets: read them as where a CPU gets in minutes, beside the "
        "published numbers (\"–\": the paper reports none for this row).",
        "",
    ]
    for title, names in SECTIONS:
        rows = [records[name] for name in names if name in records]
        if rows:
            lines += [f"## {title}", "", report.markdown_table(rows), ""]
    lines += ["## Not measured here (GPU/TPU scale)", ""]
    for name in GPU_SCALE:
        if name in recipes.RECIPES:
            recipe = recipes.get(name)
            paper = f"paper: {recipe.paper.metric} {recipe.paper.value:g}" if recipe.paper else ""
            lines.append(f"- `{name}`: `keras-seq train {name}` — not yet measured. {paper}")
    return "\n".join(lines) + "\n"


def add_arguments(parser):
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--output", default="runs/results", help="folder for the per-recipe records")
    parser.add_argument("--markdown", default="RESULTS.md")
    parser.add_argument("--budget-seconds", type=float, default=240.0,
                        help="training wall-time limit per recipe")
    parser.add_argument("--epochs", type=int, default=None, help="epoch limit (default: the recipe's)")
    parser.add_argument("--only", nargs="*", default=None, help="recipes whose name contains one of these")
    parser.add_argument("--resume", action="store_true", help="reuse records already in --output")
    parser.add_argument("--quick", action="store_true", help="tiny data and models (a check, not results)")
    parser.add_argument("--seed", type=int, default=0)


def run(args, argv_text):
    records = measure(
        args.data_dir, args.output, args.budget_seconds, args.epochs, args.seed, args.resume,
        args.only, args.quick,
    )
    text = markdown(records, argv_text, args.budget_seconds)
    with open(args.markdown, "w") as f:
        f.write(text)
    print(text)
