"""The TrellisNet recipes of the zoo through the command line (--quick)."""

import json
import math
import os

import pytest


@pytest.mark.filterwarnings("error:Skipping variable loading:UserWarning")
def test_train_trellisnet_recipes_quickly(shared_data_dir, tmp_path, capsys):
    from keras_seq.zoo import cli

    cli.main(
        [
            "train",
            "ptb_char_trellisnet",
            "adding_trellisnet",
            "--quick",
            "--data-dir",
            shared_data_dir,
            "--output",
            str(tmp_path),
        ]
    )
    out = capsys.readouterr().out
    assert "| ptb_char_trellisnet (quick) | ptb_char | bits_per_event |" in out and "1.158" in out
    assert "| adding_trellisnet (quick) | adding |" in out

    char = json.load(open(tmp_path / "ptb_char_trellisnet" / "seed-0-quick" / "record.json"))
    test = char["test"]
    assert 0 < test["bits_per_event"] < 10  # 50 symbols: log2(50) = 5.6 at random
    assert math.isclose(test["perplexity"], 2 ** test["bits_per_event"], rel_tol=1e-4)
    assert char["model"]["stateful"] and char["model"]["batch_size"] == 24
    # Trained with deep supervision: the trainer logged both losses.
    assert "aux_loss" in char["history"] and "val_output_bits_per_event" in char["history"]

    adding = json.load(open(tmp_path / "adding_trellisnet" / "seed-0-quick" / "record.json"))
    assert math.isfinite(adding["test"]["mse"]) and adding["model"]["task"] == "regression"
    for name in (
        "ptb_char_trellisnet/seed-0-quick/model.keras",
        "adding_trellisnet/seed-0-quick/model.keras",
        "adding_trellisnet/seed-0-quick/curve.png",
    ):
        assert os.path.getsize(tmp_path / name) > 0

    # The saved (stateful) predictor reloads and evaluates to the same numbers.
    cli.main(["evaluate", "ptb_char_trellisnet", "--quick", "--data-dir", shared_data_dir, "--output", str(tmp_path)])
    evaluated = json.loads(capsys.readouterr().out)
    assert abs(evaluated["bits_per_event"] - test["bits_per_event"]) < 1e-4


def test_paper_recipes_are_as_wide_as_the_reference_models():
    from zoo import recipes

    # The reference scripts' (--nhid, --nout) defaults; its state is nhid + nout
    # wide, where `hidden_units` counts the output channels.
    reference = {
        "sequential_mnist_trellisnet": (120, 10),
        "permuted_mnist_trellisnet": (120, 10),
        "ptb_char_trellisnet": (1050, 200),
        "ptb_word_trellisnet": (1000, 400),
    }
    for name, (nhid, nout) in reference.items():
        model = recipes.get(name).model
        assert (model["hidden_units"], model["output_units"]) == (nhid + nout, nout), name
