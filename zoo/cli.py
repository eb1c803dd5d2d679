"""The `keras-seq` command line (also `python -m keras_seq`): the zoo's
commands, and those installed packages add through the entry points of
group `keras_seq.commands` (the KerasTuner search of `keras_seq.tuning`,
which is built on the zoo and so is not imported by it)."""

import argparse
import os
import sys

PLUGIN_GROUP = "keras_seq.commands"
JIT_COMPILE = {"auto": "auto", "on": True, "off": False}  # --jit-compile -> Model.jit_compile


def _datasets(args):
    import keras_seq.data as data

    print("| name | task | splits | source |")
    print("|---|---|---|---|")
    for name in data.names():
        info = data.info(name)
        splits = "/".join(f"{k} {v}" if v is not None else k for k, v in info.splits.items())
        print(f"| {name} | {info.task} | {splits} | {info.source} |")


def _list(args):
    from keras_seq.zoo import recipes

    print("| recipe | dataset | model | paper |")
    print("|---|---|---|---|")
    for name in sorted(recipes.RECIPES):
        r = recipes.RECIPES[name]
        paper = f"{r.paper.metric} {r.paper.value:g}" if r.paper else ""
        print(f"| {name} | {r.dataset} | {r.model} | {paper} |")


def _strategy_scope(kind):
    """The context to train under for `--strategy kind`: the scope of a
    TensorFlow strategy; nothing to enter on JAX (the DataParallel
    distribution, if any, is set globally) or torch; unchanged behaviour
    when `--strategy` is not given."""
    import contextlib

    if kind is None:
        return contextlib.nullcontext()
    import keras

    from keras_seq import distribute

    several_workers = keras.backend.backend() == "tensorflow" and distribute.tf_config_workers() > 1
    if kind == "auto" and several_workers:  # checked before joining the cluster
        sys.exit(
            "keras-seq train --strategy auto: TF_CONFIG names several workers, and Keras' Model.fit "
            "cannot train under a multi-worker strategy (see keras_seq.distribute.training_strategy "
            "for the custom tf.distribute loop that does)."
        )
    strategy = distribute.training_strategy(kind)
    if strategy is not None:
        print(f"# strategy: {type(strategy).__name__}", file=sys.stderr)
    return strategy.scope() if hasattr(strategy, "scope") else contextlib.nullcontext()


def _with_settings(name, pairs, data_pairs=None, recipe_defaults=False):
    """Recipe `name` at its selected grid point (`recipes.selected`; its own
    arguments with `recipe_defaults`), with the model arguments of `--set
    ARG=VALUE ...` and the dataset options of `--set-data OPTION=VALUE ...`
    (zoo.assignments), renamed `name+ARG=VALUE,...` so that its runs and
    checkpoints keep apart from the recipe's own."""
    import dataclasses

    from keras_seq.data import registry as data_registry
    from keras_seq.zoo import assignments
    from keras_seq.zoo import recipes
    from keras_seq.zoo import registry
    from keras_seq.zoo import results

    recipe = recipes.get(name) if recipe_defaults else recipes.selected(name)
    if not pairs and not data_pairs:
        return recipe
    settings = assignments.parse(pairs, "--set")
    # A builder taking `**arguments` (the n-gram counts) reads the recipe's.
    allowed = set(recipe.model) | (registry.builder_arguments(recipe.builder) or set())
    for key, value in settings.items():
        if key not in allowed:
            raise ValueError(
                f"--set {key}: recipe {name!r} (builder {recipe.builder!r}) has no model argument "
                f"{key!r}; it takes {', '.join(sorted(allowed))}."
            )
        if key in recipe.model:
            _check_setting_kind(name, key, recipe.model[key], value)
    data_settings = assignments.parse(data_pairs, "--set-data")
    options = data_registry.options(recipe.dataset)
    for key in data_settings:
        if key not in options:
            raise ValueError(
                f"--set-data {key}: dataset {recipe.dataset!r} has no option {key!r}; "
                f"it takes {', '.join(options) or 'none'}."
            )
    return dataclasses.replace(
        recipe,
        name=results.run_name(name, {**settings, **data_settings}),
        model={**recipe.model, **settings},
        quick_model={k: v for k, v in recipe.quick_model.items() if k not in settings},
        data_options={**recipe.data_options, **data_settings},
    )


# The type of a recipe's model argument -> the types a `--set` value for it
# may have, and their name in the error.
_SETTING_KINDS = (
    (bool, (bool,), "True or False"),
    (int, (int,), "an integer"),
    (float, (int, float), "a number"),
    (str, (str,), "a string"),
    ((tuple, list), (tuple, list), "a tuple or list"),
)


def _check_setting_kind(name, key, default, value):
    """Refuses a `--set key=value` whose value is not of the kind of the
    recipe's own value `default` (a bool is no number); a kind not in
    _SETTING_KINDS (None) takes anything."""
    for kind, accepted, described in _SETTING_KINDS:
        if isinstance(default, kind):
            if not isinstance(value, accepted) or (isinstance(value, bool) and bool not in accepted):
                raise ValueError(
                    f"--set {key}: recipe {name!r} takes {described} (its value is {default!r}); got {value!r}."
                )
            return


def _train(args):
    from keras_seq.zoo import report
    from keras_seq.zoo import results
    from keras_seq.zoo import train

    if (args.set or args.set_data) and len(args.recipes) > 1:
        raise ValueError(f"{'--set' if args.set else '--set-data'} changes one recipe; name one.")
    if args.record:  # checked before hours of training, not after
        if len(args.recipes) > 1:
            raise ValueError("--record keeps one run's record; name one recipe.")
        results.check_new_record_path(args.record)
    scope = _strategy_scope(args.strategy)
    with scope:  # models are built inside train.run, hence under the strategy
        records = [
            train.run(_with_settings(name, args.set, args.set_data, args.recipe_defaults), **_train_options(args))
            for name in args.recipes
        ]
    if args.record:
        results.keep_record(records[0], args.record, args.command_line)
    table = report.markdown_table(records)
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table + "\n")


def _train_options(args):
    return dict(
        data_dir=args.data_dir,
        epochs=args.epochs,
        quick=args.quick,
        output=args.output,
        seed=args.seed,
        verbose=1 if args.verbose else 2,
        max_seconds=args.max_seconds,
        jit_compile=JIT_COMPILE[args.jit_compile],
        steps_per_execution=args.steps_per_execution,
        fixed_shapes=args.fixed_shapes,
        restart=args.restart,
    )


def _compare(args):
    from keras_seq.zoo import compare
    from keras_seq.zoo import report

    with _strategy_scope(args.strategy):
        records = compare.run(
            args.recipes,
            match_parameters=args.match_parameters,
            recipe_defaults=args.recipe_defaults,
            **_train_options(args),
        )
    text = report.comparison_table(records) + "\n\n" + report.comparison_summary(records)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")


def _evaluate(args):
    import json

    if args.preset is not None:
        if args.recipe or args.model:
            raise ValueError("--preset evaluates a preset: give no recipe and no --model beside it.")
        from keras_seq.zoo import presets

        scores = presets.evaluate(args.preset, args.data_dir, args.split)
        print(json.dumps({"preset": args.preset, "split": args.split, **scores}, indent=2))
        return
    if args.recipe is None:
        raise ValueError("name a recipe (or --preset NAME)")
    import keras_seq.data as data
    from keras_seq.zoo import recipes
    from keras_seq.zoo import train

    recipe = recipes.get(args.recipe)
    splits = data.info(recipe.dataset).splits
    if args.split not in splits:
        raise ValueError(f"unknown split {args.split!r} of {recipe.dataset}; it has {', '.join(splits)}.")
    from keras_seq.zoo import runs

    train.check_saves_keras_model(recipe)
    if args.teacher_forced:
        train.check_teacher_forcing(recipe)

    path = args.model
    if path is None:
        finished = runs.finished_run(args.output, args.recipe, args.seed, args.quick)
        if finished is None:
            raise FileNotFoundError(
                f"no finished run of {args.recipe} (seed {args.seed}) under {args.output}/; "
                f"train it with `keras-seq train {args.recipe}` or pass --model."
            )
        path = os.path.join(finished, "model.keras")
    scores = train.evaluate(recipe, path, args.data_dir, args.quick, args.split, args.teacher_forced)
    scoring = {"scoring": "teacher-forced"} if args.teacher_forced else {}
    print(json.dumps({"recipe": args.recipe, "model": path, "split": args.split, **scoring, **scores}, indent=2))


def _quickstart(args):
    from keras_seq.zoo import quickstart

    quickstart.run(args)


def _results(args):
    from keras_seq.zoo import results

    results.run(args, args.command_line)


def _select(args):
    from keras_seq.zoo import selection

    selection.main(args)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (no usage dump), exit 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


class _Help(argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's default."""


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def positive_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text}")
    return value


def recipe_name(text):
    """A known recipe name; an unknown one is refused with the closest names."""
    import difflib

    from keras_seq.zoo import recipes

    if text in recipes.RECIPES:
        return text
    close = difflib.get_close_matches(text, recipes.RECIPES, n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(close)}?" if close else "; `keras-seq list` shows them all"
    raise argparse.ArgumentTypeError(f"unknown recipe {text!r}{hint}")


def _parser():
    parser = _Parser(prog="keras-seq", description="keras-seq model zoo", formatter_class=_Help)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def command(name, help):
        return commands.add_parser(name, help=help, description=help, formatter_class=_Help)

    command("datasets", "list the datasets of keras_seq.data").set_defaults(run=_datasets)
    command("list", "list the recipes").set_defaults(run=_list)
    for name, text in (
        ("train", "train and evaluate recipes"),
        ("compare", "train several recipes on one dataset under one stopping rule, one table"),
    ):
        sub = command(name, text)
        sub.add_argument("recipes", nargs="+", type=recipe_name, help="recipe names (keras-seq list)")
        sub.add_argument(
            "--epochs",
            type=positive_int,
            default=None,
            help="at most this many epochs (None: the recipe's limit); a run it cuts "
            "while still improving is marked not converged",
        )
        sub.add_argument("--quick", action="store_true", help="tiny data and model, one epoch (CPU check)")
        sub.add_argument(
            "--data-dir",
            default=None,
            help="the benchmark data folder (None: $KERAS_SEQ_DATA_DIR, then "
            "~/.keras/datasets/keras_seq, downloading what is missing)",
        )
        sub.add_argument(
            "--output",
            default="runs",
            help="each run writes model.keras, record.json and PNGs into <output>/<recipe>/seed-<seed>/ "
            "(a rerun of a finished run goes to seed-<seed>-2/; a killed run resumes)",
        )
        sub.add_argument(
            "--restart", action="store_true", help="start a killed run over instead of resuming it from its checkpoint"
        )
        sub.add_argument(
            "--recipe-defaults",
            action="store_true",
            help="train each recipe's own arguments, not the grid point chosen on validation "
            "(`keras-seq select`) that its RESULTS row and preset were trained at",
        )
        sub.add_argument("--markdown", default=None, help="also write the table to this file")
        sub.add_argument("--seed", type=int, default=0, help="seed of weights, shuffling and dropout")
        sub.add_argument(
            "--max-seconds",
            type=positive_float,
            default=None,
            help="stop training at the first step past this many seconds",
        )
        sub.add_argument("--verbose", action="store_true", help="Keras progress bar per step")
        sub.add_argument(
            "--strategy",
            default=None,
            choices=["auto", "default", "mirrored"],
            help="train under keras_seq.distribute.training_strategy(KIND): TPU, "
            "multi-worker, several GPUs (None: no strategy)",
        )
        sub.add_argument(
            "--jit-compile",
            default="auto",
            choices=sorted(JIT_COMPILE),
            help="XLA (torch.compile on torch); auto: Keras' choice, XLA on accelerators",
        )
        sub.add_argument(
            "--steps-per-execution", type=positive_int, default=1, help="batches per compiled call (tens on a TPU)"
        )
        sub.add_argument(
            "--fixed-shapes",
            action="store_true",
            help="pad each split to its longest sequence and drop the last partial "
            "training batch: one XLA compilation (TPUs)",
        )
        if name == "train":
            sub.add_argument(
                "--set",
                nargs="+",
                default=None,
                metavar="ARG=VALUE",
                help="change model arguments of the recipe (VALUE: a Python literal), e.g. "
                "--set units=250 dropout=0.5; the run is named RECIPE+ARG=VALUE,...",
            )
            sub.add_argument(
                "--set-data",
                nargs="+",
                default=None,
                metavar="OPTION=VALUE",
                help="change options of the recipe's dataset (VALUE: a Python literal), e.g. "
                "--set-data fold=3 (the OCR cross-validation's test fold); the run is "
                "named RECIPE+OPTION=VALUE,...",
            )
            sub.add_argument(
                "--record",
                default=None,
                metavar="PATH",
                help="also keep the run's record, with this command line and today's date, "
                "at PATH (e.g. records/RECIPE/LABEL/seed-0.json, a new file), for "
                "RESULTS.md's notes and variants",
            )
        if name == "compare":
            sub.add_argument(
                "--match-parameters",
                action="store_true",
                help="size each recipe after the first to the first model's parameter count",
            )
        sub.set_defaults(run=_compare if name == "compare" else _train)
    evaluate = command("evaluate", "evaluate a trained recipe's saved model, or a preset (--preset)")
    evaluate.add_argument("recipe", nargs="?", type=recipe_name, default=None, help="a recipe name (keras-seq list)")
    evaluate.add_argument(
        "--preset", default=None, help="measure this preset (name, directory or URL) again on --split of its data"
    )
    evaluate.add_argument(
        "--model",
        default=None,
        help="a .keras file (None: the newest finished run's, <output>/<recipe>/seed-<seed>*/model.keras)",
    )
    evaluate.add_argument("--output", default="runs", help="the folder `keras-seq train` wrote")
    evaluate.add_argument("--seed", type=int, default=0, help="the seed of the run to evaluate")
    evaluate.add_argument("--data-dir", default=None, help="the benchmark data folder")
    evaluate.add_argument("--split", default="test", help="a split of the recipe's dataset")
    evaluate.add_argument("--quick", action="store_true", help="the --quick subset of the split")
    evaluate.add_argument(
        "--teacher-forced",
        action="store_true",
        help="SCRBM recipes: score with the true previous labels (the trainer, eq. 12) "
        "instead of Algorithm 1's own predictions",
    )
    evaluate.set_defaults(run=_evaluate)
    # Commands whose module defines its own arguments (none of them imports Keras at import time).
    from keras_seq.zoo import preset_cli
    from keras_seq.zoo import quickstart
    from keras_seq.zoo import results
    from keras_seq.zoo import selection

    for name, module, text, run in (
        ("results", results, "train missing (recipe, seed) records and rebuild RESULTS.md from them", _results),
        ("select", selection, "choose a recipe's grid point (size, regularisation) on validation", _select),
        ("quickstart", quickstart, "SCRBM vs LSTM on a download-free labelling task", _quickstart),
    ):
        sub = command(name, text)
        module.add_arguments(sub)
        sub.set_defaults(run=run)
    for name, text, add_arguments, run in (*preset_cli.COMMANDS, *plugin_commands()):
        sub = command(name, text)
        add_arguments(sub)
        sub.set_defaults(run=run)
    return parser


def plugin_commands():
    """The commands other installed packages add (`keras_seq.tuning`'s `tune`):
    the entry points of group `keras_seq.commands`, each a list of
    `(name, help, add_arguments, run)`. The zoo's command line so depends on
    none of the floors built on the zoo."""
    from importlib.metadata import entry_points

    found = []
    for entry in sorted(entry_points(group=PLUGIN_GROUP), key=lambda e: e.name):
        found += list(entry.load())
    return found


def _import_backend_quietly():
    """Imports Keras and its backend with the process's stderr closed:
    TensorFlow's C++ start-up lines ignore TF_CPP_MIN_LOG_LEVEL in part. An
    import that fails is retried with stderr open, so its error shows."""
    if "keras" in sys.modules:
        return
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            try:
                import keras  # noqa: F401
            except Exception:
                pass
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    import keras  # noqa: F401,F811  (raises here, visibly, if it failed above)


# What a user can cause and fix (a bad value, a missing or damaged file): one
# line, exit 2. KERAS_SEQ_TRACEBACK=1 shows the traceback instead.
USER_ERRORS = (ValueError, FileExistsError, FileNotFoundError, NotADirectoryError, IsADirectoryError, PermissionError)


RESUMABLE = frozenset({"train", "compare", "results", "select", "tune"})  # they checkpoint every epoch


def main(argv=None):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # TensorFlow's C++ start-up lines
    parser = _parser()
    args = parser.parse_args(argv)
    args.command_line = "keras-seq " + " ".join(sys.argv[1:] if argv is None else argv)
    if args.command not in ("list",):
        _import_backend_quietly()
    try:
        args.run(args)
    except USER_ERRORS as error:
        if os.environ.get("KERAS_SEQ_TRACEBACK") or argv is not None:
            raise  # called from Python (tests, notebooks): keep the exception
        print(f"keras-seq {args.command}: error: {error}", file=sys.stderr)
        sys.exit(2)
    except BrokenPipeError:  # e.g. `keras-seq list | head`
        sys.stderr.close()
    except KeyboardInterrupt:
        if os.environ.get("KERAS_SEQ_TRACEBACK") or argv is not None:
            raise
        done = "trials" if args.command == "tune" else "epochs"
        kept = f" Finished {done} are kept: rerun the same command to resume." if args.command in RESUMABLE else ""
        print(f"\nkeras-seq {args.command}: interrupted.{kept}", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    sys.exit(main())
