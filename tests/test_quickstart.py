from keras_seq.zoo import quickstart


def test_quickstart_trains_and_prints_the_table(capsys):
    quickstart.main(["--epochs", "1", "--units", "8"])
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

    cli.main(["train", "jsb_chorales_lstm", "ocr_ms_scrbm", "--quick", "--data-dir", shared_data_dir,
              "--output", str(tmp_path), "--markdown", str(tmp_path / "table.md")])
    out = capsys.readouterr().out
    assert "| jsb_chorales_lstm (quick) | jsb_chorales | frame_accuracy |" in out
    assert "| ocr_ms_scrbm (quick) |" in out and "14.81 %" in out
    record = json.load(open(tmp_path / "ocr_ms_scrbm.json"))
    assert 0.0 <= record["test"]["sequence_error"] <= 1.0 and record["model"]["kind"] == "scrbm"
    for name in ("jsb_chorales_lstm.keras", "jsb_chorales_lstm_curve.png", "jsb_chorales_lstm_roll.png", "table.md"):
        assert os.path.getsize(tmp_path / name) > 0
