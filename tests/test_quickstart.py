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
