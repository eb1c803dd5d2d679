"""Runs a resumable KerasTuner search over a zoo recipe and reports it.

The search state is KerasTuner's own (`<directory>/<project>/oracle.json`,
`trial_*/trial.json`): re-running the same command with the same directory
resumes it (a trial that was running when the search was killed runs again,
completed trials are kept), and a larger `max_trials` extends it. After the
search, `<directory>/<project>/` also holds `best.keras` (the best trial's
predictor), `best.json`, `trials.csv`, `trials.md` and `score_vs_<hp>.png`.
"""

import csv
import json
import math
import os

import keras_tuner as kt

from keras_seq.layers import validation
from keras_seq.tuning import hypermodels

TUNERS = ("random", "bayesian", "hyperband", "grid")


def project_name(hypermodel, tuner):
    return f"{hypermodel.recipe.name}-{hypermodel.space.name}-{tuner}{'-quick' if hypermodel.quick else ''}"


def make_tuner(
    hypermodel,
    tuner="random",
    max_trials=10,
    directory="runs/tuning",
    project_name_=None,
    overwrite=False,
    seed=0,
    distribution_strategy=None,
    max_epochs=None,
    **kwargs,
):
    """A KerasTuner tuner over `hypermodel` whose objective is its
    predictor's validation score. `overwrite=False` (default) reloads the
    search saved under `directory/project` if there is one."""
    if tuner not in TUNERS:
        raise ValueError(f"Unknown tuner {tuner!r}; known: {', '.join(TUNERS)}.")
    validation.positive_int("max_trials", max_trials)
    common = dict(
        hypermodel=hypermodel,
        objective=hypermodel.objective,
        directory=directory,
        project_name=project_name_ or project_name(hypermodel, tuner),
        overwrite=overwrite,
        seed=seed,
        distribution_strategy=distribution_strategy,
        **kwargs,
    )
    if tuner == "hyperband":
        result = kt.Hyperband(max_epochs=max_epochs or hypermodel.epochs, **common)
        result.oracle.max_trials = max_trials  # Hyperband has no max_trials of its own
        return result
    cls = {"random": kt.RandomSearch, "bayesian": kt.BayesianOptimization, "grid": kt.GridSearch}[tuner]
    return cls(max_trials=max_trials, **common)


def completed_trials(tuner):
    return [t for t in tuner.oracle.trials.values() if t.status == "COMPLETED"]


def search(
    recipe,
    space="paper",
    tuner="random",
    max_trials=10,
    directory="runs/tuning",
    overwrite=False,
    quick=False,
    epochs=None,
    data_dir=None,
    seed=0,
    distribution_strategy=None,
    overrides=None,
    verbose=0,
    write=True,
):
    """Builds the hypermodel and tuner, searches (resuming any saved search)
    and writes the report. Returns a summary dict."""
    hypermodel = hypermodels.hypermodel_for(
        recipe,
        space,
        data_dir=data_dir,
        quick=quick,
        epochs=epochs,
        seed=seed,
        verbose=verbose,
        **(overrides or {}),
    )
    project_dir = os.path.join(directory, project_name(hypermodel, tuner))
    settings = search_settings(hypermodel, tuner, seed)
    if not overwrite:
        check_saved_search(project_dir, settings)
    search_tuner = make_tuner(
        hypermodel,
        tuner,
        max_trials=max_trials,
        directory=directory,
        overwrite=overwrite,
        seed=seed,
        distribution_strategy=distribution_strategy,
    )
    os.makedirs(search_tuner.project_dir, exist_ok=True)
    from keras_seq.zoo import runs

    runs.write_json(settings, os.path.join(search_tuner.project_dir, SETTINGS_FILE))
    before = len(completed_trials(search_tuner))
    search_tuner.search(verbose=verbose)
    summary = summarize(search_tuner, hypermodel)
    summary["trials_before"] = before
    if write:
        summary["files"] = write_report(search_tuner, hypermodel, summary)
    if summary["trials_completed"] == 0:
        raise ValueError(
            f"keras-seq tune: no trial of the search in {search_tuner.project_dir} succeeded "
            f"({summary['trials_failed']} failed); the first failure: {first_failure(search_tuner)}"
        )
    return summary


SETTINGS_FILE = "search.json"
SPACE_FILE = "search_space.json"  # what searches saved before SETTINGS_FILE


def search_settings(hypermodel, tuner, seed):
    """Everything that makes the trials of one search comparable: the
    recipe (its model, data and training arguments), the space, the epochs
    a trial trains, the tuner, the seed and the backend."""
    import dataclasses

    import keras

    recipe = hypermodel.recipe
    model = {k: list(v) if isinstance(v, tuple) else v for k, v in recipe.model.items()}
    return json.loads(
        json.dumps(
            {
                "recipe": recipe.name,
                "builder": recipe.builder,
                "model": model,
                "dataset": recipe.dataset,
                "data_options": recipe.data_options,
                "batch_size": recipe.batch_size,
                "anneal": None if recipe.anneal is None else dataclasses.asdict(recipe.anneal),
                "space": hypermodel.space.name,
                "grid": {k: list(v) for k, v in hypermodel.space.grid().items()},
                "epochs_per_trial": hypermodel.epochs,
                "quick": hypermodel.quick,
                "tuner": tuner,
                "seed": seed,
                "objective": hypermodel.objective.name,
                "backend": keras.backend.backend(),
            },
            default=str,
        )
    )


def first_failure(tuner):
    failed = sorted((t for t in tuner.oracle.trials.values() if t.status == "FAILED"), key=lambda t: t.trial_id)
    if not failed:
        return "no trial ran"
    lines = [line for line in (failed[0].message or "").strip().splitlines() if line.strip()]
    return f"trial {failed[0].trial_id}: {lines[-1].strip() if lines else 'no message'}"


def _changes(saved, now):
    keys = sorted(set(saved) | set(now))
    return "; ".join(
        f"{k}: {json.dumps(saved.get(k))} -> {json.dumps(now.get(k))}" for k in keys if saved.get(k) != now.get(k)
    )


def check_saved_search(project_dir, settings):
    """Before resuming the search saved in `project_dir`: its KerasTuner
    state must be whole JSON (else an error naming the file), and it must
    have been made with the same `settings` (`search_settings`): a resume
    with any of them changed is refused, naming what changed, since its
    trials would be ranked together with the saved ones."""
    oracle = os.path.join(project_dir, "oracle.json")
    for path in [oracle] + sorted(
        os.path.join(project_dir, d, "trial.json")
        for d in (os.listdir(project_dir) if os.path.isdir(project_dir) else ())
        if os.path.isfile(os.path.join(project_dir, d, "trial.json"))
    ):
        if not os.path.exists(path):
            continue
        try:
            with open(path) as f:
                json.load(f)
        except json.JSONDecodeError:
            raise ValueError(
                f"The saved search state {path} is damaged (not valid JSON); rerun with --overwrite to start "
                "the search afresh, or restore the file."
            ) from None
    saved_settings = os.path.join(project_dir, SETTINGS_FILE)
    saved_space = os.path.join(project_dir, SPACE_FILE)
    if os.path.exists(saved_settings):
        with open(saved_settings) as f:
            changes = _changes(json.load(f), settings)
    elif os.path.exists(saved_space):
        with open(saved_space) as f:
            changes = _changes({"grid": json.load(f)}, {"grid": settings["grid"]})
    else:
        return
    if changes:
        raise ValueError(
            f"The search in {project_dir} was made with other settings ({changes}); its trials "
            "would be ranked with this one's. Start a new search with --overwrite (which deletes "
            "the saved one) or another --directory."
        )


def _score(trial, objective):
    if not trial.metrics.exists(objective.name):
        return None
    value = trial.metrics.get_best_value(objective.name)
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def trial_rows(tuner, hypermodel):
    """One dict per trial, in trial order: id, status, hyperparameters,
    score (the objective) and the other returned metrics."""
    objective = hypermodel.objective
    rows = []
    for trial_id in sorted(tuner.oracle.trials):
        trial = tuner.oracle.trials[trial_id]
        row = {"trial": trial_id, "status": trial.status}
        row.update(trial.hyperparameters.values)
        row["score"] = _score(trial, objective)
        for name in sorted(trial.metrics.metrics):
            if name != objective.name:
                row[name] = trial.metrics.get_last_value(name)
        rows.append(row)
    return rows


def summarize(tuner, hypermodel):
    best = tuner.oracle.get_best_trials(1)
    best = best[0] if best else None
    return {
        "recipe": hypermodel.recipe.name,
        "family": hypermodel.family,
        "space": hypermodel.space.name,
        "space_source": hypermodel.space.source,
        "grid": {k: list(v) for k, v in hypermodel.space.grid().items()},
        "objective": {"name": hypermodel.objective.name, "direction": hypermodel.objective.direction},
        "quick": hypermodel.quick,
        "epochs_per_trial": hypermodel.epochs,
        "trials_completed": len(completed_trials(tuner)),
        "trials_failed": sum(t.status == "FAILED" for t in tuner.oracle.trials.values()),
        "best_trial": None if best is None else best.trial_id,
        "best_score": None if best is None else _score(best, hypermodel.objective),
        "best_hyperparameters": None if best is None else dict(best.hyperparameters.values),
        "project_dir": tuner.project_dir,
    }


def _format(value):
    if isinstance(value, float):
        return f"{value:.6g}"
    return "" if value is None else str(value)


def write_report(tuner, hypermodel, summary):
    """best.keras, best.json, trials.csv, trials.md, score_vs_<main>.png."""
    folder = tuner.project_dir
    rows = trial_rows(tuner, hypermodel)
    columns = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    files = {}
    path = os.path.join(folder, "trials.csv")
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    files["csv"] = path
    path = os.path.join(folder, "trials.md")
    with open(path, "w") as f:
        f.write(markdown_table(rows, columns, summary) + "\n")
    files["markdown"] = path
    if summary["best_trial"] is not None:
        path = os.path.join(folder, "best.keras")
        try:
            tuner.load_model(tuner.oracle.trials[summary["best_trial"]])
            hypermodel.predictor.save(path)
            files["model"] = path
        except (OSError, FileNotFoundError, ValueError) as error:  # no checkpoint (e.g. a NaN score)
            summary["model_error"] = str(error)
        path = os.path.join(folder, f"score_vs_{hypermodel.space.main}.png")
        plot_scores(rows, hypermodel, path)
        files["plot"] = path
    path = os.path.join(folder, "best.json")
    with open(path, "w") as f:
        json.dump({**summary, "files": files}, f, indent=2, default=str)
    files["json"] = path
    return files


def markdown_table(rows, columns, summary):
    objective = summary["objective"]
    lines = [
        f"Search of `{summary['recipe']}` over the `{summary['space']}` space ({summary['space_source']}); "
        f"score: {objective['name']} ({objective['direction']}), best trial {summary['best_trial']}.",
        "",
        "| " + " | ".join(columns) + " |",
        "|" + "|".join("---" for _ in columns) + "|",
    ]
    for row in rows:
        best = " **" if row["trial"] == summary["best_trial"] else ""
        lines.append("| " + " | ".join(_format(row.get(c)) + (best if c == "score" else "") for c in columns) + " |")
    return "\n".join(lines)


def plot_scores(rows, hypermodel, path):
    """Score versus the space's main hyperparameter, one point per trial."""
    from keras_seq.zoo.report import pyplot

    plt = pyplot()
    main = hypermodel.space.main
    points = [(row.get(main), row["score"]) for row in rows if row["score"] is not None]
    order = list(hypermodel.space.grid()[main])
    numeric = all(isinstance(v, (int, float)) for v in order)
    figure, axis = plt.subplots(figsize=(6, 4))
    if numeric:
        axis.scatter([p[0] for p in points], [p[1] for p in points])
        if order and min(order) > 0 and max(order) / min(order) > 20:
            axis.set_xscale("log")
    else:
        order += [p[0] for p in points if p[0] not in order]
        axis.scatter([order.index(p[0]) for p in points], [p[1] for p in points])
        axis.set_xticks(range(len(order)), [str(v) for v in order], rotation=30)
    axis.set_xlabel(main)
    axis.set_ylabel(hypermodel.objective.name)
    axis.set_title(f"{hypermodel.recipe.name}: {len(points)} trials ({hypermodel.space.name})")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
