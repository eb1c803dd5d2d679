"""The command line fails well: one line, exit 2, no traceback; --help and
list start without importing Keras."""

import os
import subprocess
import sys

import pytest


def _keras_seq(*args):
    env = dict(os.environ)
    env.pop("KERAS_SEQ_TRACEBACK", None)
    return subprocess.run(
        [sys.executable, "-m", "keras_seq.zoo.cli", *args], capture_output=True, text=True, env=env, timeout=300
    )


USER_ERRORS = [
    (["train", "jsb_chorales_lstm", "--epochs", "0"], "argument --epochs: expected a positive integer, got 0"),
    (["train", "jsb_chorales_lstm", "--epochs", "-1"], "argument --epochs: expected a positive integer, got -1"),
    (["train", "jsb_chorale_lstm"], "unknown recipe 'jsb_chorale_lstm'; did you mean jsb_chorales_lstm"),
    (["compare", "jsb_chorales_lstm", "ocr_ms_lstm", "--quick"], "one dataset; got jsb_chorales_lstm on jsb_chorales"),
    (
        ["evaluate", "jsb_chorales_lstm", "--split", "bogus"],
        "unknown split 'bogus' of jsb_chorales; it has train, valid, test",
    ),
    (["train", "jsb_chorales_lstm", "--max-seconds", "0"], "argument --max-seconds: expected a positive number"),
    (
        ["train", "ocr_ms_lstm", "--set", "unit=50"],
        "--set unit: recipe 'ocr_ms_lstm' (builder 'labelling_model') has no model argument 'unit'; it takes",
    ),
    (["train", "ocr_ms_lstm", "--set", "units"], "--set takes ARGUMENT=VALUE pairs; got 'units'"),
    (
        ["train", "conll2000_lstm", "--set", "units=abc"],
        "--set units: recipe 'conll2000_lstm' takes an integer (its value is 100); got 'abc'.",
    ),
    (
        ["train", "conll2000_lstm", "--set", "units=True"],
        "--set units: recipe 'conll2000_lstm' takes an integer (its value is 100); got True.",
    ),
    (
        ["train", "jsb_chorales_lmn_b", "--set", "memory_units=0.5"],
        "--set memory_units: recipe 'jsb_chorales_lmn_b' takes an integer (its value is 250); got 0.5.",
    ),
    (
        ["train", "jsb_chorales_lmn_b", "--recipe-defaults", "--set", "memory_units=0.5"],
        "--set memory_units: recipe 'jsb_chorales_lmn_b' takes an integer (its value is 100); got 0.5.",
    ),
    (
        ["train", "jsb_chorales_trellisnet", "--set", "dropout=high"],
        "--set dropout: recipe 'jsb_chorales_trellisnet' takes a number (its value is 0.",
    ),
    (
        ["train", "ptb_char_trellisnet", "--set", "stateful=1"],
        "--set stateful: recipe 'ptb_char_trellisnet' takes True or False (its value is True); got 1.",
    ),
    (
        ["train", "ocr_ms_conv", "--set", "widths=3"],
        "--set widths: recipe 'ocr_ms_conv' takes a tuple or list (its value is (3, 5)); got 3.",
    ),
    (
        ["train", "ocr_ms_lstm", "--set", "kind=3"],
        "--set kind: recipe 'ocr_ms_lstm' takes a string (its value is 'lstm'); got 3.",
    ),
    (["train", "ocr_ms_lstm", "ocr_ms_gru", "--set", "units=50"], "--set changes one recipe; name one"),
    (
        ["train", "ocr_cv_lstm", "--set-data", "folds=3"],
        "--set-data folds: dataset 'ocr_letters' has no option 'folds'; it takes fold, protocol",
    ),
    (
        ["train", "ptb_char_trellisnet", "--set-data", "fold=3"],
        "--set-data fold: dataset 'ptb_char' has no option 'fold'; it takes none",
    ),
    (["train", "ocr_cv_lstm", "ocr_cv_gru", "--set-data", "fold=3"], "--set-data changes one recipe; name one"),
    (["select", "ocr_ms_lstm", "--only", "dropout"], "--only takes ARGUMENT=V1,V2 pairs; got 'dropout'"),
    (["select", "ocr_ms_lstm", "--only", "units=50"], "--only names arguments outside the grid: units"),
    (["evaluate", "jsb_chorales_lstm", "--teacher-forced"], "jsb_chorales_lstm has no teacher-forcing trainer"),
]
# In a fresh process (what a user sees, backend start-up lines included): one
# error of the argument parser and one raised after the backend's import.
IN_A_FRESH_PROCESS = {0, 6}


def _assert_one_line_exit_2(returncode, stderr, message):
    assert returncode == 2, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], stderr
    assert "Traceback" not in stderr and lines[0].startswith("keras-seq")


@pytest.mark.parametrize("args, message", [USER_ERRORS[i] for i in sorted(IN_A_FRESH_PROCESS)])
def test_user_errors_are_one_line_and_exit_2_in_a_fresh_process(args, message):
    result = _keras_seq(*args)
    _assert_one_line_exit_2(result.returncode, result.stderr, message)


@pytest.mark.parametrize("args, message", [e for i, e in enumerate(USER_ERRORS) if i not in IN_A_FRESH_PROCESS])
def test_user_errors_are_one_line_and_exit_2(args, message, monkeypatch, capsys):
    from keras_seq.zoo import cli

    monkeypatch.setattr(sys, "argv", ["keras-seq", *args])  # as the console script calls it
    monkeypatch.delenv("KERAS_SEQ_TRACEBACK", raising=False)
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    _assert_one_line_exit_2(exit_.value.code, capsys.readouterr().err, message)


def test_help_and_list_do_not_import_keras():
    code = (
        "import sys\n"
        "from keras_seq.zoo import cli\n"
        "try:\n    cli.main(['--help'])\nexcept SystemExit:\n    pass\n"
        "cli.main(['list'])\n"
        "assert 'keras' not in sys.modules and 'tensorflow' not in sys.modules, 'imported a backend'\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "| jsb_chorales_lstm | jsb_chorales |" in result.stdout and "(default: runs)" not in result.stdout


def test_tune_comes_from_the_tuning_package_through_its_entry_point(capsys):
    """The zoo's command line imports nothing of keras_seq.tuning (built on
    the zoo): `tune` is the installed entry point of group keras_seq.commands."""
    from keras_seq.tuning import cli as tuning_cli
    from keras_seq.zoo import cli

    assert [c[0] for c in cli.plugin_commands()] == ["tune"]
    assert cli.plugin_commands()[0][3] is tuning_cli.run
    with pytest.raises(SystemExit):
        cli.main(["tune", "--help"])
    assert "--max-trials" in capsys.readouterr().out


def test_help_shows_defaults(capsys):
    from keras_seq.zoo import cli

    with pytest.raises(SystemExit):
        cli.main(["train", "--help"])
    out = capsys.readouterr().out
    assert "(default: runs)" in out and "(default: 1)" in out


def test_set_trains_the_recipe_with_changed_arguments_under_its_own_name(shared_data_dir, tmp_path, capsys):
    import json

    from keras_seq.zoo import cli

    cli.main(
        [
            "train",
            "ocr_ms_lstm",
            "--quick",
            "--set",
            "dropout=0.5",
            "l2=1e-4",
            "--data-dir",
            shared_data_dir,
            "--output",
            str(tmp_path),
        ]
    )
    assert "| ocr_ms_lstm+dropout=0.5,l2=0.0001 (quick) |" in capsys.readouterr().out
    record = json.load(open(tmp_path / "ocr_ms_lstm+dropout=0.5,l2=0.0001" / "seed-0-quick" / "record.json"))
    assert (record["model"]["dropout"], record["model"]["l2"]) == (0.5, 1e-4)
    assert not (tmp_path / "ocr_ms_lstm").exists()


def test_set_takes_an_integer_for_a_number_and_drops_the_quick_size_it_sets():
    from keras_seq.zoo import cli

    recipe = cli._with_settings("jsb_chorales_trellisnet", ["dropout=0", "hidden_units=12"])
    assert recipe.model["dropout"] == 0 and recipe.model["hidden_units"] == 12
    assert "hidden_units" not in recipe.quick_model and recipe.quick_model["output_units"] == 4


def test_set_wins_over_the_quick_model_sizes(shared_data_dir, tmp_path, capsys):
    import json

    from keras_seq.zoo import cli

    cli.main(
        [
            "train",
            "ocr_ms_lstm",
            "--quick",
            "--set",
            "units=5",
            "--data-dir",
            shared_data_dir,
            "--output",
            str(tmp_path),
        ]
    )
    assert "| ocr_ms_lstm+units=5 (quick) |" in capsys.readouterr().out
    record = json.load(open(tmp_path / "ocr_ms_lstm+units=5" / "seed-0-quick" / "record.json"))
    assert record["model"]["units"] == 5


def test_set_data_trains_on_the_changed_dataset_options_under_its_own_name(shared_data_dir, tmp_path, capsys):
    import json

    from keras_seq.zoo import cli

    cli.main(
        [
            "train",
            "ocr_cv_lstm",
            "--quick",
            "--set",
            "dropout=0.2",
            "--set-data",
            "fold=3",
            "--data-dir",
            shared_data_dir,
            "--output",
            str(tmp_path),
        ]
    )
    assert "| ocr_cv_lstm+dropout=0.2,fold=3 (quick) |" in capsys.readouterr().out
    record = json.load(open(tmp_path / "ocr_cv_lstm+dropout=0.2,fold=3" / "seed-0-quick" / "record.json"))
    assert record["data_options"] == {"protocol": "cv", "fold": 3} and record["model"]["dropout"] == 0.2
    with pytest.raises(ValueError, match="`fold` must be an integer in"):
        cli.main(
            [
                "train",
                "ocr_cv_lstm",
                "--quick",
                "--set-data",
                "fold=10",
                "--data-dir",
                shared_data_dir,
                "--output",
                str(tmp_path),
            ]
        )


def test_record_keeps_the_run_record_with_its_command_and_refuses_to_overwrite(shared_data_dir, tmp_path, monkeypatch):
    import datetime
    import json

    from keras_seq.zoo import cli

    monkeypatch.chdir(tmp_path)
    kept = tmp_path / "records" / "ocr_ms_lstm" / "dropout=0.5" / "seed-0.json"
    argv = [
        "train",
        "ocr_ms_lstm",
        "--quick",
        "--set",
        "dropout=0.5",
        "--data-dir",
        shared_data_dir,
        "--record",
        str(kept),
    ]
    cli.main(argv)
    record = json.load(open(kept))
    assert record["recipe"] == "ocr_ms_lstm+dropout=0.5" and record["model"]["dropout"] == 0.5
    assert record["command"].startswith("keras-seq train ocr_ms_lstm --quick --set dropout=0.5 --data-dir ")
    assert record["date"] == datetime.date.today().isoformat()
    assert record["run_directory"] == "runs/ocr_ms_lstm+dropout=0.5/seed-0-quick"  # relative: no machine's path
    before = kept.read_text()
    with pytest.raises(FileExistsError, match="seed-0.json"):
        cli.main(argv)
    assert kept.read_text() == before
    with pytest.raises(ValueError, match="one recipe"):
        cli.main(["train", "ocr_ms_lstm", "ocr_ms_conv", "--quick", "--record", str(tmp_path / "x.json")])
    with pytest.raises(ValueError, match="JSON"):
        cli.main(["train", "ocr_ms_lstm", "--quick", "--record", str(tmp_path / "seed-0.txt")])
    # A path no record can be written to fails before training, naming the path.
    (tmp_path / "a-file").write_text("")
    for unwritable in (tmp_path / "a-file" / "seed-0.json", "/proc/no-record/seed-0.json"):
        with pytest.raises(ValueError, match=f"--record {unwritable}: no record can be written there"):
            cli.main(["train", "ocr_ms_lstm", "--quick", "--data-dir", "/nonexistent", "--record", str(unwritable)])


def test_train_builds_the_selected_point_and_recipe_defaults_the_recipes_own(shared_data_dir, tmp_path):
    import json

    from keras_seq.zoo import cli
    from keras_seq.zoo import recipes

    point = recipes.selected_points()["ocr_ms_lstm"]
    assert point != {k: recipes.get("ocr_ms_lstm").model.get(k, 0.0) for k in point}  # the choice differs
    cli.main(["train", "ocr_ms_lstm", "--quick", "--data-dir", shared_data_dir, "--output", str(tmp_path)])
    record = json.load(open(tmp_path / "ocr_ms_lstm" / "seed-0-quick" / "record.json"))
    assert {k: record["model"][k] for k in point} == point
    cli.main(
        [
            "train",
            "ocr_ms_lstm",
            "--quick",
            "--recipe-defaults",
            "--data-dir",
            shared_data_dir,
            "--output",
            str(tmp_path),
        ]
    )
    record = json.load(open(tmp_path / "ocr_ms_lstm" / "seed-0-quick-2" / "record.json"))
    builder_defaults = {"dropout": 0.0, "l2": 0.0, "learning_rate": 1e-3, "units": 100}  # labelling_model's
    assert {k: record["model"].get(k, builder_defaults[k]) for k in point} == {k: builder_defaults[k] for k in point}


def test_the_packaged_selections_are_the_records_selections():
    import os

    from keras_seq.zoo import recipes
    from keras_seq.zoo import results

    records = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "records")
    assert recipes.selected_points() == results.selections(records), (
        "zoo/selected_points.json is out of date: `keras-seq results --rebuild` writes it from records/"
    )
    for name, point in recipes.selected_points().items():
        assert {k: recipes.selected(name).model[k] for k in point} == point
