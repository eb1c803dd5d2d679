"""How much the held-out validation fold costs the OCR cv SCRBM
(records/ocr_cv_scrbm/NOTE.md's refit row).

    python -m bench.ocr_cv_refit --epochs 110 --set dropout=0.0 --data-dir ../shared/data

The `ocr_cv_scrbm` recipe holds fold 1 out of the cv protocol's nine
training folds so that early stopping has a validation split, and trains on
the other eight (`train_minus_valid`). This refits the recipe on all nine
folds (`train`), for the number of epochs that early stopping chose there
and without validation, the usual refit once the epoch count is known, then
scores it on the test fold with Algorithm 1 (the predicting model). The run
writes into `<output>/ocr_cv_scrbm+nine_folds,.../seed-<seed>/` (resumable,
as every zoo run); its record's updates per epoch (196 batches of 32 words,
against 174 on the eight folds) and its `fixed_epochs` stopping show the
protocol.
"""

import argparse
import dataclasses
import json
import sys

from keras_seq.zoo import assignments
from keras_seq.zoo import recipes
from keras_seq.zoo import results
from keras_seq.zoo import train

RECIPE = "ocr_cv_scrbm"


def nine_fold_recipe(epochs, model_arguments):
    """The recipe trained on the nine training folds for `epochs`, no validation."""
    recipe = recipes.get(RECIPE)
    return dataclasses.replace(
        recipe, train_split="train", valid_split=None, epochs=epochs, model={**recipe.model, **model_arguments}
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, required=True, help="epochs to train (early stopping's choice)")
    parser.add_argument(
        "--set", nargs="*", default=[], metavar="ARG=VALUE", help="model arguments (the selected point)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--output", default="runs")
    parser.add_argument(
        "--record",
        default=None,
        metavar="PATH",
        help="also keep the record, with this command and the date, at PATH (a new file), e.g. "
        "records/ocr_cv_scrbm/nine_folds_<epochs>_epochs/seed-<seed>.json",
    )
    args = parser.parse_args()
    if args.record:
        results.check_new_record_path(args.record)
    arguments = assignments.parse(args.set, "--set")
    recipe = nine_fold_recipe(args.epochs, arguments)
    run_name = ",".join([f"{RECIPE}+nine_folds"] + [f"{k}={v}" for k, v in sorted(arguments.items())])
    record = train.run(recipe, data_dir=args.data_dir, output=args.output, seed=args.seed, run_name=run_name)
    if args.record:
        results.keep_record(record, args.record, " ".join(["python -m bench.ocr_cv_refit", *sys.argv[1:]]))
    print(
        json.dumps(
            {"test": record["test"], "epochs_run": record["epochs_run"], "wall_seconds": record["wall_seconds"]},
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
