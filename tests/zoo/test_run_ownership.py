"""A run directory is owned by one process at a time: a second run of the
same command never writes into a directory another run holds, and two
concurrent runs of one command both keep their record."""

import json
import os
import subprocess
import sys

import pytest

from keras_seq.zoo import recipes
from keras_seq.zoo import runs
from keras_seq.zoo import train


def test_a_held_directory_is_passed_over_with_the_owners_pid(shared_data_dir, tmp_path, capsys):
    output = str(tmp_path / "runs")
    with runs.claim(output, "ocr_ms_lstm", 0, quick=True) as held:
        before = sorted(os.listdir(held.path))
        record = train.run(recipes.get("ocr_ms_lstm"), data_dir=shared_data_dir, quick=True, output=output, verbose=0)
        assert sorted(os.listdir(held.path)) == before  # nothing written into the held directory
    assert record["run_directory"] == held.path + "-2"
    assert os.path.isfile(os.path.join(held.path + "-2", runs.RECORD))
    assert not os.path.exists(os.path.join(held.path + "-2", runs.LOCK))  # released when finished
    assert f"{held.path} is in use by process {os.getpid()}" in capsys.readouterr().out
    # Released: the unfinished directory is the next run's again.
    with runs.claim(output, "ocr_ms_lstm", 0, quick=True) as again:
        assert again.path == held.path


def test_two_concurrent_runs_of_one_command_both_keep_their_record(shared_data_dir, tmp_path):
    output = str(tmp_path / "runs")

    def start(epochs):
        command = [
            "train",
            "jsb_chorales_lstm",
            "--quick",
            "--epochs",
            str(epochs),
            "--data-dir",
            shared_data_dir,
            "--output",
            output,
        ]
        return subprocess.Popen(
            [sys.executable, "-c", "import sys; from keras_seq.zoo import cli; cli.main(sys.argv[1:])", *command],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    first, second = start(4), start(6)
    outputs = [process.communicate(timeout=600) for process in (first, second)]
    assert [first.returncode, second.returncode] == [0, 0], outputs
    folder = os.path.join(output, "jsb_chorales_lstm")
    assert sorted(os.listdir(folder)) == ["seed-0-quick", "seed-0-quick-2"]
    written = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name, runs.RECORD)) as f:
            record = json.load(f)
        assert record["run_directory"] == os.path.join(folder, name) and record["resumed_after_epoch"] is None
        assert os.path.isfile(os.path.join(folder, name, "model.keras"))
        written[record["epochs_run"]] = name
    assert sorted(written) == [4, 6]  # each run's own record, neither taken over by the other


def test_an_output_folder_that_cannot_be_written_is_named_before_training(tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    with pytest.raises(ValueError, match=f"--output {blocked}: cannot write the run directory"):
        train.run(recipes.get("ocr_ms_lstm"), data_dir="/nonexistent", quick=True, output=str(blocked))
