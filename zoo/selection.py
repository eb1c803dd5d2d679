"""`keras-seq select`: a recipe's grid (`Recipe.grid`) searched on
validation, each point trained until early stopping, as a careful
practitioner tunes a baseline before comparing with it.

    keras-seq select jsb_chorales_lstm --data-dir ../shared/data
    keras-seq select jsb_chorales_lstm --only units=50,100,250 --data-dir ../shared/data

Every point writes its record to `records/<recipe>/grid/<point>.json` (a
point with a record is not trained again), and the best point on the
recipe's validation metric goes to `records/<recipe>/selected.json`, which
`keras-seq results` then trains with its seeds. `--only` restricts the grid
(points a CPU cannot afford); the points left unsearched are recorded with
the choice. A search can run in pieces: the points earlier calls trained
with the same seed are candidates too, and so is the recipe's own run of
that seed (`records/<recipe>/seed-<seed>.json` from `keras-seq results`)
when a point builds the same model.
"""

import itertools
import os

from keras_seq.zoo import assignments
from keras_seq.zoo import recipes
from keras_seq.zoo import results


def grid_arguments(grid):
    """The arguments a grid sets: a key `"a,b"` ties `a` and `b`, its values
    being `(a, b)` pairs (e.g. the LMN paper's functional/memory sizes)."""
    return sorted(name for key in grid for name in key.split(","))


def grid_points(grid, only=None):
    """The points of `grid` ({argument: values}, or {"a,b": (a, b) pairs})
    as dicts, in grid order; `only` ({argument: values}) keeps the points
    whose values it lists."""
    only = only or {}
    unknown = sorted(set(only) - set(grid_arguments(grid)))
    if unknown:
        raise ValueError(
            f"--only names arguments outside the grid: {', '.join(unknown)}; "
            f"the grid has {', '.join(grid_arguments(grid)) or 'none'}."
        )
    keys = sorted(grid)
    points = []
    for values in itertools.product(*(grid[key] for key in keys)):
        point = {}
        for key, value in zip(keys, values):
            names = key.split(",")
            point.update(zip(names, value) if len(names) > 1 else [(key, value)])
        points.append(point)
    return [p for p in points if all(p[k] in values for k, values in only.items())]


def best_point(recipe, records):
    """The point whose record has the best validation score (the monitored
    metric at the selected epoch); runs that did not converge are
    candidates only if none did."""
    scored = [r for r in records if r["stopping"].get("best_value") is not None]
    if not scored:
        raise ValueError(f"{recipe.name}: no grid run has a validation score.")
    converged = [r for r in scored if r["stopping"]["converged"]] or scored
    sign = 1 if recipe.monitor_mode == "min" else -1
    return min(converged, key=lambda r: sign * r["stopping"]["best_value"])


def recipe_run_at(records_dir, recipe, point, seed, quick=False, epochs=None):
    """The record `keras-seq results` wrote for the recipe's own arguments
    with this seed, when `point` builds that same model (the builder's
    defaults filled in) under the same epoch limit: the search need not
    train it again. None otherwise."""
    path = results.record_path(records_dir, recipe.name, seed, quick)
    if not os.path.exists(path):
        return None
    record = results.load_record(path)
    if record.get("selected_point") or record["seed"] != seed or bool(record.get("quick")) != quick:
        return None
    if record["stopping"]["epoch_limit"] != (epochs or (1 if quick else recipe.epochs)):
        return None
    return None if results.arguments_differing_from(record, recipe, point) else dict(record)


def run(
    name,
    data_dir=None,
    records_dir=results.RECORDS,
    only=None,
    seed=0,
    quick=False,
    epochs=None,
    verbose=0,
    output=None,
):
    """Trains the grid points of recipe `name` that have no record and
    writes the choice; returns `(selected record, all point records)`.
    With `output`, each point's run keeps a run directory and per-epoch
    checkpoints there (zoo.runs): a killed search resumes."""
    from keras_seq.zoo import train

    recipe = recipes.get(name)
    if not recipe.grid:
        raise ValueError(f"Recipe {name!r} has no grid to select from (Recipe.grid is empty).")
    if recipe.valid_split is None:
        raise ValueError(f"Recipe {name!r} has no validation split: its protocol gives no data to select on.")
    points = grid_points(recipe.grid, only)
    if not points:
        raise ValueError(f"--only leaves no point of the grid {recipe.grid} of {name!r}.")
    point_records = []
    for point in points:
        path = results.grid_record_path(records_dir, name, point, quick)
        if os.path.exists(path):
            point_records.append(results.load_record(path))
            continue
        record = recipe_run_at(records_dir, recipe, point, seed, quick, epochs)
        if record is None:
            print(f"[select] {name} {results.point_name(point)}", flush=True)
            record = train.run(
                results.with_point(recipe, point),
                data_dir=data_dir,
                quick=quick,
                seed=seed,
                epochs=epochs,
                verbose=verbose,
                output=output,
                run_name=results.run_name(name, point),
            )
        record["grid_point"] = point
        record["run_directory"] = results.portable_run_directory(
            record.get("run_directory"), results.checkout_root(records_dir)
        )
        results.write_record(record, path)
        point_records.append(record)
    # Points an earlier, differently restricted search trained with this seed
    # are candidates too: a search may be run in pieces.
    for point in grid_points(recipe.grid):
        path = results.grid_record_path(records_dir, name, point, quick)
        if point not in points and os.path.exists(path):
            record = results.load_record(path)
            if record["seed"] == seed:
                point_records.append(record)
    best = best_point(recipe, point_records)
    searched = [r["grid_point"] for r in point_records]
    dropped = [results.point_name(p) for p in grid_points(recipe.grid) if p not in searched]
    choice = {
        "recipe": name,
        "point": best["grid_point"],
        "monitor": recipe.monitor,
        "mode": recipe.monitor_mode,
        "quick": quick,
        "seed": seed,
        "scores": {results.point_name(r["grid_point"]): r["stopping"].get("best_value") for r in point_records},
        "converged": {results.point_name(r["grid_point"]): r["stopping"]["converged"] for r in point_records},
        "dropped": dropped,
    }
    results.write_record(choice, results.selection_path(records_dir, name, quick))
    return best, point_records, choice


def add_arguments(parser):
    parser.add_argument("recipe", help="a recipe with a grid (keras-seq list)")
    parser.add_argument(
        "--only",
        nargs="*",
        default=None,
        metavar="ARG=V1,V2",
        help="restrict the grid to these values (recorded as dropped points)",
    )
    parser.add_argument("--data-dir", default=None, help="the benchmark data folder")
    parser.add_argument("--records", default=results.RECORDS, help="folder of the run records")
    parser.add_argument("--seed", type=int, default=0, help="seed of every grid run")
    parser.add_argument("--epochs", type=int, default=None, help="epoch limit (default: the recipe's)")
    parser.add_argument("--quick", action="store_true", help="tiny data and models (a check)")
    parser.add_argument(
        "--output",
        default=None,
        help="run directories and per-epoch checkpoints, so that a killed search resumes "
        "(default: runs/ beside --records)",
    )


def main(args):
    recipe = recipes.get(args.recipe)
    only = assignments.parse(args.only, "--only", several=True)
    best, point_records, choice = run(
        args.recipe,
        args.data_dir,
        args.records,
        only,
        args.seed,
        args.quick,
        args.epochs,
        output=args.output or results.default_output(args.records),
    )
    print(f"| point | validation {recipe.monitor} | converged |\n|---|---:|---|")
    for record in point_records:
        key = results.point_name(record["grid_point"])
        print(f"| {key} | {choice['scores'][key]} | {choice['converged'][key]} |")
    print(
        f"\nselected: {results.point_name(best['grid_point'])}"
        + (f" (grid restricted; not run: {', '.join(choice['dropped'])})" if choice["dropped"] else "")
    )
    stale = results.stale_records(args.records, args.recipe, args.quick)
    if stale:
        print(
            f"{', '.join(stale)}: trained at other model arguments; `keras-seq results --only {args.recipe} "
            "--set-aside LABEL ...` moves them to records/<recipe>/LABEL/ and trains those seeds at this point."
        )
