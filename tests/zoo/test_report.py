"""The zoo's plots: what a reader needs is on them."""

import numpy as np


def _figure_of(draw, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kept = []
    monkeypatch.setattr(plt, "close", lambda figure: kept.append(figure))
    draw()
    (figure,) = kept
    return figure


def test_learning_curve_puts_validation_points_at_their_epochs(tmp_path, monkeypatch):
    from keras_seq.zoo import report

    record = {
        "recipe": "ocr_ms_scrbm",
        "task": "labelling",
        "paper": None,
        "headline": None,
        "test": {"sequence_error": 0.2, "bits_per_event": 0.5, "loss": 0.3},
        "history": {
            "loss": list(np.linspace(1, 0.1, 30)),
            "sequence_error": list(np.linspace(0.9, 0.1, 30)),
            "bits_per_event": list(np.linspace(2, 1, 30)),
            "val_sequence_error": [0.5, 0.3, 0.35],
            "val_bits_per_event": [1.5, 1.2, 1.3],
        },
        "validation_epochs": [10, 20, 30],
        "stopping": {"reason": "epoch_limit", "converged": False, "best_epoch": 20, "last_epoch": 30},
    }
    path = tmp_path / "curve.png"
    figure = _figure_of(lambda: report.learning_curve(record, str(path)), monkeypatch)
    top, bottom = figure.axes
    lines = {line.get_label(): line for line in top.lines}
    assert list(lines["validation sequence_error"].get_xdata()) == [10, 20, 30]
    np.testing.assert_allclose(lines["validation sequence_error"].get_ydata(), [50, 30, 35])  # percent
    assert "training loss" not in {line.get_label() for line in bottom.lines}  # the NLL panel, in bits
    assert {line.get_label() for line in bottom.lines} >= {"training bits_per_event", "validation bits_per_event"}
    assert top.get_ylabel() == "sequence_error (%)" and bottom.get_xlabel() == "epoch"
    assert "NOT converged" in top.get_title() and path.stat().st_size > 0


def test_learning_curve_says_when_a_panel_has_nothing_measured(tmp_path, monkeypatch):
    """A 1-epoch run of a recipe validating every 10 epochs has no headline
    curve (the trainer does not compute it): the panel says so, no warning."""
    import warnings

    from keras_seq.zoo import report

    record = {
        "recipe": "ocr_ms_lstm",
        "task": "labelling",
        "paper": None,
        "headline": "sequence_error",
        "test": {"sequence_error": 0.9, "bits_per_event": 3.0},
        "history": {"loss": [2.5], "bits_per_event": [3.1]},
        "validation_epochs": [],
        "stopping": {"reason": "epoch_limit", "converged": False, "best_epoch": None, "last_epoch": 1},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figure = _figure_of(lambda: report.learning_curve(record, str(tmp_path / "curve.png")), monkeypatch)
    top, bottom = figure.axes
    assert [text.get_text() for text in top.texts] == ["not measured in this run"] and top.get_legend() is None
    assert bottom.get_legend() is not None and not bottom.texts


def test_piano_roll_is_cropped_to_the_real_frames(tmp_path, monkeypatch):
    from keras_seq.zoo import report

    true_roll, predicted = np.zeros((50, 88)), np.full((50, 88), 0.25)
    figure = _figure_of(
        lambda: report.piano_roll(true_roll, predicted, str(tmp_path / "roll.png"), length=17), monkeypatch
    )
    left, right, colour_bar = figure.axes
    assert left.images[0].get_array().shape == (88, 17) and right.images[0].get_array().shape == (88, 17)
    assert "probability" in colour_bar.get_ylabel()


def test_table_values_keep_the_digits_of_a_solved_tasks_loss():
    from keras_seq.zoo.report import format_value

    assert format_value("frame_accuracy", 0.2457, 0.0024) == "24.57 ± 0.24 %"
    assert format_value("frame_nll", 8.1194, 0.055) == "8.119 ± 0.055"
    assert format_value("loss", 6.53e-5, 1.2e-6) == "6.53e-05 ± 1.20e-06"  # not "0.000"
    assert format_value("loss", 0.0) == "0.000"


def _language_record(bits):
    return {
        "recipe": "ptb_char_trellisnet_cpu",
        "dataset": "ptb_char",
        "task": "next_token",
        "data_options": {},
        "model": {},
        "seed": 0,
        "quick": False,
        "parameters": 10,
        "wall_seconds": 1.0,
        "hardware": "here",
        "test": {"bits_per_event": bits, "loss": bits * 0.693},
        "chance": None,
        "stopping": {"reason": "early_stopping", "converged": True, "best_epoch": 3, "last_epoch": 9},
        "epochs_run": 9,
        "updates": {"training": 9, "pretraining": 0, "total": 9},
        "paper": None,
    }


def test_tables_do_not_print_a_metric_twice_when_the_nll_is_the_metric():
    """Bits per character is both the headline and the NLL of a language
    model; the NLL column points at the metric instead of repeating it."""
    from keras_seq.zoo import report
    from keras_seq.zoo import results

    first, second = _language_record(2.0321), _language_record(2.0123)
    row = results._row("ptb_char_trellisnet_cpu", [first, {**second, "seed": 1}])
    cells = [cell.strip() for cell in row.split("|")]
    assert cells.count("= metric") == 1 and "2.022 ± 0.014" in cells and cells.count("2.022 ± 0.014") == 1
    table = report.markdown_table([first]).splitlines()
    assert table[2].count("2.032") == 1 and "= metric" in table[2]
    comparison = report.comparison_table([first, second]).splitlines()
    assert comparison[0].count("bits_per_event") == 1
    assert all(line.count("|") == comparison[0].count("|") for line in comparison)
    piano = dict(first, task="next_frame", test={"frame_accuracy": 0.25, "frame_nll": 8.5})
    assert "8.500" in report.markdown_table([piano]) and "= metric" not in report.markdown_table([piano])
    assert "test frame_nll" in report.comparison_table([piano])
