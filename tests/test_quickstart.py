def test_quickstart_trains_and_prints_the_table(capsys):
    from keras_seq.zoo import cli

    cli.main(["quickstart", "--epochs", "1", "--units", "8"])
    out = capsys.readouterr().out
    assert "| SCRBM (teacher forcing -> Algorithm 1) |" in out
    assert "| LSTM + Dense |" in out


def test_cli_lists_the_datasets(capsys):
    from keras_seq.zoo import cli

    cli.main(["datasets"])
    out = capsys.readouterr().out
    assert "| jsb_chorales | next_frame |" in out and "| wsj_pos | labelling |" in out


def test_train_a_recipe_quickly_writes_the_report(shared_data_dir, tmp_path, capsys):
    import json
    import os

    from keras_seq.zoo import cli

    cli.main(["train", "jsb_chorales_lstm", "ocr_ms_scrbm", "jsb_chorales_lmn_b_pretrained", "--quick", "--data-dir", shared_data_dir,
              "--output", str(tmp_path), "--markdown", str(tmp_path / "table.md")])
    out = capsys.readouterr().out
    assert "| jsb_chorales_lstm (quick) | jsb_chorales | frame_accuracy |" in out
    assert "| ocr_ms_scrbm (quick) |" in out and "14.81 %" in out
    record = json.load(open(tmp_path / "ocr_ms_scrbm.json"))
    assert 0.0 <= record["test"]["sequence_error"] <= 1.0 and record["model"]["kind"] == "scrbm"
    for name in ("jsb_chorales_lstm.keras", "jsb_chorales_lstm_curve.png", "jsb_chorales_lstm_roll.png", "table.md"):
        assert os.path.getsize(tmp_path / name) > 0

    cli.main(["evaluate", "ocr_ms_scrbm", "--quick", "--data-dir", shared_data_dir, "--output", str(tmp_path)])
    evaluated = json.loads(capsys.readouterr().out)
    assert abs(evaluated["sequence_error"] - record["test"]["sequence_error"]) < 1e-6


def test_every_recipe_builds_and_takes_a_training_step():
    """Each recipe's builder (in --quick sizes) on a tiny batch of its own shape."""
    import numpy as np

    import keras_seq.data as data
    from keras_seq.zoo import recipes
    from keras_seq.zoo import train

    seen = set()
    for recipe in recipes.RECIPES.values():
        info = data.info(recipe.dataset)
        key = (recipe.builder, recipe.model.get("kind"), info.task, info.input_shape, info.vocabulary_size)
        if recipe.builder == "pretrained_lmn_model" or key in seen:
            continue  # pretraining needs the data: covered by the CLI test above
        if recipe.builder == "ngram_model":
            continue  # counts, no Keras model to step: tests/test_zoo_baselines.py
        seen.add(key)
        (trainer, predictor), _ = train.build(recipe, quick=True)
        steps = 4
        batch = trainer.inputs[0].shape[0] or 2  # stateful models have a static batch
        if info.vocabulary_size:
            x = np.ones((batch, steps), "int32")
        else:
            x = np.zeros((batch, steps) + tuple(info.input_shape), "float32")
        if info.task in ("classification", "regression"):  # one target per sequence, no padding
            y = np.zeros((batch,), "int32") if info.task == "classification" else np.zeros((batch, 1), "float32")
            loss = trainer.train_on_batch(x, y)
            assert np.all(np.isfinite(loss)), recipe.name
            assert predictor.predict(x, verbose=0).shape == (batch, info.num_classes or 1)
            continue
        y = np.zeros((batch, steps, 88), "float32") if info.task == "next_frame" else np.zeros((batch, steps), "int32")
        inputs = [x, y] if recipe.teacher_forcing else x
        weights = np.ones((batch, steps), "float32")
        if getattr(trainer, "dataset_map", None):  # deep supervision: {"output": y, "aux": y}
            _, y = trainer.dataset_map(x, y)
            weights = None
        loss = trainer.train_on_batch(inputs, y, sample_weight=weights)
        assert np.all(np.isfinite(loss)), recipe.name
        assert predictor.predict(x, verbose=0).shape[:2] == (batch, steps)
