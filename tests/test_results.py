"""`keras-seq results` (RESULTS.md) and the zoo's training time budget."""

import json

import keras
import numpy as np
import pytest


def test_time_budget_stops_at_the_first_step_past_it():
    from keras_seq.zoo.callbacks import TimeBudget

    class CountSteps(keras.callbacks.Callback):
        steps = 0

        def on_train_batch_end(self, batch, logs=None):
            CountSteps.steps += 1

    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    budget = TimeBudget(1e-9)
    x, y = np.zeros((40, 3), "float32"), np.zeros((40, 1), "float32")
    history = model.fit(x, y, batch_size=4, epochs=5, callbacks=[budget, CountSteps()], verbose=0)
    assert budget.stopped and CountSteps.steps == 1 and len(history.history["loss"]) == 1

    unlimited = TimeBudget(3600)
    model.fit(x, y, batch_size=4, epochs=2, callbacks=[unlimited], verbose=0)
    assert not unlimited.stopped
    with pytest.raises(ValueError, match="positive number of seconds"):
        TimeBudget(0)


def test_planned_recipes_exist_and_filter():
    from keras_seq.zoo import recipes
    from keras_seq.zoo import results

    planned = results.planned_recipes()
    assert len(planned) == len(set(planned)) and all(name in recipes.RECIPES for name in planned)
    assert results.planned_recipes(["ocr_ms"]) == [n for n in planned if "ocr_ms" in n]
    assert all(name in recipes.RECIPES for name in results.GPU_SCALE)


def test_results_measures_writes_and_resumes(shared_data_dir, tmp_path, monkeypatch, capsys):
    from keras_seq.zoo import cli
    from keras_seq.zoo import train

    output, markdown = tmp_path / "records", tmp_path / "RESULTS.md"
    argv = ["results", "--quick", "--only", "ocr_ms_lstm", "--data-dir", shared_data_dir,
            "--output", str(output), "--markdown", str(markdown), "--budget-seconds", "30"]
    cli.main(argv)
    record = json.load(open(output / "ocr_ms_lstm.json"))
    text = markdown.read_text()
    assert "## SCRBM paper: OCR letters, ms protocol" in text
    assert "| ocr_ms_lstm (quick) |" in text and "13.33 %" in text  # ours beside the paper's
    assert "keras-seq results --quick --only ocr_ms_lstm" in text  # the command that made it
    assert "`ptb_word_trellisnet`" in text and "not yet measured" in text
    assert record["max_seconds"] == 30.0 and record["quick"] is True

    def no_training(*args, **kwargs):
        raise AssertionError("--resume must reuse the stored record")

    monkeypatch.setattr(train, "run", no_training)
    cli.main(argv + ["--resume"])
    assert f"{100 * record['test']['sequence_error']:.2f} %" in markdown.read_text()
