"""Chance level (zoo.chance) by hand, and the mark a run worse than it gets
in every table (zoo.report, zoo.results)."""

import numpy as np
import pytest

from keras_seq.zoo import chance
from keras_seq.zoo import report
from keras_seq.zoo import results


def _frames(rng, batch, steps, keys, lengths):
    y = (rng.random((batch, steps, keys)) < 0.3).astype("float32")
    w = (np.arange(steps) < np.array(lengths)[:, None]).astype("float32")
    y[w == 0] = 1.0  # padding targets must not count
    return np.zeros((batch, steps, keys), "float32"), y, w


def test_next_frame_chance_is_the_smoothed_key_frequency(rng):
    train = [_frames(rng, 2, 5, 3, [5, 2]), _frames(rng, 2, 5, 3, [3, 4])]
    test = [_frames(rng, 3, 4, 3, [4, 1, 2])]
    real = np.concatenate([y[w > 0] for _, y, w in train])  # (frames, keys)
    p = (real.sum(0) + 0.5) / (len(real) + 1.0)
    _, y, w = test[0]
    frames = y[w > 0]
    nll = -(frames * np.log(p) + (1 - frames) * np.log(1 - p)).sum(-1).mean()
    scores = chance.chance_scores("next_frame", 3, train, test)
    assert scores["frame_nll"] == pytest.approx(nll, rel=1e-5)
    assert set(scores) == {"frame_accuracy", "frame_nll", "loss"}


def test_labelling_chance_predicts_the_majority_class(rng):
    classes = 4
    y_train = np.array([[0, 2, 2, 1], [2, 2, 3, 3]])
    w_train = np.array([[1, 1, 1, 1], [1, 1, 0, 0]], "float32")  # the padded 3s must not count
    y_test = np.array([[2, 0, 1, 2, 2]])
    w_test = np.array([[1, 1, 1, 1, 0]], "float32")
    counts = np.array([1, 1, 4, 0]) + 0.5
    p = counts / counts.sum()
    scores = chance.chance_scores("labelling", classes, [(None, y_train, w_train)], [(None, y_test, w_test)])
    assert scores["sequence_error"] == pytest.approx(2 / 4)  # class 2 everywhere: 2 of 4 real steps wrong
    bits = -np.log2(p[[2, 0, 1, 2]]).mean()
    assert scores["bits_per_event"] == pytest.approx(bits, rel=1e-5)


def test_per_sequence_chance_levels():
    """Classification: the majority class (no step weights); regression: the mean target."""
    scores = chance.chance_scores(
        "classification", 3, [(None, np.array([1, 1, 2, 0, 1]))], [(None, np.array([1, 2, 2, 1]))]
    )
    assert scores["accuracy"] == pytest.approx(0.5)
    p = (np.array([1, 3, 1]) + 0.5) / 6.5
    assert scores["loss"] == pytest.approx(-np.log(p[[1, 2, 2, 1]]).mean(), rel=1e-5)
    scores = chance.chance_scores(
        "regression", 1, [(None, np.array([[0.5], [1.5]]))], [(None, np.array([[2.0], [0.0]]))]
    )
    assert scores["mse"] == pytest.approx(1.0)


def _record(nll, chance_nll, reason="early_stopping"):
    return {
        "recipe": "nottingham_lmn_b",
        "dataset": "nottingham",
        "task": "next_frame",
        "data_options": {},
        "model": {},
        "seed": 0,
        "quick": False,
        "parameters": 10,
        "wall_seconds": 1.0,
        "hardware": "here",
        "test": {"frame_accuracy": 0.04, "frame_nll": nll},
        "chance": None if chance_nll is None else {"frame_nll": chance_nll},
        "stopping": {"reason": reason, "converged": True, "best_epoch": 3, "last_epoch": 9},
        "epochs_run": 9,
        "updates": {"training": 9, "pretraining": 0, "total": 9},
        "paper": None,
    }


def test_a_run_worse_than_chance_is_marked_in_every_table():
    broken, trained, old = _record(305.6, 10.26), _record(3.5, 10.26), _record(305.6, None)
    assert (report.worse_than_chance(broken), report.worse_than_chance(trained), report.worse_than_chance(old)) == (
        True,
        False,
        None,
    )
    assert "**worse than chance** (test frame_nll 305.600 against 10.260" in report.stopped_by(broken)
    assert "chance" not in report.stopped_by(trained) + report.stopped_by(old)
    assert "worse than chance" in report.markdown_table([broken])
    assert "worse than chance" in report.comparison_table([broken, trained])
    summary = report.comparison_summary([broken, {**trained, "recipe": "nottingham_lstm"}])
    assert "Worse than chance: nottingham_lmn_b" in summary and "do not say which model is better" in summary
    row = results._row("nottingham_lmn_b", [broken, {**broken, "seed": 1, "test": dict(trained["test"])}])
    assert "| 2/2 **(1 worse than chance)** |" in row


def test_records_written_before_the_chance_level_get_it_from_the_data(shared_data_dir, tmp_path):
    import json

    from tests.support import load_script

    script = load_script("add_chance_level")
    record = {**_record(305.6, None), "recipe": "jsb_chorales_lstm", "dataset": "jsb_chorales"}
    del record["chance"]
    (tmp_path / "jsb_chorales_lstm").mkdir()
    path = tmp_path / "jsb_chorales_lstm" / "seed-0.json"
    path.write_text(json.dumps(record))
    script.main([str(tmp_path), "--data-dir", shared_data_dir])
    updated = json.loads(path.read_text())
    assert {k: v for k, v in updated.items() if k != "chance"} == record
    assert 5 < updated["chance"]["frame_nll"] < 20 and report.worse_than_chance(updated)
