"""Reports of recipe results: Markdown tables beside the papers' numbers,
each row marked converged or not, a comparison of several models with what
it does and does not show, and PNG plots (learning curve; predicted vs true
piano roll)."""

import math

from keras_seq.zoo import tasks

# Which test metric is a record's headline when neither the paper nor the
# recipe names one, in order of preference; lower is better except for the
# accuracies.
HEADLINE = ("frame_accuracy", "accuracy", "sequence_error", "bits_per_event", "loss")
HIGHER_IS_BETTER = ("frame_accuracy", "accuracy")
PERCENT = ("frame_accuracy", "accuracy", "sequence_error")

# The papers' metric and the NLL of each kind of task (zoo.tasks).
TASK_HEADLINE = {name: task.headline for name, task in tasks.TASKS.items()}
TASK_NLL = {name: task.nll for name, task in tasks.TASKS.items()}

STOPPED_BY = {
    "early_stopping": "early stopping",
    "epoch_limit": "epoch limit",
    "time_budget": "time budget",
    "diverged": "diverged (training loss not finite)",
    "fixed_epochs": "fixed epochs (no validation)",
    "closed_form": "closed form (counts)",
}


def headline(record):
    """The metric a record's row shows: the paper's, else the recipe's, else
    its task's, else the first known one among its test scores; None when it
    has none of these."""
    paper = record.get("paper")
    if isinstance(paper, dict) and paper.get("metric"):
        return paper["metric"]
    if record.get("headline") in record["test"]:
        return record["headline"]
    by_task = TASK_HEADLINE.get(record.get("task"))
    if by_task in record["test"]:
        return by_task
    return next((m for m in HEADLINE if m in record["test"]), None)


def nll_metric(record):
    """The key of the record's test NLL, or None if it has none."""
    key = TASK_NLL.get(record.get("task"))
    if key in record["test"]:
        return key
    return next((k for k in ("frame_nll", "bits_per_event") if k in record["test"]), None)


def separate_nll(record):
    """The key of the record's test NLL when a table shows it beside the
    headline metric; None when it has none or the NLL is the metric (bits
    per character; a regression's MSE)."""
    nll = nll_metric(record)
    return None if nll == headline(record) else nll


def nll_column(record):
    """What a table's "test NLL" column shows for `record`: its test NLL, or
    a pointer to the metric column, so the number is not printed twice."""
    nll = separate_nll(record)
    if nll is None:
        return "= metric" if nll_metric(record) else "–"
    return format_value(nll, record["test"].get(nll))


def converged(record):
    """True (early stopping ended the run), False (a cap or budget cut it
    while it still improved) or None (fixed epochs: not judged). Records
    written before convergence was recorded count as not converged."""
    stopping = record.get("stopping")
    if stopping is None:
        return False
    return stopping["converged"]


def worse_than_chance(record):
    """True when the run's test NLL is above its chance level (zoo.chance:
    the training targets' frequencies, inputs ignored), so that it is no
    trained model whatever ended its training; False when below; None when
    the record has no chance level (records written before 2026-12-02 get
    one from scripts/add_chance_level.py)."""
    nll = nll_metric(record)
    chance = record.get("chance") or {}
    if nll is None or nll not in chance:
        return None
    return record["test"][nll] > chance[nll]


def chance_mark(record):
    """'**worse than chance** (...)' for such a run, else ''."""
    if not worse_than_chance(record):
        return ""
    nll = nll_metric(record)
    return (
        f"**worse than chance** (test {nll} {format_value(nll, record['test'][nll])} against "
        f"{format_value(nll, record['chance'][nll])} from the training frequencies)"
    )


def stopped_by(record, mark=True):
    """The 'stopped by' cell: the reason, flagged when it cut a run that was
    still improving or when the run ended worse than chance (`mark`), and the
    best and last epochs."""
    stopping = record.get("stopping") or {
        "reason": "epoch_limit",
        "best_epoch": None,
        "last_epoch": record.get("epochs_run"),
    }
    text = STOPPED_BY[stopping["reason"]]
    if mark and converged(record) is False:
        text = f"**{text}: not converged**"
    if stopping.get("best_epoch") is not None:
        text += f" (best epoch {stopping['best_epoch']} of {stopping['last_epoch']})"
    if mark and worse_than_chance(record):
        text += f"; {chance_mark(record)}"
    return text


def format_value(metric, value, spread=None):
    """A metric value as the tables print it: percentages for errors and
    accuracies, 3 decimals otherwise, 3 significant digits in scientific
    notation for values below 0.01 (a solved task's loss, e.g. an MSE of
    6.5e-5); `spread` (a standard deviation) is appended as `± s`."""
    if value is None:
        return "–"
    if metric in PERCENT:
        scale, unit, spec = 100, " %", ".2f"
    else:
        scale, unit, spec = 1, "", ".3f" if value == 0 or abs(value) >= 0.01 else ".2e"
    text = f"{scale * value:{spec}}"
    if spread is not None:
        text += f" ± {scale * spread:{spec}}"
    return text + unit


def _updates(record):
    updates = record.get("updates")
    if not updates:
        return "–"
    if updates.get("pretraining"):
        return f"{updates['total']:,} ({updates['pretraining']:,} pretraining)"
    return f"{updates['total']:,}"


def markdown_table(records):
    """One row per record: the headline metric beside the paper's, the test
    NLL, size, updates, why training stopped, wall time and hardware."""
    lines = [
        "| recipe | data | metric | ours | paper | test NLL | parameters | updates | stopped by | wall s | hardware |",
        "|---|---|---|---:|---:|---:|---:|---:|---|---:|---|",
    ]
    for r in records:
        metric = headline(r)
        paper = r["paper"]["value"] if r.get("paper") else None
        options = ", ".join(f"{k}={v}" for k, v in r["data_options"].items())
        lines.append(
            f"| {r['recipe']}{' (quick)' if r['quick'] else ''} | {r['dataset']}"
            f"{' (' + options + ')' if options else ''} | {metric} | "
            f"{format_value(metric, r['test'].get(metric))} | {format_value(metric, paper)} | "
            f"{nll_column(r)} | {r['parameters']:,} | {_updates(r)} | "
            f"{stopped_by(r)} | {r['wall_seconds']} | {r['hardware']} |"
        )
    return "\n".join(lines)


def comparison_table(records):
    """The `keras-seq compare` table: per model its parameters, updates
    (pretraining included), epochs, wall time, test NLL, headline metric and
    whether it converged."""
    metric = headline(records[0])
    nll = separate_nll(records[0])
    nll_header = f" test {nll} |" if nll else ""
    lines = [
        f"| model | parameters | updates | epochs | wall s |{nll_header} test {metric} | converged |",
        "|---|---:|---:|---:|---:|" + ("---:|" if nll else "") + "---:|---|",
    ]
    for r in records:
        mark = {True: "yes", False: "**no**", None: "not judged"}[converged(r)]
        mark += f": {stopped_by(r, mark=False)}"
        if worse_than_chance(r):
            mark += f"; {chance_mark(r)}"
        lines.append(
            f"| {r['recipe']}{' (quick)' if r['quick'] else ''} | {r['parameters']:,} | {_updates(r)} | "
            f"{r['epochs_run'] if r['epochs_run'] is not None else '–'} | {r['wall_seconds']} | "
            + (f"{format_value(nll, r['test'].get(nll))} | " if nll else "")
            + f"{format_value(metric, r['test'].get(metric))} | {mark} |"
        )
    return "\n".join(lines)


def loss_diverged(record):
    """Whether the run's training loss became NaN or infinite, which ended it
    (zoo.callbacks); not the same as `worse_than_chance`."""
    return (record.get("stopping") or {}).get("reason") == "diverged"


def comparison_summary(records):
    """What a comparison does and does not show, in a few sentences: no
    winner is named unless every run converged."""
    metric = headline(records[0])
    nll = nll_metric(records[0])
    cut = [r["recipe"] for r in records if converged(r) is False and not loss_diverged(r)]
    blew_up = [r["recipe"] for r in records if loss_diverged(r)]
    worse = [r["recipe"] for r in records if worse_than_chance(r)]
    seeds = sorted({r["seed"] for r in records})
    if cut or worse or blew_up:
        reasons = []
        if blew_up:
            reasons.append(
                f"Diverged: {', '.join(blew_up)} (its training loss became NaN or infinite, which "
                "ended the run; the best validation check's weights are tested)."
            )
        if cut:
            reasons.append(
                f"Not converged: {', '.join(cut)} (stopped by an epoch limit or time budget while "
                "still improving on validation)."
            )
        if worse:
            reasons.append(
                f"Worse than chance: {', '.join(worse)} (test {nll} above that of predicting the "
                "training frequencies whatever the input: it learnt less than those counts)."
            )
        return (
            " ".join(reasons)
            + " These numbers do not say which model is better"
            + ("; rerun without --epochs / --max-seconds so that early stopping ends every run." if cut else ".")
        )

    def best(key):
        higher = key in HIGHER_IS_BETTER
        ranked = sorted(records, key=lambda r: r["test"][key], reverse=higher)
        return ranked[0], ranked[1]

    first, second = best(metric)
    text = (
        f"Every run converged (early stopping on validation). Best test {metric}: {first['recipe']} "
        f"{format_value(metric, first['test'][metric])} vs {second['recipe']} "
        f"{format_value(metric, second['test'][metric])}"
    )
    if nll:
        low, _ = sorted(records, key=lambda r: r["test"][nll])[:2]
        text += f"; lowest test {nll}: {low['recipe']} {format_value(nll, low['test'][nll])}"
    sizes = {r["parameters"] for r in records}
    text += (
        f". One seed ({', '.join(map(str, seeds))}) per model"
        + (
            ""
            if len(sizes) == 1
            else "; the models differ in size (see parameters; --match-parameters "
            "sizes the baselines to the first model)"
        )
        + ": a difference smaller than the spread between seeds is not a ranking."
    )
    return text


def pyplot():
    """matplotlib.pyplot on the file-only Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def learning_curve(record, path):
    """Training and validation curves: the headline metric on its own panel,
    the NLL (or, without one, the loss) on another, validation points at
    the epochs they were measured (every `check_every` epochs), the
    selected epoch marked."""
    plt = pyplot()
    metric = headline(record)
    nll = nll_metric(record) or "loss"
    history = record["history"]
    train_epochs = list(range(1, len(history.get("loss", [])) + 1))
    validation_epochs = record.get("validation_epochs")
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    for key, values in history.items():
        validated = key.startswith("val_")
        name = key[len("val_") :] if validated else key
        axis = top if name.endswith(metric) else bottom if name.endswith(nll) else None
        if axis is None:
            continue
        epochs = train_epochs if not validated else (validation_epochs or train_epochs)[: len(values)]
        style = dict(marker="o", markersize=3) if validated else {}
        scale = 100 if axis is top and metric in PERCENT else 1
        axis.plot(
            epochs, [scale * v for v in values], label=("validation " if validated else "training ") + name, **style
        )
    chance = (record.get("chance") or {}).get(nll)
    if chance is not None:
        bottom.axhline(chance, color="red", linestyle="--", linewidth=1, label="chance (training frequencies)")
    best = (record.get("stopping") or {}).get("best_epoch")
    for axis in (top, bottom):
        if best:
            axis.axvline(best, color="grey", linestyle=":", label=f"selected (epoch {best})")
        if axis.get_legend_handles_labels()[0]:
            axis.legend(fontsize="small")
        else:  # e.g. a 1-epoch run of a recipe that validates every 10 epochs
            axis.text(0.5, 0.5, "not measured in this run", ha="center", va="center", transform=axis.transAxes)
        axis.grid(alpha=0.3)
    top.set_ylabel(f"{metric} (%)" if metric in PERCENT else metric)
    units = {"frame_nll": "nats per frame", "bits_per_event": "bits per step"}
    bottom.set_ylabel(f"{nll} ({units[nll]})" if nll in units else nll)
    bottom.set_xlabel("epoch")
    mark = {True: "converged", False: "NOT converged", None: "convergence not judged"}[converged(record)]
    mark += ", WORSE THAN CHANCE" if worse_than_chance(record) else ""
    top.set_title(f"{record['recipe']}: {stopped_by(record, mark=False)}, {mark}", fontsize="medium")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def piano_roll(true_roll, predicted_probs, path, length=None):
    """The true next frames beside the predicted note probabilities of one
    sequence, cropped to its `length` real frames, with a colour bar."""
    plt = pyplot()
    steps = len(true_roll) if length is None else int(length)
    figure, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for axis, roll, title in (
        (axes[0], true_roll, "true next frames"),
        (axes[1], predicted_probs, "predicted p(note on)"),
    ):
        image = axis.imshow(
            roll[:steps].T, aspect="auto", origin="lower", cmap="gray_r", vmin=0, vmax=1, interpolation="nearest"
        )
        axis.set_title(title)
        axis.set_xlabel("frame")
    axes[0].set_ylabel("key (MIDI note - 21)")
    figure.colorbar(image, ax=list(axes), label="probability (true frames: 0 or 1)")
    figure.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(figure)


def roll_image(roll, path, lowest_midi=21, title="sampled piece"):
    """One piano roll (frames, keys) as a PNG, keys labelled by MIDI note."""
    plt = pyplot()
    figure, axis = plt.subplots(figsize=(10, 4))
    axis.imshow(
        roll.T,
        aspect="auto",
        origin="lower",
        cmap="gray_r",
        vmin=0,
        vmax=1,
        interpolation="nearest",
        extent=(0, len(roll), lowest_midi - 0.5, lowest_midi + roll.shape[1] - 0.5),
    )
    axis.set_title(title)
    axis.set_xlabel("frame")
    axis.set_ylabel("MIDI note")
    figure.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(figure)


def mean_and_spread(values):
    """Mean and sample standard deviation (None for one value)."""
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, None
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
