"""bench/ocr_cv_refit.py (the OCR cv note's refit row) trains the cv
recipe on all nine training folds, the validation fold included, for a
fixed number of epochs."""

import importlib

import pytest

import keras_seq.data as data
from keras_seq.zoo import recipes


def test_refit_recipe_reads_the_nine_training_folds_without_validation(shared_data_dir):
    script = importlib.import_module("bench.ocr_cv_refit")
    recipe = script.nine_fold_recipe(110, {"dropout": 0.5})
    original = recipes.get("ocr_cv_scrbm")
    assert (recipe.train_split, recipe.valid_split, recipe.epochs) == ("train", None, 110)
    assert recipe.model == {**original.model, "dropout": 0.5}
    assert original.valid_split == "valid" and original.model.get("dropout") != 0.5  # the registry is untouched
    options = recipe.data_options
    nine = data.load_arrays(recipe.dataset, "train", data_dir=shared_data_dir, **options)
    eight = data.load_arrays(recipe.dataset, original.train_split, data_dir=shared_data_dir, **options)
    held_out = data.load_arrays(recipe.dataset, original.valid_split, data_dir=shared_data_dir, **options)
    assert len(nine.inputs) == len(eight.inputs) + len(held_out.inputs)


def test_refit_reads_set_as_the_cli_does_and_names_a_malformed_pair(monkeypatch):
    script = importlib.import_module("bench.ocr_cv_refit")
    monkeypatch.setattr("sys.argv", ["ocr_cv_refit.py", "--epochs", "1", "--set", "dropout0"])
    with pytest.raises(ValueError, match="dropout0"):
        script.main()


def test_refit_names_an_existing_record_before_training(monkeypatch, tmp_path):
    script = importlib.import_module("bench.ocr_cv_refit")
    kept = tmp_path / "seed-0.json"
    kept.write_text("{}")
    monkeypatch.setattr("sys.argv", ["ocr_cv_refit.py", "--epochs", "1", "--record", str(kept)])
    with pytest.raises(FileExistsError, match="seed-0.json"):
        script.main()
    assert kept.read_text() == "{}"
