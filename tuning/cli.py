"""`keras-seq tune RECIPE ...`: a resumable KerasTuner search over a recipe."""

import json


def add_arguments(parser):
    parser.add_argument("recipe", help="a recipe of `keras-seq list`")
    parser.add_argument(
        "--space",
        default="paper",
        help="named search space: paper (the family's published grid), lmn_paper, "
        "scrbm_paper, trellisnet_paper, compact",
    )
    parser.add_argument(
        "--tuner",
        choices=("random", "bayesian", "hyperband", "grid"),
        default="random",
        help="random and grid search stop when a finite grid is exhausted",
    )
    parser.add_argument(
        "--max-trials",
        type=int,
        default=10,
        help="total trials of the search (completed ones of a resumed search count)",
    )
    parser.add_argument(
        "--directory", default="runs/tuning", help="search state and report; re-run with the same folder to resume"
    )
    parser.add_argument("--overwrite", action="store_true", help="start afresh instead of resuming")
    parser.add_argument("--epochs", type=int, default=None, help="epochs per trial (default: the recipe's)")
    parser.add_argument("--quick", action="store_true", help="tiny data (12 sequences), one epoch per trial")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUES",
        help="override a range: units=50,100 | units=8:64 | learning_rate=1e-4:1e-2 | l2=0",
    )
    parser.add_argument(
        "--mirrored",
        action="store_true",
        help="TensorFlow backend: train each trial under tf.distribute.MirroredStrategy",
    )
    parser.add_argument("--verbose", action="store_true", help="KerasTuner and Keras progress output")


def run(args):
    from keras_seq.tuning import spaces
    from keras_seq.tuning import tuners

    overrides = dict(spaces.parse_override(text) for text in args.set)
    strategy = None
    if args.mirrored:
        import keras

        if keras.backend.backend() != "tensorflow":
            raise ValueError("--mirrored needs KERAS_BACKEND=tensorflow.")
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
    summary = tuners.search(
        args.recipe,
        space=args.space,
        tuner=args.tuner,
        max_trials=args.max_trials,
        directory=args.directory,
        overwrite=args.overwrite,
        quick=args.quick,
        epochs=args.epochs,
        data_dir=args.data_dir,
        seed=args.seed,
        distribution_strategy=strategy,
        overrides=overrides,
        verbose=1 if args.verbose else 0,
    )
    print(open(summary["files"]["markdown"]).read())
    print(
        json.dumps(
            {
                k: summary[k]
                for k in (
                    "recipe",
                    "space",
                    "objective",
                    "trials_before",
                    "trials_completed",
                    "trials_failed",
                    "best_trial",
                    "best_score",
                    "best_hyperparameters",
                    "files",
                )
            },
            indent=2,
            default=str,
        )
    )
    return summary


# `keras-seq tune`, added to the zoo's command line through the entry point
# `keras_seq.commands: tune` (pyproject.toml).
COMMANDS = [("tune", "resumable KerasTuner search over a recipe (needs keras-tuner)", add_arguments, run)]
