"""A run killed after any epoch and run again ends as the run that was
never killed, dropout included: the checkpoint keeps the seed generators'
states, and each epoch's batch order is keyed by (seed, epoch)."""

import dataclasses

import hypothesis
import numpy as np
import pytest
from hypothesis import strategies as st

from keras_seq.zoo import recipes
from keras_seq.zoo import runs
from keras_seq.zoo import train

EPOCHS = 4
# One recipe per model family, each with dropout on (quick sizes).
WITH_DROPOUT = {
    "lstm": ("jsb_chorales_lstm", {"dropout": 0.2}),
    "scrbm": ("ocr_ms_scrbm", {"dropout": 0.5}),
    "trellisnet": ("jsb_chorales_trellisnet", {}),  # dropout 0.2, input and output dropout 0.1
}


class Killed(Exception):
    pass


def _recipe(family):
    name, changes = WITH_DROPOUT[family]
    recipe = recipes.get(name)
    return dataclasses.replace(recipe, model={**recipe.model, **changes}, check_every=1)


def _run(recipe, data_dir, output, kill_after=None, monkeypatch=None):
    if kill_after is not None:
        saved = runs.RunCheckpoint.on_epoch_end

        def on_epoch_end(self, epoch, logs=None):
            saved(self, epoch, logs)
            if epoch + 1 == kill_after:
                raise Killed

        monkeypatch.setattr(runs.RunCheckpoint, "on_epoch_end", on_epoch_end)
        with pytest.raises(Killed):
            train.run(recipe, data_dir=data_dir, epochs=EPOCHS, quick=True, output=output, verbose=0)
        monkeypatch.setattr(runs.RunCheckpoint, "on_epoch_end", saved)
    return train.run(recipe, data_dir=data_dir, epochs=EPOCHS, quick=True, output=output, verbose=0)


@pytest.fixture(scope="module")
def uninterrupted(shared_data_dir, tmp_path_factory):
    output = str(tmp_path_factory.mktemp("uninterrupted"))
    return {family: _run(_recipe(family), shared_data_dir, output) for family in WITH_DROPOUT}


def _assert_same_run(resumed, straight, kill_after):
    assert resumed["resumed_after_epoch"] == kill_after and straight["resumed_after_epoch"] is None
    assert resumed["history"].keys() == straight["history"].keys()
    for key, values in straight["history"].items():
        np.testing.assert_allclose(resumed["history"][key], values, rtol=1e-6, atol=1e-7, err_msg=key)
    for key, value in straight["test"].items():
        assert resumed["test"][key] == pytest.approx(value, rel=1e-6, abs=1e-7), key


@pytest.mark.parametrize("family", sorted(WITH_DROPOUT))
def test_a_run_killed_mid_way_resumes_to_the_uninterrupted_run(
    family, uninterrupted, shared_data_dir, tmp_path, monkeypatch
):
    resumed = _run(_recipe(family), shared_data_dir, str(tmp_path), kill_after=2, monkeypatch=monkeypatch)
    _assert_same_run(resumed, uninterrupted[family], 2)


@hypothesis.settings(
    max_examples=3,
    deadline=None,
    derandomize=True,
    suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture],
)
@hypothesis.given(kill_after=st.integers(1, EPOCHS - 1))
def test_resume_after_a_kill_at_any_epoch_equals_the_uninterrupted_run(
    kill_after, uninterrupted, shared_data_dir, tmp_path_factory, monkeypatch
):
    output = str(tmp_path_factory.mktemp("killed"))
    resumed = _run(_recipe("lstm"), shared_data_dir, output, kill_after=kill_after, monkeypatch=monkeypatch)
    _assert_same_run(resumed, uninterrupted["lstm"], kill_after)


def test_a_resume_with_fewer_epochs_than_the_checkpoint_holds_is_refused(shared_data_dir, tmp_path, monkeypatch):
    recipe = _recipe("lstm")
    output = str(tmp_path)
    saved = runs.RunCheckpoint.on_epoch_end

    def on_epoch_end(self, epoch, logs=None):
        saved(self, epoch, logs)
        if epoch + 1 == 3:
            raise Killed

    monkeypatch.setattr(runs.RunCheckpoint, "on_epoch_end", on_epoch_end)
    with pytest.raises(Killed):
        train.run(recipe, data_dir=shared_data_dir, epochs=EPOCHS, quick=True, output=output, verbose=0)
    monkeypatch.setattr(runs.RunCheckpoint, "on_epoch_end", saved)
    with pytest.raises(ValueError, match="holds 3 epochs, more than --epochs 2: rerun with --epochs 3 or more"):
        train.run(recipe, data_dir=shared_data_dir, epochs=2, quick=True, output=output, verbose=0)
    record = train.run(recipe, data_dir=shared_data_dir, epochs=EPOCHS, quick=True, output=output, verbose=0)
    assert record["resumed_after_epoch"] == 3 and record["epochs_run"] == EPOCHS
