"""`keras-seq compare`: one stopping rule, the convergence mark, parameter matching."""

import pytest


def test_compare_marks_runs_cut_by_the_epoch_limit(shared_data_dir, tmp_path, capsys):
    from keras_seq.zoo import cli

    cli.main(
        [
            "compare",
            "jsb_chorales_lmn_b_pretrained",
            "jsb_chorales_lstm",
            "--quick",
            "--epochs",
            "2",
            "--data-dir",
            shared_data_dir,
            "--output",
            str(tmp_path),
            "--markdown",
            str(tmp_path / "c.md"),
        ]
    )
    out = capsys.readouterr().out
    lstm = next(line for line in out.splitlines() if line.startswith("| jsb_chorales_lstm (quick) |"))
    assert "| **no**: epoch limit (best epoch" in lstm
    assert (
        "| model | parameters | updates | epochs | wall s | test frame_nll | test frame_accuracy | converged |" in out
    )
    pretrained = next(line for line in out.splitlines() if line.startswith("| jsb_chorales_lmn_b_pretrained"))
    assert "pretraining)" in pretrained  # the unrolled network's updates are counted
    assert "do not say which model is better" in out
    assert "do not say which model is better" in (tmp_path / "c.md").read_text()


def test_compare_refuses_recipes_on_different_data():
    from keras_seq.zoo import compare

    with pytest.raises(ValueError, match="one dataset; got jsb_chorales_lstm on jsb_chorales, ocr_ms_lstm"):
        compare.run(["jsb_chorales_lstm", "ocr_ms_lstm"], quick=True)


def test_compare_trains_every_recipe_under_the_first_ones_rule():
    from keras_seq.zoo import compare
    from keras_seq.zoo import recipes

    first = recipes.get("ocr_ms_scrbm")
    (other,) = compare.same_stopping_rule(first, [recipes.get("ocr_ms_conv")])
    for field in compare.STOPPING_RULE:
        assert getattr(other, field) == getattr(first, field)
    assert other.builder == "conv_text_model"


def test_match_parameters_picks_the_closest_width():
    from keras_seq.zoo import compare
    from keras_seq.zoo import recipes

    recipe = recipes.get("jsb_chorales_lstm")
    target = 143_488  # the pretrained LMN-B's count
    sized = compare.with_parameters(recipe, target)
    units = sized.model["units"]
    counts = {
        u: compare.parameter_count(compare.dataclasses.replace(recipe, model={**recipe.model, "units": u}))
        for u in (units - 1, units, units + 1)
    }
    assert abs(counts[units] - target) == min(abs(c - target) for c in counts.values())
    with pytest.raises(ValueError, match="sized by `units`"):
        compare.with_parameters(recipes.get("ocr_ms_conv"), target)


def _record(name, accuracy, nll, converged=True, parameters=1000):
    return {
        "recipe": name,
        "task": "next_frame",
        "quick": False,
        "seed": 0,
        "paper": None,
        "headline": None,
        "test": {"frame_accuracy": accuracy, "frame_nll": nll},
        "parameters": parameters,
        "stopping": {"reason": "early_stopping" if converged else "epoch_limit", "converged": converged},
    }


def test_the_summary_names_a_winner_only_among_converged_runs():
    from keras_seq.zoo import report

    converged = report.comparison_summary([_record("a", 0.20, 8.5), _record("b", 0.25, 8.1, parameters=2000)])
    assert "Best test frame_accuracy: b 25.00 % vs a 20.00 %" in converged
    assert "lowest test frame_nll: b 8.100" in converged and "differ in size" in converged
    cut = report.comparison_summary([_record("a", 0.20, 8.5), _record("b", 0.25, 8.1, converged=False)])
    assert cut.startswith("Not converged: b") and "Best" not in cut
