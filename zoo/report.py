"""Reports of recipe results: a Markdown table beside the papers' numbers,
and PNG plots (learning curve; predicted vs true piano roll)."""

# Which test metric is a recipe's headline, by metric name; lower is better
# except for the accuracies.
HEADLINE = ("frame_accuracy", "accuracy", "sequence_error", "bits_per_event", "loss")


# The papers' metric for each kind of task (keras_seq.data DatasetInfo.task).
TASK_HEADLINE = {
    "next_frame": "frame_accuracy",
    "labelling": "sequence_error",
    "next_token": "bits_per_event",
    "classification": "accuracy",
    "regression": "loss",
}


def headline(record):
    """The metric a record's row shows: the paper's, else its task's."""
    if record.get("paper"):
        return record["paper"]["metric"]
    if record.get("headline") in record["test"]:
        return record["headline"]
    import keras_seq.data as data

    by_task = TASK_HEADLINE.get(data.info(record["dataset"]).task)
    if by_task in record["test"]:
        return by_task
    return next(m for m in HEADLINE if m in record["test"])


def _format(metric, value):
    if value is None:
        return "–"
    if metric in ("sequence_error", "frame_accuracy", "accuracy"):
        return f"{100 * value:.2f} %"
    return f"{value:.3f}"


def markdown_table(records):
    lines = [
        "| recipe | data | metric | ours | paper | parameters | epochs | wall s | hardware |",
        "|---|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in records:
        metric = headline(r)
        paper = r["paper"]["value"] if r.get("paper") else None
        options = ", ".join(f"{k}={v}" for k, v in r["data_options"].items())
        epochs = "–" if r["epochs_run"] is None else r["epochs_run"]  # None: not trained by epochs
        lines.append(
            f"| {r['recipe']}{' (quick)' if r['quick'] else ''} | {r['dataset']}"
            f"{' (' + options + ')' if options else ''} | {metric} | "
            f"{_format(metric, r['test'].get(metric))} | {_format(metric, paper)} | "
            f"{r['parameters']:,} | {epochs} | {r['wall_seconds']} | {r['hardware']} |"
        )
    return "\n".join(lines)


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def learning_curve(record, path):
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(6, 4))
    for key, values in record["history"].items():
        axis.plot(range(1, len(values) + 1), values, label=key)
    axis.set_xlabel("epoch")
    axis.set_title(record["recipe"])
    axis.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def piano_roll(true_roll, predicted_probs, path):
    plt = _pyplot()
    figure, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for axis, roll, title in ((axes[0], true_roll, "true next frames"), (axes[1], predicted_probs, "predicted p(note)")):
        axis.imshow(roll.T, aspect="auto", origin="lower", cmap="gray_r", vmin=0, vmax=1)
        axis.set_title(title)
        axis.set_xlabel("frame")
    axes[0].set_ylabel("key (MIDI - 21)")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
