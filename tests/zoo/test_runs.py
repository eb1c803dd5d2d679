"""Runs survive a crash: SIGKILL mid-epoch and during the save, then the same
command again, resumes from the last finished epoch; finished runs are never
overwritten; a damaged checkpoint is named."""

import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")

# The child process: the command line, with a test-side patch that kills the
# process at a chosen point (nothing of this is in the library).
CHILD = """
import os, signal, sys
from keras_seq.zoo import cli
from keras_seq.zoo import runs

# Three batches per epoch (12 quick sequences), so that the shuffle order matters.
import dataclasses
from keras_seq.zoo import recipes
recipes.RECIPES["jsb_chorales_lstm"] = dataclasses.replace(recipes.get("jsb_chorales_lstm"), batch_size=4)

kill = os.environ.get("KILL")
if kill in ("mid-epoch-3", "ctrl-c-mid-epoch-3"):
    finished = runs.RunCheckpoint.on_epoch_end

    def on_epoch_end(self, epoch, logs=None):
        finished(self, epoch, logs)
        self.kill_at_next_batch = epoch + 1 == 2

    def on_train_batch_end(self, batch, logs=None):
        if getattr(self, "kill_at_next_batch", False):
            if kill == "ctrl-c-mid-epoch-3":
                raise KeyboardInterrupt
            os.kill(os.getpid(), signal.SIGKILL)

    runs.RunCheckpoint.on_epoch_end = on_epoch_end
    runs.RunCheckpoint.on_train_batch_end = on_train_batch_end
elif kill == "saving-model":
    replace = runs.replace_atomically

    def replace_atomically(path, write):
        if path.endswith("model.keras"):
            folder, name = os.path.split(path)
            write(os.path.join(folder, ".model.tmp-killed.keras"))  # half-way: written, not renamed
            os.kill(os.getpid(), signal.SIGKILL)
        replace(path, write)

    runs.replace_atomically = replace_atomically
if os.environ.get("CHANGE_DEFAULT"):  # a later selection of the recipe's arguments
    key, value = os.environ["CHANGE_DEFAULT"].split("=")
    points = recipes.selected_points()
    points["jsb_chorales_lstm"][key] = float(value)
    recipes.selected_points = lambda: points
# No argv for Ctrl-C: as the installed command, which answers it in one line.
cli.main(None if kill == "ctrl-c-mid-epoch-3" else sys.argv[1:])
"""


def _train(tmp_path, data_dir, kill=None, *extra, change_default=None):
    args = [
        "train",
        "jsb_chorales_lstm",
        "--quick",
        "--epochs",
        "6",
        "--data-dir",
        data_dir,
        "--output",
        str(tmp_path / "runs"),
        *extra,
    ]
    env = dict(
        os.environ, **({"KILL": kill} if kill else {}), **({"CHANGE_DEFAULT": change_default} if change_default else {})
    )
    return subprocess.run([sys.executable, "-c", CHILD, *args], capture_output=True, text=True, env=env, timeout=600)


def _files(folder):
    return {
        name: open(os.path.join(folder, name), "rb").read()
        for name in sorted(os.listdir(folder))
        if os.path.isfile(os.path.join(folder, name))
    }


def test_a_killed_run_resumes_and_finished_runs_stay_intact(shared_data_dir, tmp_path):
    runs_dir = tmp_path / "runs" / "jsb_chorales_lstm"
    first = runs_dir / "seed-0-quick"
    # Killed in the middle of epoch 3: the checkpoint holds epoch 2, no record.
    killed = _train(tmp_path, shared_data_dir, "mid-epoch-3")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    state = json.load(open(first / "checkpoint" / "state.json"))
    assert state["epoch"] == 2 and not (first / "record.json").exists()

    resumed = _train(tmp_path, shared_data_dir)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming" in resumed.stdout and "after epoch 2" in resumed.stdout
    record = json.load(open(first / "record.json"))
    assert record["resumed_after_epoch"] == 2 and record["epochs_run"] == 6
    assert len(record["history"]["loss"]) == 6 and not (first / "checkpoint").exists()

    # The same six epochs without a crash (the same batches in each epoch,
    # restored optimizer state): the same model.
    straight = _train(tmp_path, shared_data_dir)
    assert straight.returncode == 0, straight.stderr
    second = runs_dir / "seed-0-quick-2"  # a finished run is never written again
    uninterrupted = json.load(open(second / "record.json"))
    assert uninterrupted["resumed_after_epoch"] is None
    for key, value in uninterrupted["test"].items():
        assert record["test"][key] == pytest.approx(value, rel=1e-4, abs=1e-6), key
    before = _files(first)

    # Killed while writing model.keras: the earlier runs are untouched, the
    # new one has no model or record yet, and the rerun finishes it without
    # training again.
    saving = _train(tmp_path, shared_data_dir, "saving-model")
    assert saving.returncode == -signal.SIGKILL, saving.stderr
    third = runs_dir / "seed-0-quick-3"
    assert not (third / "record.json").exists() and not (third / "model.keras").exists()
    assert _files(first) == before
    finished = _train(tmp_path, shared_data_dir)
    assert finished.returncode == 0, finished.stderr
    record3 = json.load(open(third / "record.json"))
    assert record3["resumed_after_epoch"] == 6 and record3["epochs_run"] == 6
    assert record3["test"] == pytest.approx(uninterrupted["test"], rel=1e-4, abs=1e-6)
    assert (third / "model.keras").stat().st_size > 0 and not (third / "checkpoint").exists()
    assert _files(first) == before


def test_ctrl_c_is_one_line_and_the_run_resumes(shared_data_dir, tmp_path):
    interrupted = _train(tmp_path, shared_data_dir, "ctrl-c-mid-epoch-3")
    assert interrupted.returncode == 130, interrupted.stderr
    assert "Traceback" not in interrupted.stderr
    assert interrupted.stderr.strip().splitlines()[-1] == (
        "keras-seq train: interrupted. Finished epochs are kept: rerun the same command to resume."
    )
    resumed = _train(tmp_path, shared_data_dir)
    assert resumed.returncode == 0, resumed.stderr
    record = json.load(open(tmp_path / "runs" / "jsb_chorales_lstm" / "seed-0-quick" / "record.json"))
    assert record["resumed_after_epoch"] == 2 and record["epochs_run"] == 6


def test_restart_starts_a_killed_run_over(shared_data_dir, tmp_path):
    killed = _train(tmp_path, shared_data_dir, "mid-epoch-3")
    assert killed.returncode == -signal.SIGKILL
    restarted = _train(tmp_path, shared_data_dir, None, "--restart")
    assert restarted.returncode == 0, restarted.stderr
    record = json.load(open(tmp_path / "runs" / "jsb_chorales_lstm" / "seed-0-quick" / "record.json"))
    assert record["resumed_after_epoch"] is None and record["epochs_run"] == 6


class _Remembers:
    """A stateful callback whose state has arrays (saved to an .npz)."""

    def __init__(self):
        self.state = {"best": 1.0, "weights": [np.arange(3.0)]}

    def get_state(self):
        return self.state

    def set_state(self, state):
        self.state = state


def _saved_checkpoint(folder):
    import keras

    from keras_seq.zoo import runs

    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile("adam", "mse")
    model.fit(
        np.ones((4, 2)),
        np.ones((4, 1)),
        epochs=2,
        verbose=0,
        callbacks=[runs.RunCheckpoint(str(folder), [_Remembers()])],
    )
    return model


def _truncate(path):
    path.write_bytes(path.read_bytes()[:100])


def _state(folder):
    return json.loads((folder / "state.json").read_text())


DAMAGE = {
    "not JSON": (lambda f: (f / "state.json").write_text('{"epoch": 3, "weig'), "state.json", "not JSON"),
    "a list": (lambda f: (f / "state.json").write_text("[]"), "state.json", "a JSON list, not an object"),
    "no weights": (
        lambda f: (f / "state.json").write_text(json.dumps({**_state(f), "weights": None})),
        "state.json",
        '"weights" is missing',
    ),
    "extra a list": (
        lambda f: (f / "state.json").write_text(json.dumps({**_state(f), "extra": []})),
        "state.json",
        '"extra" is not a JSON object',
    ),
    "weights file gone": (
        lambda f: (f / _state(f)["weights"]).unlink(),
        "state.json",
        "weights-final.weights.h5, is missing",
    ),
    "truncated weights": (lambda f: _truncate(f / _state(f)["weights"]), "weights-final.weights.h5", ""),
    "truncated arrays": (lambda f: _truncate(f / _state(f)["callback_weights"][0]), ".npz", ""),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_checkpoint_is_named(tmp_path, damage):
    import re

    from keras_seq.zoo import runs

    folder = tmp_path / "checkpoint"
    model = _saved_checkpoint(folder)
    restored = runs.RunCheckpoint(str(folder), [_Remembers()])
    assert restored.restore(model) == 2  # intact: resumes
    spoil, file, reason = DAMAGE[damage]
    spoil(folder)
    pattern = rf"checkpoint file .*{re.escape(file)} is damaged \(.*{re.escape(reason)}.*\); rerun with --restart"
    with pytest.raises(ValueError, match=pattern):
        runs.RunCheckpoint(str(folder), [_Remembers()]).restore(model)


def test_a_checkpoint_of_other_settings_is_refused_not_resumed(shared_data_dir, tmp_path):
    killed = _train(tmp_path, shared_data_dir, "mid-epoch-3")
    assert killed.returncode == -signal.SIGKILL
    checkpoint = tmp_path / "runs" / "jsb_chorales_lstm" / "seed-0-quick" / "checkpoint"
    saved = json.load(open(checkpoint / "state.json"))
    assert saved["extra"]["configuration"]["model"]["kind"] == "lstm"
    # The recipe's defaults change between the crash and the rerun (here: its learning rate).
    changed = _train(tmp_path, shared_data_dir, change_default="learning_rate=0.01")
    assert changed.returncode != 0
    assert "was saved by a run with other settings (model.learning_rate: 0.003 -> 0.01)" in changed.stderr
    assert "--restart" in changed.stderr
    assert json.load(open(checkpoint / "state.json")) == saved  # nothing of the old run was touched
    resumed = _train(tmp_path, shared_data_dir)
    assert resumed.returncode == 0, resumed.stderr
    assert json.load(open(checkpoint.parent / "record.json"))["resumed_after_epoch"] == 2


def test_a_checkpoint_saved_before_configurations_were_recorded_still_resumes(tmp_path):
    import keras

    from keras_seq.zoo import runs

    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.zeros((2, 2)), np.zeros((2, 1)), verbose=0)
    old = runs.RunCheckpoint(str(tmp_path / "checkpoint"))
    old.set_model(model)
    old.on_epoch_end(0)
    assert "configuration" not in json.load(open(tmp_path / "checkpoint" / "state.json"))["extra"]
    new = runs.RunCheckpoint(str(tmp_path / "checkpoint"), configuration={"model": {"units": 8}})
    assert new.restore(model) == 1
    assert new.extra["configuration"] == {"model": {"units": 8}}  # saved from now on
