"""The `keras-seq` command line (also `python -m keras_seq.zoo`)."""

import argparse
import sys

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
    from keras_seq import distribute

    import keras

    several_workers = keras.backend.backend() == "tensorflow" and distribute.tf_config_workers() > 1
    if kind == "auto" and several_workers:  # checked before joining the cluster
        sys.exit("keras-seq train --strategy auto: TF_CONFIG names several workers, and Keras' Model.fit "
                 "cannot train under a multi-worker strategy (see keras_seq.distribute.training_strategy "
                 "for the custom tf.distribute loop that does).")
    strategy = distribute.training_strategy(kind)
    if strategy is not None:
        print(f"# strategy: {type(strategy).__name__}", file=sys.stderr)
    return strategy.scope() if hasattr(strategy, "scope") else contextlib.nullcontext()


def _train(args):
    from keras_seq.zoo import recipes
    from keras_seq.zoo import report
    from keras_seq.zoo import train

    scope = _strategy_scope(args.strategy)
    with scope:  # models are built inside train.run, hence under the strategy
        records = [train.run(recipes.get(name), **_train_options(args)) for name in args.recipes]
    table = report.markdown_table(records)
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table + "\n")


def _train_options(args):
    return dict(
        data_dir=args.data_dir, epochs=args.epochs, quick=args.quick, output=args.output, seed=args.seed,
        verbose=1 if args.verbose else 2, max_seconds=args.max_seconds,
        jit_compile=JIT_COMPILE[args.jit_compile], steps_per_execution=args.steps_per_execution,
        fixed_shapes=args.fixed_shapes,
    )


def _compare(args):
    from keras_seq.zoo import compare
    from keras_seq.zoo import report

    with _strategy_scope(args.strategy):
        records = compare.run(args.recipes, match_parameters=args.match_parameters, **_train_options(args))
    text = report.comparison_table(records) + "\n\n" + report.comparison_summary(records)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")


def _evaluate(args):
    import json
    import os

    from keras_seq.zoo import recipes
    from keras_seq.zoo import train

    recipe = recipes.get(args.recipe)
    if recipe.builder == "ngram_model":
        from keras_seq.zoo import train_ngram

        sys.exit("keras-seq evaluate: " + train_ngram.NO_SAVED_MODEL.format(name=recipe.name))
    path = args.model or os.path.join(args.output, f"{args.recipe}.keras")
    scores = train.evaluate(recipe, path, args.data_dir, args.quick, args.split)
    print(json.dumps({"recipe": args.recipe, "model": path, "split": args.split, **scores}, indent=2))


def _quickstart(args):
    from keras_seq.zoo import quickstart

    quickstart.run(args)


def _results(args):
    from keras_seq.zoo import results

    results.run(args, args.command_line)


def _select(args):
    from keras_seq.zoo import selection

    selection.main(args)


def _tune(args):
    from keras_seq.tuning import cli as tuning_cli

    tuning_cli.run(args)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="keras-seq", description="keras-seq model zoo")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("datasets", help="list the datasets of keras_seq.data").set_defaults(run=_datasets)
    commands.add_parser("list", help="list the recipes").set_defaults(run=_list)
    for command, text in (("train", "train and evaluate recipes"), ("compare", "train several recipes, one table")):
        sub = commands.add_parser(command, help=text)
        sub.add_argument("recipes", nargs="+")
        sub.add_argument("--epochs", type=int, default=None,
                         help="at most this many epochs (default: the recipe's limit; a run it cuts "
                              "while still improving is marked not converged)")
        sub.add_argument("--quick", action="store_true", help="tiny data and model, one epoch (CPU check)")
        sub.add_argument("--data-dir", default=None)
        sub.add_argument("--output", default="runs", help="folder for .keras, JSON and PNG files")
        sub.add_argument("--markdown", default=None, help="also write the table to this file")
        sub.add_argument("--seed", type=int, default=0)
        sub.add_argument("--max-seconds", type=float, default=None,
                         help="stop training at the first step past this many seconds")
        sub.add_argument("--verbose", action="store_true", help="Keras progress bar per step")
        sub.add_argument("--strategy", default=None, choices=["auto", "default", "mirrored"],
                         help="train under keras_seq.distribute.training_strategy(KIND): TPU, "
                              "multi-worker, several GPUs (default: no strategy)")
        sub.add_argument("--jit-compile", default="auto", choices=sorted(JIT_COMPILE),
                         help="XLA (torch.compile on torch); auto: Keras' choice, XLA on accelerators")
        sub.add_argument("--steps-per-execution", type=int, default=1,
                         help="batches per compiled call (tens on a TPU)")
        sub.add_argument("--fixed-shapes", action="store_true",
                         help="pad each split to its longest sequence and drop the last partial "
                              "training batch: one XLA compilation (TPUs)")
        if command == "compare":
            sub.add_argument("--match-parameters", action="store_true",
                             help="size each recipe after the first to the first model's parameter count")
        sub.set_defaults(run=_compare if command == "compare" else _train)
    evaluate = commands.add_parser("evaluate", help="evaluate a trained recipe's saved model")
    evaluate.add_argument("recipe")
    evaluate.add_argument("--model", default=None, help="a .keras file (default: <output>/<recipe>.keras)")
    evaluate.add_argument("--output", default="runs")
    evaluate.add_argument("--data-dir", default=None)
    evaluate.add_argument("--split", default="test")
    evaluate.add_argument("--quick", action="store_true")
    evaluate.set_defaults(run=_evaluate)
    results = commands.add_parser("results", help="measure every CPU-feasible recipe into RESULTS.md")
    from keras_seq.zoo import results as results_module

    results_module.add_arguments(results)
    results.set_defaults(run=_results)
    select = commands.add_parser("select", help="choose a recipe's grid point (size, regularisation) on validation")
    from keras_seq.zoo import selection

    selection.add_arguments(select)
    select.set_defaults(run=_select)
    quick = commands.add_parser("quickstart", help="SCRBM vs LSTM on a download-free labelling task")
    from keras_seq.zoo import quickstart

    quickstart.add_arguments(quick)
    quick.set_defaults(run=_quickstart)
    tune = commands.add_parser("tune", help="resumable KerasTuner search over a recipe (needs keras-tuner)")
    from keras_seq.tuning import cli as tuning_cli

    tuning_cli.add_arguments(tune)
    tune.set_defaults(run=_tune)
    args = parser.parse_args(argv)
    args.command_line = "keras-seq " + " ".join(sys.argv[1:] if argv is None else argv)
    args.run(args)


if __name__ == "__main__":
    sys.exit(main())
