"""Adds the chance level (zoo.chance) to run records written before runs
recorded it (2026-12-02): it depends on the data alone, so no training.

    python scripts/add_chance_level.py records --data-dir ../shared/data

Each record is rewritten in place (atomically) with a `chance` key; records
that have one, or whose recipe is not in the zoo, are left as they are.
"""

import argparse
import glob
import json
import os
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", help="folder of run records (searched recursively)")
    parser.add_argument("--data-dir", default=None, help="the benchmark data folder")
    args = parser.parse_args(argv)

    from keras_seq.zoo import recipes
    from keras_seq.zoo import runs
    from keras_seq.zoo import train

    levels = {}
    for path in sorted(glob.glob(os.path.join(args.records, "**", "*.json"), recursive=True)):
        record = json.load(open(path))
        if "chance" in record or "test" not in record:
            continue
        recipe = recipes.RECIPES.get(record["recipe"].split("+")[0])
        if recipe is None:
            print(f"{path}: recipe {record['recipe']!r} not in the zoo; left as it is", file=sys.stderr)
            continue
        key = (
            recipe.dataset,
            json.dumps(recipe.data_options, sort_keys=True),
            recipe.train_split,
            recipe.teacher_forcing,
            record.get("quick", False),
        )
        if key not in levels:
            levels[key] = train.chance_scores(recipe, args.data_dir, record.get("quick", False))
        record["chance"] = levels[key]
        runs.write_json(record, path)
        print(f"{path}: chance {levels[key]}")


if __name__ == "__main__":
    main()
