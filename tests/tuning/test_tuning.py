"""KerasTuner search spaces and searches, on tiny data (the zoo's
--quick subset, 12 sequences) with one epoch per trial."""

import dataclasses
import json
import math
import os
import re
import subprocess
import sys

import keras
import pytest

kt = pytest.importorskip("keras_tuner", reason="keras-tuner is not installed (the `tune` extra)")

# KerasTuner's oracles, resumption and our CLI around them are the same Python on
# every backend; the backends themselves are exercised by the per-family searches.
ORCHESTRATION_ON_TENSORFLOW = pytest.mark.skipif(
    keras.backend.backend() != "tensorflow",
    reason="tuner orchestration (oracles, resume, CLI) is backend-independent: run in the TensorFlow pass; "
    "the per-family searches run on every backend",
)

from keras_seq.tuning import hypermodels  # noqa: E402
from keras_seq.tuning import spaces  # noqa: E402
from keras_seq.tuning import tuners  # noqa: E402
from keras_seq.zoo import recipes  # noqa: E402

# The zoo's TrellisNet recipes are MNIST (no validation split) and PTB (too
# big for a unit test): a JSB one for the search.
TRELLIS_RECIPE = recipes.Recipe(
    name="jsb_chorales_trellisnet",
    dataset="jsb_chorales",
    builder="trellisnet_model",
    model={},
    batch_size=16,
    monitor="val_frame_accuracy",
    monitor_mode="max",
)

FAMILIES = {
    # family: (recipe, space overrides)
    "lmn": ("jsb_chorales_lmn_b", {}),
    "rnn": ("jsb_chorales_lstm", {}),
    "scrbm": ("ocr_ms_scrbm", {}),
    # with deep supervision on: per-step weights reach the auxiliary loss too
    "trellisnet": (TRELLIS_RECIPE, {"aux_weight": spaces.Fixed(0.1)}),
}


@pytest.mark.filterwarnings("error::UserWarning")  # e.g. Keras skipping a checkpoint's optimizer state
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_two_trial_search_per_family(family, shared_data_dir, tmp_path):
    recipe, overrides = FAMILIES[family]
    summary = tuners.search(
        recipe,
        space="compact",
        tuner="random",
        max_trials=2,
        directory=str(tmp_path),
        quick=True,
        data_dir=shared_data_dir,
        overrides=overrides,
        write=family == "lmn",
    )
    assert summary["family"] == family
    assert summary["trials_before"] == 0 and summary["trials_completed"] == 2
    assert math.isfinite(summary["best_score"])
    assert summary["objective"]["name"].startswith("predictor_val_")
    if family == "lmn":
        files = summary["files"]
        for key in ("csv", "markdown", "model", "plot", "json"):
            assert os.path.getsize(files[key]) > 0, key
        table = open(files["markdown"]).read()
        assert "| trial | status | units_pair | l2 | learning_rate | score |" in table
        assert json.load(open(files["json"]))["best_hyperparameters"] == summary["best_hyperparameters"]
        model = keras.saving.load_model(files["model"])  # the predictor, input (batch, time, 88)
        assert model.input_shape[-1] == 88


def test_scrbm_is_scored_by_its_algorithm_1_predictor(shared_data_dir):
    hypermodel = hypermodels.hypermodel_for("ocr_ms_scrbm", "compact", quick=True, data_dir=shared_data_dir)
    hp = kt.HyperParameters()
    trainer = hypermodel.build(hp)
    assert hypermodel.predictor is not trainer and len(trainer.inputs) == 2 and len(hypermodel.predictor.inputs) == 1
    results = hypermodel.fit(hp, trainer)
    _, _, valid = hypermodel.datasets()
    expected = hypermodel.predictor.evaluate(valid, return_dict=True, verbose=0)["sequence_error"]
    assert results["predictor_val_sequence_error"] == pytest.approx(expected, abs=1e-6)


class Killed(BaseException):
    """Stands for the search process being killed (not caught by KerasTuner)."""


@ORCHESTRATION_ON_TENSORFLOW
def test_killed_search_resumes_without_redoing_finished_trials(shared_data_dir, tmp_path, monkeypatch):
    fits = []
    original_fit = hypermodels.RecipeHyperModel.fit

    def fit(self, hp, model, *args, **kwargs):
        fits.append(dict(hp.values))
        if len(fits) == 2:
            raise Killed()
        return original_fit(self, hp, model, *args, **kwargs)

    monkeypatch.setattr(hypermodels.RecipeHyperModel, "fit", fit)
    options = dict(
        space="compact",
        tuner="random",
        max_trials=2,
        directory=str(tmp_path),
        quick=True,
        data_dir=shared_data_dir,
        write=False,
    )
    with pytest.raises(Killed):
        tuners.search("jsb_chorales_gru", **options)
    project = tmp_path / "jsb_chorales_gru-compact-random-quick"
    first = json.load(open(project / "trial_0" / "trial.json"))
    assert first["status"] == "COMPLETED"

    summary = tuners.search("jsb_chorales_gru", **options)  # the same command again
    assert summary["trials_before"] == 1 and summary["trials_completed"] == 2
    assert len(fits) == 3 and fits[2] == fits[1]  # only the killed trial ran again
    assert sorted(p.name for p in project.glob("trial_*")) == ["trial_0", "trial_1"]
    assert json.load(open(project / "trial_0" / "trial.json")) == first  # untouched

    summary = tuners.search("jsb_chorales_gru", **options)  # nothing left to do
    assert len(fits) == 3 and summary["trials_completed"] == 2


def test_a_resume_with_other_settings_is_refused_and_a_damaged_state_named(tmp_path):
    project = tmp_path / "search"
    project.mkdir()
    settings = {"recipe": "r", "grid": {"units": [8, 16]}, "epochs_per_trial": 3, "backend": "jax"}
    tuners.check_saved_search(str(project), settings)  # nothing saved yet
    (project / tuners.SETTINGS_FILE).write_text(json.dumps(settings))
    tuners.check_saved_search(str(project), settings)  # the same settings: resumes
    for change, named in (
        ({"epochs_per_trial": 15}, "epochs_per_trial: 3 -> 15"),
        ({"grid": {"units": [32, 64]}}, 'grid: {"units": [8, 16]} -> {"units": [32, 64]}'),
        ({"backend": "torch"}, 'backend: "jax" -> "torch"'),
    ):
        with pytest.raises(ValueError, match=re.escape(named) + ".*--overwrite"):
            tuners.check_saved_search(str(project), {**settings, **change})
    (project / tuners.SETTINGS_FILE).unlink()  # a search saved before the settings were: its space
    (project / tuners.SPACE_FILE).write_text(json.dumps({"units": [8, 16]}))
    tuners.check_saved_search(str(project), settings)
    with pytest.raises(ValueError, match="other settings"):
        tuners.check_saved_search(str(project), {**settings, "grid": {"units": [8, 32]}})
    (project / "oracle.json").write_text('{"ongoing_trials": {')
    with pytest.raises(ValueError, match=r"oracle.json is damaged \(not valid JSON\); rerun with --overwrite"):
        tuners.check_saved_search(str(project), settings)


@ORCHESTRATION_ON_TENSORFLOW
def test_a_search_resumed_with_longer_trials_is_refused_not_mixed(shared_data_dir, tmp_path):
    options = dict(
        space="compact", tuner="random", directory=str(tmp_path), quick=True, data_dir=shared_data_dir, write=False
    )
    tuners.search("jsb_chorales_simple_rnn", max_trials=1, epochs=1, **options)
    project = tmp_path / "jsb_chorales_simple_rnn-compact-random-quick"
    saved = sorted(p.name for p in project.iterdir())
    with pytest.raises(ValueError, match=r"epochs_per_trial: 1 -> 2\).*--overwrite"):
        tuners.search("jsb_chorales_simple_rnn", max_trials=2, epochs=2, **options)
    assert sorted(p.name for p in project.iterdir()) == saved  # no trial of the other length added
    summary = tuners.search("jsb_chorales_simple_rnn", max_trials=2, epochs=2, overwrite=True, **options)
    assert summary["trials_completed"] == 2 and summary["epochs_per_trial"] == 2


@ORCHESTRATION_ON_TENSORFLOW
def test_a_search_whose_every_trial_failed_exits_non_zero_naming_the_failure(shared_data_dir, tmp_path, monkeypatch):
    from keras_seq.zoo import cli

    def fit(self, hp, model, *args, **kwargs):
        raise ValueError("the data folder holds no jsb_chorales files")

    monkeypatch.setattr(hypermodels.RecipeHyperModel, "fit", fit)
    args = [
        "tune",
        "jsb_chorales_simple_rnn",
        "--space",
        "compact",
        "--max-trials",
        "2",
        "--quick",
        "--data-dir",
        shared_data_dir,
        "--directory",
        str(tmp_path),
    ]
    with pytest.raises(
        ValueError,
        match=r"no trial of the search in .* succeeded \(2 failed\); the first failure: "
        r"trial 0: ValueError: the data folder holds no jsb_chorales files",
    ):
        cli.main(args)
    with pytest.raises(SystemExit) as exit_code:  # as the installed command: one line, exit status 2
        monkeypatch.setattr(sys, "argv", ["keras-seq", *args, "--overwrite"])
        cli.main(None)
    assert exit_code.value.code == 2


@ORCHESTRATION_ON_TENSORFLOW
def test_hyperband_bayesian_and_grid_tuners_run(shared_data_dir, tmp_path):
    for tuner, epochs in (("hyperband", 2), ("bayesian", 1), ("grid", 1)):
        summary = tuners.search(
            "jsb_chorales_simple_rnn",
            space="compact",
            tuner=tuner,
            max_trials=2,
            directory=str(tmp_path),
            quick=True,
            epochs=epochs,
            data_dir=shared_data_dir,
            write=False,
        )
        assert summary["trials_completed"] == 2, tuner


def test_paper_grids_hold_exactly_the_published_points():
    lmn = spaces.search_space("lmn", "paper")
    assert lmn.name == "lmn_paper"
    assert lmn.grid()["units_pair"] == ("50x50", "50x100", "100x100", "100x250", "250x250", "250x500")
    assert [spaces.parse_units_pair(k) for k in lmn.grid()["units_pair"]] == [
        (50, 50),
        (50, 100),
        (100, 100),
        (100, 250),
        (250, 250),
        (250, 500),
    ]
    assert lmn.grid()["l2"] == (1e-4, 1e-5, 1e-6, 1e-7, 0.0)
    assert lmn.grid()["learning_rate"] == (1e-3,)
    assert lmn.size() == 30

    rnn = spaces.search_space("rnn", "lmn_paper")
    assert rnn.grid()["units"] == (50, 100, 250, 500, 750)
    assert rnn.grid()["l2"] == (1e-4, 1e-5, 1e-6, 1e-7, 0.0)

    scrbm = spaces.search_space("scrbm", "paper")
    assert set(scrbm.ranges) == {"units", "learning_rate", "check_every", "patience_checks"}
    assert scrbm.grid()["check_every"] == (10,) and scrbm.grid()["patience_checks"] == (5,)

    trellis = spaces.search_space("trellisnet", "paper")
    assert {
        "num_levels",
        "hidden_units",
        "dropout",
        "input_dropout",
        "output_dropout",
        "aux_weight",
        "dilations",
    } <= set(trellis.ranges)

    # KerasTuner sees the same points: one categorical hyperparameter per grid axis.
    hp = kt.HyperParameters()
    lmn.define(hp)
    assert list(hp._hps["units_pair"][0].values) == list(lmn.grid()["units_pair"])
    assert list(hp._hps["l2"][0].values) == [1e-4, 1e-5, 1e-6, 1e-7, 0.0]


def test_lmn_hypermodel_maps_unit_pairs_to_the_builder(shared_data_dir):
    hypermodel = hypermodels.hypermodel_for("jsb_chorales_lmn_a", "paper", data_dir=shared_data_dir)
    hp = kt.HyperParameters()
    hp.Choice("units_pair", ["100x250"])
    model = hypermodel.build(hp)
    lmn = model.layers[0]
    assert (lmn.units, lmn.memory_units) == (100, 250)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: spaces.search_space("rnn", "compact", units=spaces.Choice((-5, 8))), "integer >= 1"),
        (lambda: spaces.search_space("rnn", "compact", units=spaces.Int(64, 8)), "min_value 64 > max_value 8"),
        (lambda: spaces.search_space("rnn", "compact", units=spaces.Choice(())), "at least one value"),
        (lambda: spaces.search_space("rnn", "compact", l2=spaces.Float(-1.0, 0.1)), "'l2'"),
        (lambda: spaces.search_space("lmn", "compact", units_pair=spaces.Choice(("100y250",))), "FUNCTIONALxMEMORY"),
        (lambda: spaces.search_space("lmn", "compact", units_pair=spaces.Choice(("0x250",))), ">= 1"),
        (lambda: spaces.search_space("trellisnet", "compact", dropout=spaces.Choice((0.1, 1.0))), "[0.0, 1.0)"),
        (lambda: spaces.search_space("scrbm", "lmn_paper"), "No search space 'lmn_paper' for the scrbm family"),
        (lambda: spaces.search_space("rnn", "compact", units_pair=spaces.Choice(("8x8",))), "no hyperparameter"),
        (lambda: spaces.search_space("transformer", "paper"), "Unknown model family"),
        (lambda: spaces.parse_override("learning_rate=1e-2:1e-4"), None),
        (
            lambda: hypermodels.hypermodel_for(
                dataclasses.replace(recipes.get("ocr_ms_scrbm"), valid_split=None), "compact"
            ),
            "no validation split",
        ),
        (
            lambda: hypermodels.hypermodel_for(
                "jsb_chorales_lmn_b_pretrained",
                spaces.SearchSpace(
                    "with_dropout",
                    "lmn",
                    {"units_pair": spaces.Choice(("100x250",)), "dropout": spaces.Choice((0.5,))},
                    main="dropout",
                ),
            ),
            "tunes 'dropout', which the builder 'pretrained_lmn_model'",
        ),
        (lambda: hypermodels.LMNHyperModel("jsb_chorales_lstm", "compact"), "rnn family"),
        (
            lambda: tuners.make_tuner(hypermodels.hypermodel_for("jsb_chorales_lstm", "compact"), "annealing"),
            "Unknown tuner",
        ),
        (
            lambda: tuners.make_tuner(
                hypermodels.hypermodel_for("jsb_chorales_lstm", "compact"), max_trials=0, directory="/nonexistent"
            ),
            "`max_trials` must be an integer >= 1",
        ),
    ],
)
def test_bad_ranges_raise_a_clear_error_before_any_trial(call, message, tmp_path):
    with pytest.raises(ValueError, match=None if message is None else __import__("re").escape(message)):
        result = call()
        if message is None:  # a parsed override is checked when its space is made
            spaces.search_space("rnn", "compact", **{result[0]: result[1]})


def test_cli_tune_rejects_a_bad_range_before_searching(tmp_path):
    from keras_seq.zoo import cli

    with pytest.raises(ValueError, match="min_value 64 > max_value 8"):
        cli.main(
            ["tune", "jsb_chorales_lstm", "--space", "compact", "--set", "units=64:8", "--directory", str(tmp_path)]
        )
    assert not any(tmp_path.iterdir())


@ORCHESTRATION_ON_TENSORFLOW
def test_cli_tune_writes_the_report_and_resumes(shared_data_dir, tmp_path, capsys):
    from keras_seq.zoo import cli

    args = [
        "tune",
        "jsb_chorales_lmn_a",
        "--space",
        "compact",
        "--max-trials",
        "1",
        "--quick",
        "--data-dir",
        shared_data_dir,
        "--directory",
        str(tmp_path),
    ]
    cli.main(args)
    out = capsys.readouterr().out
    assert "| trial | status | units_pair |" in out and '"trials_completed": 1' in out
    cli.main(args[:5] + ["2"] + args[6:])  # extend the saved search to 2 trials
    out = capsys.readouterr().out
    assert '"trials_before": 1' in out and '"trials_completed": 2' in out


MIRRORED_SCRIPT = """
import os, sys
import tensorflow as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
from keras_seq.tuning import tuners
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
assert strategy.num_replicas_in_sync == 2
summary = tuners.search("jsb_chorales_lstm", space="compact", max_trials=1, directory=sys.argv[1],
                        quick=True, data_dir=sys.argv[2], distribution_strategy=strategy)
assert summary["trials_completed"] == 1, summary
print("MIRRORED OK", summary["best_score"])
"""


@pytest.mark.skipif(
    keras.backend.backend() != "tensorflow", reason="MirroredStrategy is a TensorFlow distribution strategy"
)
def test_search_under_mirrored_strategy_on_two_logical_cpus(shared_data_dir, tmp_path):
    env = {**os.environ, "KERAS_BACKEND": "tensorflow", "TF_CPP_MIN_LOG_LEVEL": "3"}
    result = subprocess.run(
        [sys.executable, "-c", MIRRORED_SCRIPT, str(tmp_path), shared_data_dir],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert result.returncode == 0 and "MIRRORED OK" in result.stdout, result.stdout[-3000:] + result.stderr[-3000:]
