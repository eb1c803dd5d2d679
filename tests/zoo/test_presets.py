"""The zoo's presets: a fresh run exported as a preset reloads identically
and measures again what its record says; every built-in preset loads with
no data folder and measures again its metadata's test metrics; the preset
commands label, generate and score from the command line."""

import json
import os

import keras
import numpy as np
import pytest

from keras_seq import presets
from keras_seq import saving
from keras_seq.models import MelodyModel
from keras_seq.models import PianoRollModel
from keras_seq.models import SequenceTagger
from keras_seq.zoo import cli
from keras_seq.zoo import preset_cli
from keras_seq.zoo import presets as zoo_presets
from keras_seq.zoo import recipes
from keras_seq.zoo import train

METADATA_FIELDS = (
    "keras_seq_version",
    "keras_version",
    "recipe",
    "arguments",
    "dataset",
    "data_options",
    "splits",
    "seed",
    "test",
    "headline",
    "paper",
    "record",
    "command",
    "parameters",
    "date",
    "files",
    "citation",
    "training",
    "stopping",
)


def _quick_preset(recipe_name, shared_data_dir, tmp_path):
    record = train.run(
        recipes.get(recipe_name), data_dir=shared_data_dir, quick=True, output=str(tmp_path / "runs"), verbose=0
    )
    run = record["run_directory"]
    output = str(tmp_path / "preset")
    metadata = zoo_presets.export(run, output, data_dir=shared_data_dir, allow_quick=True)
    return record, run, output, metadata


@pytest.mark.parametrize(
    "recipe_name, task_class",
    [
        ("jsb_chorales_lstm", PianoRollModel),
        ("wsj_pos_2000_lexical_scrbm", SequenceTagger),
    ],
)
def test_an_exported_run_reloads_identically_and_measures_its_record_again(
    recipe_name, task_class, shared_data_dir, tmp_path
):
    record, run, output, metadata = _quick_preset(recipe_name, shared_data_dir, tmp_path)
    assert all(field in metadata for field in METADATA_FIELDS)
    assert metadata["test"] == record["test"] and metadata["recipe"] == recipe_name
    loaded = presets.load(output)
    assert type(loaded) is task_class and loaded.preset["files"] == metadata["files"]
    model = saving.load_model(os.path.join(run, "model.keras"))
    for mine, theirs in zip(model.get_weights(), loaded.backbone.get_weights()):
        np.testing.assert_array_equal(mine, theirs)
    recipe = recipes.get(recipe_name)
    x, _, _ = next(
        iter(train.predictor_inputs(recipe, train.recipe_dataset(recipe, "test", shared_data_dir, quick=True)))
    )
    np.testing.assert_allclose(
        loaded.predict_steps(np.asarray(x)), keras.ops.convert_to_numpy(model(np.asarray(x))), atol=1e-6
    )
    again = zoo_presets.evaluate(output, shared_data_dir)
    for key, value in record["test"].items():
        assert again[key] == pytest.approx(value, abs=1e-4), key
    card = open(os.path.join(output, "README.md")).read()
    assert "## Metrics (test split)" in card and "## Citation" in card and "## Intended use and limits" in card


def test_export_refuses_a_quick_run_and_an_unfinished_one(shared_data_dir, tmp_path):
    record = train.run(
        recipes.get("jsb_chorales_lstm"), data_dir=shared_data_dir, quick=True, output=str(tmp_path / "runs"), verbose=0
    )
    with pytest.raises(ValueError, match="is a --quick run"):
        zoo_presets.export(record["run_directory"], str(tmp_path / "p"), data_dir=shared_data_dir)
    os.remove(os.path.join(record["run_directory"], "record.json"))
    with pytest.raises(FileNotFoundError, match="no record.json; export a finished run"):
        zoo_presets.export(record["run_directory"], str(tmp_path / "p"), data_dir=shared_data_dir)


@pytest.mark.parametrize("name", presets.builtin_names())
def test_a_builtin_preset_loads_without_data_and_measures_its_metadata_again(name, shared_data_dir, monkeypatch):
    monkeypatch.delenv("KERAS_SEQ_DATA_DIR", raising=False)
    model = presets.load(name)  # nothing but the package's files
    meta = model.preset
    assert all(field in meta for field in METADATA_FIELDS)
    assert meta["stopping"]["converged"] and meta["stopping"]["reason"] == "early_stopping"
    assert not meta["quick"] and name in zoo_presets.BUILTIN
    assert os.path.exists(meta["record"]) or os.path.exists(os.path.join(_root(), meta["record"]))
    again = zoo_presets.evaluate(name, shared_data_dir)
    for key, value in meta["test"].items():
        assert again[key] == pytest.approx(value, abs=1e-4), key


def _root():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_builtin_presets_stay_small_and_are_listed_with_their_metrics(capsys):
    rows = presets.list_presets()
    assert [r["name"] for r in rows] == presets.builtin_names()
    assert sum(r["size_bytes"] for r in rows) < 30e6
    cli.main(["presets"])
    table = capsys.readouterr().out
    for row in rows:
        assert f"| {row['name']} | {row['task_class']} |" in table


def test_label_prints_each_word_with_its_tag(capsys):
    cli.main(["label", "wsj_pos_2000_lexical_scrbm", "The market fell sharply ."])
    out = capsys.readouterr().out.split()
    assert [w.rsplit("/", 1)[0] for w in out] == ["The", "market", "fell", "sharply", "."]
    assert out[0] == "The/DT" and out[-1] == "./."


def test_label_reads_files_and_names_bad_input(tmp_path, capsys):
    path = tmp_path / "sentences.txt"
    path.write_text("The market fell .\n\nPrices rose .\n")
    cli.main(["label", "wsj_pos_2000_lexical_scrbm", "--file", str(path), str(path)])
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 4 and lines[0].startswith("The/DT market/")
    with pytest.raises(ValueError, match="give sentences to label"):
        cli.main(["label", "wsj_pos_2000_lexical_scrbm"])
    with pytest.raises(ValueError, match="unknown preset"):
        cli.main(["label", "wsj_pos_scrbm", "a b"])


def test_generate_writes_a_midi_file_that_music21_reads(shared_data_dir, tmp_path, capsys):
    music21 = pytest.importorskip("music21")
    _, _, output, _ = _quick_preset("jsb_chorales_lstm", shared_data_dir, tmp_path)
    midi = str(tmp_path / "chorale.mid")
    cli.main(["generate", output, "--output", midi, "--frames", "16", "--seed", "0", "--temperature", "0.5"])
    assert "wrote" in capsys.readouterr().out
    score = music21.converter.parse(midi)
    assert len(score.flatten().notes) > 0
    cli.main(["score", output, midi])
    scores = json.loads(capsys.readouterr().out)
    assert 0 <= scores["frame_accuracy"] <= 1 and scores["frame_nll"] > 0
    with pytest.raises(ValueError, match="--output PATH.mid"):
        cli.main(["generate", output])
    with pytest.raises(ValueError, match="not a tagger"):
        cli.main(["label", output, "a b"])


def test_a_melody_preset_labels_generates_and_scores_from_the_command_line(shared_data_dir, tmp_path, capsys):
    music21 = pytest.importorskip("music21")
    _, _, output, _ = _quick_preset("kinderlieder_scrbm", shared_data_dir, tmp_path)
    assert type(presets.load(output)) is MelodyModel
    cli.main(["label", output, "60 62 64", "67,65"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert [[pair.split("->")[0] for pair in line.split()] for line in lines] == [["60", "62", "64"], ["67", "65"]]
    assert all(21 <= int(pair.split("->")[1]) <= 108 for line in lines for pair in line.split())
    tune = str(tmp_path / "tune.mid")
    cli.main(["generate", output, "--output", tune, "--frames", "12", "--seed", "0"])
    assert "13 notes" in capsys.readouterr().out
    assert len(music21.converter.parse(tune).flatten().notes) == 13
    cli.main(["score", output, tune])
    scores = json.loads(capsys.readouterr().out)
    assert scores["notes"] == 12 and scores["bits_per_note"] > 0 and 0 <= scores["next_pitch_error"] <= 1
    cli.main(["label", output, "--file", tune])
    assert len(capsys.readouterr().out.split()) == 13
    with pytest.raises(ValueError, match="MIDI pitch numbers separated by spaces"):
        cli.main(["label", output, "C D E"])


def test_every_builtin_preset_has_its_recipe():
    for recipe_name, use in zoo_presets.BUILTIN.values():
        assert recipes.get(recipe_name).name == recipe_name and use
    assert set(presets.builtin_names()) <= set(zoo_presets.BUILTIN)
    assert preset_cli.COMMANDS


@pytest.mark.parametrize(
    "recipe_name, task_class",
    [
        ("wsj_pos_2000_lexical_scrbm", SequenceTagger),
        ("jsb_chorales_lmn_b_pretrained", PianoRollModel),
        ("kinderlieder_scrbm", MelodyModel),
    ],
)
def test_the_zoo_builds_the_class_a_preset_loads_into(recipe_name, task_class, shared_data_dir):
    recipe = recipes.selected(recipe_name)
    task = zoo_presets.build_task(recipe, shared_data_dir, quick=True)
    assert type(task) is task_class and task.preprocessor == zoo_presets.preprocessor(recipe, shared_data_dir)
    if task_class is SequenceTagger:
        tags = task.label([["The", "market", "fell", "."]])
        assert len(tags[0]) == 4 and set(tags[0]) <= set(task.preprocessor.class_names)
    elif task_class is MelodyModel:
        assert len(task.generate([60, 62], notes=4, seed=0)) == 6
    else:
        roll = task.generate(frames=4, seed=0)
        assert roll.shape == (5, 88) and set(np.unique(roll)) <= {0, 1}
