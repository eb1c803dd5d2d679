from zoo import quickstart


def test_quickstart_trains_and_prints_the_table(capsys):
    quickstart.main(["--epochs", "1", "--units", "8"])
    out = capsys.readouterr().out
    assert "| SCRBM (teacher forcing -> Algorithm 1) |" in out
    assert "| LSTM + Dense |" in out
