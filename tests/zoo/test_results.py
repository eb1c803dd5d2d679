"""`keras-seq results` (RESULTS.md) and the zoo's training time budget."""

import json
import os

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


def test_time_budget_can_span_several_fits():
    import time

    from keras_seq.zoo.callbacks import TimeBudget

    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x, y = np.zeros((8, 3), "float32"), np.zeros((8, 1), "float32")
    start = time.perf_counter() - 5.0  # five seconds already spent, e.g. by a curriculum stage
    budget = TimeBudget(4.0, start=start)
    history = model.fit(x, y, batch_size=4, epochs=3, callbacks=[budget], verbose=0)
    assert budget.stopped and len(history.history["loss"]) == 1
    assert not TimeBudget(3600.0, start=start).stopped


def test_epoch_times_exclude_validation_and_give_the_steady_epoch(monkeypatch):
    from keras_seq.zoo import callbacks

    clock = [0.0]
    monkeypatch.setattr(callbacks.time, "perf_counter", lambda: clock[0])
    times = callbacks.EpochTimes()
    with pytest.raises(ValueError, match="No epoch"):
        times.steady_seconds()
    # (training, validation) seconds per epoch; the first epoch compiles
    for epoch, (training, validation) in enumerate([(9.0, 5.0), (2.0, 5.0), (1.0, 0.0), (3.0, 5.0)]):
        times.on_epoch_begin(epoch)
        clock[0] += training
        if validation:
            times.on_test_begin()
            clock[0] += validation
        times.on_epoch_end(epoch)
    assert times.seconds == [9.0, 2.0, 1.0, 3.0]
    assert times.steady_seconds() == 2.0  # the median of the epochs after the first


def test_planned_recipes_exist_and_filter():
    from keras_seq.zoo import recipes
    from keras_seq.zoo import results

    planned = results.planned_recipes()
    assert len(planned) == len(set(planned)) and all(name in recipes.RECIPES for name in planned)
    assert results.planned_recipes(["ocr_ms"]) == [n for n in planned if "ocr_ms" in n]
    assert all(name in recipes.RECIPES for name in results.GPU_SCALE)


def test_results_measures_writes_records_and_reuses_them(shared_data_dir, tmp_path, monkeypatch, capsys):
    from keras_seq.zoo import cli
    from keras_seq.zoo import train

    records, markdown = tmp_path / "records", tmp_path / "RESULTS.md"
    argv = [
        "results",
        "--quick",
        "--only",
        "ocr_ms_lstm",
        "--data-dir",
        shared_data_dir,
        "--records",
        str(records),
        "--markdown",
        str(markdown),
        "--budget-seconds",
        "30",
    ]
    cli.main(argv)
    record = json.load(open(records / "ocr_ms_lstm" / "seed-0-quick.json"))  # a check: never a real record's file
    assert not (records / "ocr_ms_lstm" / "seed-0.json").exists()
    text = markdown.read_text()
    assert "## SCRBM paper: OCR letters, ms protocol" in text
    # Ours beside the paper's; no selection was made, so the row says it holds the defaults.
    assert "| ocr_ms_lstm (recipe defaults, no recorded selection) | sequence_error |" in text and "13.33 %" in text
    assert "ocr_ms_lstm seed 0 (recipe defaults, no recorded selection" in capsys.readouterr().out
    assert "`keras-seq results --only ocr_ms_lstm --seeds 0 --quick --data-dir" in text  # the command that made it
    assert "`keras-seq train ptb_word_trellisnet" in text and "not yet measured" in text
    assert record["max_seconds"] == 30.0 and record["quick"] is True
    assert record["stopping"]["reason"] in ("epoch_limit", "time_budget")  # one --quick epoch: cut
    assert "**(not converged)**" in text

    def no_training(*args, **kwargs):
        raise AssertionError("a recipe and seed with a record must not be trained again")

    monkeypatch.setattr(train, "run", no_training)
    cli.main(argv)
    cli.main(argv + ["--rebuild"])
    assert f"{100 * record['test']['sequence_error']:.2f} %" in markdown.read_text()


def _record(seed, error, converged=True, **extra):
    return {
        "recipe": "ocr_ms_scrbm",
        "dataset": "ocr_letters",
        "task": "labelling",
        "data_options": {"protocol": "ms", "fold": 0},
        "seed": seed,
        "quick": False,
        "test": {"sequence_error": error, "bits_per_event": 0.5 + error},
        "headline": None,
        "paper": {"value": 0.1481, "metric": "sequence_error", "source": "SCRBM paper"},
        "parameters": 25526,
        "epochs_run": 100 + seed,
        "wall_seconds": 60.0 + seed,
        "hardware": "x86_64 2 CPU cores, backend tensorflow",
        "stopping": {
            "reason": "early_stopping" if converged else "epoch_limit",
            "converged": converged,
            "best_epoch": 50,
            "last_epoch": 100 + seed,
        },
        "command": f"keras-seq results --only ocr_ms_scrbm --seeds {seed} --data-dir ../shared/data",
        "model": {"builder": "labelling_model", "kind": "scrbm", "units": 100},  # the recipe's
        **extra,
    }


def test_a_row_names_its_seeds_whose_training_loss_diverged(tmp_path):
    from keras_seq.zoo import results

    records = tmp_path / "records"
    for seed in (0, 1, 2):
        record = _record(seed, 0.2, converged=seed == 1)
        if seed != 1:
            record["stopping"].update(reason="diverged", diverged_epoch=60)
        results.write_record(record, str(records / "ocr_ms_scrbm" / f"seed-{seed}.json"))
    text = results.markdown(results.load_records(str(records)), str(records))
    row = next(line for line in text.splitlines() if line.startswith("| ocr_ms_scrbm "))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[8] == "1/3 **(not converged)** **(2 diverged: training loss not finite)**"


def test_results_rebuild_from_committed_records(tmp_path):
    from keras_seq.zoo import results

    records = tmp_path / "records"
    for seed, error in ((0, 0.16), (1, 0.18), (2, 0.20)):
        results.write_record(
            _record(seed, error, converged=seed != 2), str(records / "ocr_ms_scrbm" / f"seed-{seed}.json")
        )
    (records / "ocr_ms_scrbm" / "NOTE.md").write_text("Selection on Algorithm 1 closes 3 points of the gap.")
    results.write_record({**_record(9, 0.5), "quick": True}, str(records / "ocr_ms_scrbm" / "seed-9-quick.json"))
    text = results.markdown(results.load_records(str(records)), str(records))
    row = next(
        line
        for line in text.splitlines()
        if line.startswith("| ocr_ms_scrbm (recipe defaults, no recorded selection) |")
    )
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2] == "18.00 ± 2.00 %"  # mean and sample std over the three seeds; the quick record is apart
    assert cells[3] == "0, 1, 2" and cells[4] == "14.81 %" and cells[5] == "0.680 ± 0.020"
    assert cells[7] == "100-102" and cells[8] == "2/3 **(not converged)**" and cells[9] == "61"
    assert "--seeds 0 1 2 --data-dir ../shared/data" in cells[11]
    assert (
        "- **ocr_ms_scrbm**: Selection on Algorithm 1 closes 3 points of the gap. "
        "([findings](docs/findings/ocr_ms_scrbm.md))" in text
    )
    pages = results.findings_pages(results.load_records(str(records)), str(records))
    assert pages["ocr_ms_scrbm.md"].startswith("# ocr_ms_scrbm\n")
    assert "| ocr_ms_scrbm (recipe defaults, no recorded selection) |" in pages["ocr_ms_scrbm.md"]
    assert pages["ocr_ms_scrbm.md"].rstrip().endswith("Selection on Algorithm 1 closes 3 points of the gap.")
    assert "- [ocr_ms_scrbm](ocr_ms_scrbm.md): Selection on Algorithm 1" in pages["index.md"]
    # Listed as not measured; its grid is searched first, else its seeds would train the defaults.
    assert (
        "- `keras-seq select ocr_ms_lstm --data-dir ../shared/data`, then "
        "`keras-seq results --only ocr_ms_lstm --seeds 0 1 2" in text
    )
    assert "- `keras-seq results --only adding_trellisnet --seeds 0 1 2" in text  # no grid
    assert not any(line.startswith("| ocr_ms_lstm") for line in text.splitlines())


def test_the_note_of_a_recipe_without_current_records_stays_in_the_table_of_the_unmeasured(tmp_path):
    """A recipe whose arguments changed has its records set aside: what they
    measured, in its note, stays in RESULTS.md beside the command to rerun it."""
    from keras_seq.zoo import results

    records = tmp_path / "records"
    results.write_record(_record(0, 0.2), str(records / "ocr_ms_scrbm" / "seed-0.json"))
    (records / "ocr_ms_lstm" / "old_protocol").mkdir(parents=True)
    (records / "ocr_ms_lstm" / "NOTE.md").write_text("Trained 30 fixed epochs before; now stops early.")
    text = results.markdown(results.load_records(str(records)), str(records))
    unmeasured = text[text.index("## Not measured yet") : text.index("GPU/TPU scale")]
    assert "- `keras-seq select ocr_ms_lstm" in unmeasured
    assert "- **ocr_ms_lstm**: Trained 30 fixed epochs before; now stops early." in unmeasured
    assert text.count("**ocr_ms_lstm**") == 1 and "**ocr_ms_scrbm**" not in text


def test_the_unmeasured_list_says_so_when_every_recipe_has_a_record(tmp_path, monkeypatch):
    from keras_seq.zoo import results

    records = tmp_path / "records"
    results.write_record(_record(0, 0.2), str(records / "ocr_ms_scrbm" / "seed-0.json"))
    monkeypatch.setattr(results, "SECTIONS", (("Labelling", ("ocr_ms_scrbm",)),))
    text = results.markdown(results.load_records(str(records)), str(records))
    unmeasured = text[text.index("## Not measured yet") : text.index("GPU/TPU scale")]
    assert "Every CPU-feasible recipe has a record." in unmeasured
    assert "without a record" not in unmeasured and "keras-seq" not in unmeasured


def test_a_row_names_every_kind_of_hardware_its_seeds_ran_on(tmp_path):
    from keras_seq.zoo import results

    records = tmp_path / "records"
    here = "x86_64 2 CPU cores (AMD EPYC AVX-512), backend tensorflow"
    for seed, hardware in ((0, "x86_64 2 CPU cores, backend tensorflow"), (1, here), (2, here)):
        results.write_record(
            _record(seed, 0.16, hardware=hardware), str(records / "ocr_ms_scrbm" / f"seed-{seed}.json")
        )
    row = next(
        line
        for line in results.markdown(results.load_records(str(records)), str(records)).splitlines()
        if line.startswith("| ocr_ms_scrbm ")
    )
    assert [c.strip() for c in row.strip("|").split("|")][10] == f"x86_64 2 CPU cores, backend tensorflow; {here}"


def test_records_name_the_cpu_model_and_its_avx512(tmp_path):
    from keras_seq.zoo import records

    cpuinfo = tmp_path / "cpuinfo"
    first = "processor\t: 0\nmodel name\t: Some CPU 9000\nflags\t\t: fpu sse2 avx2 {}\n"
    cpuinfo.write_text(first.format("avx512f avx512bw") + "\n" + first.replace("0", "1").format(""))
    assert records.cpu_name(str(cpuinfo)) == "Some CPU 9000 AVX-512"
    cpuinfo.write_text(first.format("avx512_vnni"))  # an extension's flag alone is not the AVX-512 foundation
    assert records.cpu_name(str(cpuinfo)) == "Some CPU 9000"
    assert records.cpu_name(str(tmp_path / "absent")) != ""


def test_rebuild_refuses_a_row_of_records_the_recipe_no_longer_trains(tmp_path):
    from keras_seq.zoo import results

    model = {"builder": "labelling_model", "kind": "scrbm", "units": 100}
    records = tmp_path / "records"
    results.write_record(_record(0, 0.16, model=model), str(records / "ocr_ms_scrbm" / "seed-0.json"))
    # An argument only one record names (a data-derived size) is no difference.
    results.write_record(
        _record(1, 0.18, model={**model, "input_shape": [128]}), str(records / "ocr_ms_scrbm" / "seed-1.json")
    )
    assert "| ocr_ms_scrbm (recipe defaults" in results.markdown(results.load_records(str(records)), str(records))
    # A seed of other arguments (e.g. from before the recipe's defaults changed) would stand in the row.
    results.write_record(_record(2, 0.12, model={**model, "units": 250}), str(records / "ocr_ms_scrbm" / "seed-2.json"))
    with pytest.raises(
        ValueError,
        match=r"ocr_ms_scrbm/seed-2.json was trained with units=250, but ocr_ms_scrbm "
        r"now trains units=100\. Move the old records aside",
    ):
        results.markdown(results.load_records(str(records)), str(records))


def test_results_refuses_a_record_of_another_grid_point_than_the_chosen_one(tmp_path):
    from keras_seq.zoo import results

    records = tmp_path / "records"
    model = {"builder": "labelling_model", "kind": "lstm", "units": 100, "dropout": 0.0}
    results.write_record(
        {**_record(0, 0.2), "recipe": "ocr_ms_lstm", "model": model}, str(records / "ocr_ms_lstm" / "seed-0.json")
    )
    results.write_record(
        {"recipe": "ocr_ms_lstm", "point": {"dropout": 0.5, "l2": 0.0}},
        results.selection_path(str(records), "ocr_ms_lstm"),
    )
    with pytest.raises(
        ValueError,
        match=r"seed-0.json was trained with dropout=0.0, but ocr_ms_lstm now trains "
        r"dropout=0.5 \(chosen by keras-seq select\)\. Move the old records aside",
    ):
        results.measure(records_dir=str(records), only=["ocr_ms_lstm"], seeds=(0,))


def test_set_aside_moves_the_records_of_other_arguments_and_only_those(tmp_path):
    from keras_seq.zoo import results

    records = tmp_path / "records"
    old = {"builder": "labelling_model", "kind": "lstm", "units": 100, "dropout": 0.0}
    chosen = {**old, "dropout": 0.5, "l2": 0.0}
    results.write_record(
        {**_record(0, 0.2), "recipe": "ocr_ms_lstm", "model": old}, str(records / "ocr_ms_lstm" / "seed-0.json")
    )
    results.write_record(
        {**_record(1, 0.1), "recipe": "ocr_ms_lstm", "model": chosen}, str(records / "ocr_ms_lstm" / "seed-1.json")
    )
    results.write_record(
        {"recipe": "ocr_ms_lstm", "point": {"dropout": 0.5, "l2": 0.0}},
        results.selection_path(str(records), "ocr_ms_lstm"),
    )
    moved = results.set_aside_records(str(records), "ocr_ms_lstm", "unregularised")
    assert moved == [str(records / "ocr_ms_lstm" / "unregularised" / "seed-0.json")]
    assert json.load(open(moved[0]))["model"] == old
    assert sorted(os.listdir(records / "ocr_ms_lstm")) == ["seed-1.json", "selected.json", "unregularised"]
    results.measure(records_dir=str(records), only=["ocr_ms_lstm"], seeds=(1,))  # seed 1 fits: nothing to train
    # Never over a record set aside before.
    results.write_record(
        {**_record(0, 0.2), "recipe": "ocr_ms_lstm", "model": old}, str(records / "ocr_ms_lstm" / "seed-0.json")
    )
    with pytest.raises(ValueError, match="--set-aside unregularised: .*seed-0.json exists; choose another label"):
        results.set_aside_records(str(records), "ocr_ms_lstm", "unregularised")
    assert (records / "ocr_ms_lstm" / "seed-0.json").exists()


def test_a_row_trained_before_its_selection_chose_those_arguments_is_named_by_the_selection(tmp_path):
    """Records made at the recipe's arguments carry no selected point; once
    `select` chooses those arguments, the row says so."""
    from keras_seq.zoo import results

    records = tmp_path / "records"
    for seed in (0, 1):
        results.write_record(_record(seed, 0.2), str(records / "ocr_ms_scrbm" / f"seed-{seed}.json"))
    labels = lambda: [
        line.split(" | ")[0]
        for line in results.markdown(results.load_records(str(records)), str(records)).splitlines()
        if line.startswith("| ocr_ms_scrbm ")
    ]
    assert labels() == ["| ocr_ms_scrbm (recipe defaults, no recorded selection)"]
    results.write_record(
        {"recipe": "ocr_ms_scrbm", "point": {"dropout": 0.0, "units": 100}},
        results.selection_path(str(records), "ocr_ms_scrbm"),
    )
    assert labels() == ["| ocr_ms_scrbm (dropout=0, units=100)"]


def test_select_names_the_records_its_choice_leaves_stale(tmp_path, capsys):
    from keras_seq.zoo import cli
    from keras_seq.zoo import results

    records = tmp_path / "records"
    point = {"dropout": 0.5, "l2": 0.0}
    searched = {
        **_record(0, 0.1),
        "recipe": "ocr_ms_lstm",
        "grid_point": point,
        "stopping": {"converged": True, "best_value": 0.12, "best_epoch": 5},
    }
    results.write_record(searched, results.grid_record_path(str(records), "ocr_ms_lstm", point))
    results.write_record(
        {
            **_record(0, 0.2),
            "recipe": "ocr_ms_lstm",
            "model": {"builder": "labelling_model", "kind": "lstm", "units": 100},
        },
        str(records / "ocr_ms_lstm" / "seed-0.json"),
    )
    cli.main(["select", "ocr_ms_lstm", "--only", "dropout=0.5", "l2=0", "--records", str(records)])  # nothing to train
    out = capsys.readouterr().out
    assert "selected: dropout=0.5_l2=0" in out
    assert (
        "ocr_ms_lstm/seed-0.json: trained at other model arguments; `keras-seq results --only ocr_ms_lstm "
        "--set-aside LABEL ...`" in out
    )


def test_select_reuses_the_recipes_own_run_of_a_point_that_builds_the_same_model(
    shared_data_dir, tmp_path, monkeypatch, capsys
):
    from keras_seq.zoo import cli
    from keras_seq.zoo import train

    records = tmp_path / "records"
    common = ["--quick", "--epochs", "10", "--data-dir", shared_data_dir, "--records", str(records)]
    cli.main(["results", "--only", "ocr_ms_lstm", "--seeds", "0", "--markdown", str(tmp_path / "R.md"), *common])
    own = json.load(open(records / "ocr_ms_lstm" / "seed-0-quick.json"))

    def no_training(*args, **kwargs):
        raise AssertionError("the recipe's own run of this seed is this grid point's run")

    monkeypatch.setattr(train, "run", no_training)
    cli.main(["select", "ocr_ms_lstm", "--only", "dropout=0", "l2=0", *common])  # the builder's defaults
    point = json.load(open(records / "ocr_ms_lstm" / "grid" / "dropout=0_l2=0-quick.json"))
    assert point["test"] == own["test"] and point["grid_point"] == {"dropout": 0.0, "l2": 0.0}
    assert "[select]" not in capsys.readouterr().out
    cli.main(["results", "--only", "ocr_ms_lstm", "--seeds", "0", "--markdown", str(tmp_path / "R.md"), *common])


def test_a_damaged_record_is_named(tmp_path):
    from keras_seq.zoo import results

    path = tmp_path / "ocr_ms_scrbm" / "seed-0.json"
    path.parent.mkdir()
    path.write_text(json.dumps(_record(0, 0.2))[:40])
    with pytest.raises(ValueError, match=r"seed-0.json is not valid JSON .*Delete it and rerun"):
        results.load_records(str(tmp_path))


@pytest.mark.parametrize(
    "change, message",
    [
        ({"seed": None}, r'is damaged: "seed" is missing or not a JSON integer \(got None\)'),
        ({"seed": True}, r'is damaged: "seed" is missing or not a JSON integer \(got True\)'),
        ({"hardware": None}, r'is damaged: "hardware" is missing or not a JSON string'),
        ({"wall_seconds": "60"}, r'is damaged: "wall_seconds" is missing or not a JSON integer or a JSON number'),
        ({"paper": {"value": 0.1}, "test": {"frame_nll": 8.0}}, r"has no test score of its headline metric \(none\)"),
        ({"test": {"bits_per_event": 0.7}}, r"has no test score of its headline metric \(sequence_error\)"),
        ({"stopping": {"best_epoch": 3}}, 'has a "stopping" without "reason" and "converged"'),
        ({"seed": 1}, r"holds the record of seed 1 of ocr_ms_scrbm, which belongs in .*seed-1.json; move it there"),
        (
            {"recipe": "ocr_ms_lstm"},
            r"holds the record of seed 0 of ocr_ms_lstm, which belongs in .*ocr_ms_lstm.seed-0.json",
        ),
        ({"quick": True}, r"holds the --quick record of seed 0 of ocr_ms_scrbm, which belongs in .*seed-0-quick.json"),
    ],
)
def test_a_record_missing_a_field_or_out_of_place_is_named(tmp_path, change, message):
    from keras_seq.zoo import results

    path = tmp_path / "ocr_ms_scrbm" / "seed-0.json"
    results.write_record({**_record(0, 0.2), **change}, str(path))
    with pytest.raises(ValueError, match=rf"{path}.* {message}"):
        results.load_records(str(tmp_path))


def test_select_chooses_a_grid_point_on_validation_and_results_trains_it(shared_data_dir, tmp_path, capsys):
    from keras_seq.zoo import cli
    from keras_seq.zoo import results
    from keras_seq.zoo import selection

    records = tmp_path / "records"
    cli.main(
        [
            "select",
            "ocr_ms_lstm",
            "--quick",
            "--epochs",
            "10",
            "--only",
            "dropout=0,0.5",
            "l2=0",
            "--data-dir",
            shared_data_dir,
            "--records",
            str(records),
        ]
    )
    out = capsys.readouterr().out
    choice = json.load(open(records / "ocr_ms_lstm" / "selected-quick.json"))
    scores = choice["scores"]
    assert set(scores) == {"dropout=0_l2=0", "dropout=0.5_l2=0"}
    best = min(scores, key=scores.get)
    assert results.point_name(choice["point"]) == best and f"selected: {best}" in out
    assert len(choice["dropped"]) == 9 - 2 and "dropout=0.2_l2=1e-05" in choice["dropped"]
    for name in scores:
        point = json.load(open(records / "ocr_ms_lstm" / "grid" / f"{name}-quick.json"))
        assert point["stopping"]["best_value"] == scores[name] and point["stopping"]["best_epoch"] == 10

    cli.main(
        [
            "results",
            "--quick",
            "--only",
            "ocr_ms_lstm",
            "--data-dir",
            shared_data_dir,
            "--seeds",
            "0",
            "1",
            "--epochs",
            "10",
            "--records",
            str(records),
            "--markdown",
            str(tmp_path / "R.md"),
        ]
    )
    record = json.load(open(records / "ocr_ms_lstm" / "seed-0-quick.json"))
    searched = json.load(open(records / "ocr_ms_lstm" / "grid" / f"{best}-quick.json"))
    assert record["test"] == searched["test"]  # seed 0 of the chosen point: the grid's own run, reused
    assert json.load(open(records / "ocr_ms_lstm" / "seed-1-quick.json"))["epochs_run"] == 10  # seed 1: trained
    assert record["selected_point"] == choice["point"]
    assert record["model"]["dropout"] == choice["point"]["dropout"]
    assert f"| ocr_ms_lstm ({results.point_name(choice['point'], ', ')}) |" in (tmp_path / "R.md").read_text()
    # Every run kept a run directory beside the records, named after its grid
    # point, so that a killed search or results run resumes its own checkpoint.
    for name in scores:
        assert (tmp_path / "runs" / f"ocr_ms_lstm+{name.replace('_', ',')}" / "seed-0-quick" / "record.json").exists()
    seed_1 = json.load(open(records / "ocr_ms_lstm" / "seed-1-quick.json"))
    # Named relative to the folder holding the records: no machine's path is committed.
    assert seed_1["run_directory"] == os.path.join("runs", f"ocr_ms_lstm+{best.replace('_', ',')}", "seed-1-quick")
    assert os.path.exists(tmp_path / seed_1["run_directory"] / "record.json")
    assert not os.path.exists(tmp_path / seed_1["run_directory"] / "checkpoint")  # finished: discarded
    assert json.load(open(records / "ocr_ms_lstm" / "grid" / f"{best}-quick.json"))["run_directory"] == os.path.join(
        "runs", f"ocr_ms_lstm+{best.replace('_', ',')}", "seed-0-quick"
    )
    # A search in pieces: a later call restricted to another point chooses
    # among every point searched so far with this seed.
    cli.main(
        [
            "select",
            "ocr_ms_lstm",
            "--quick",
            "--epochs",
            "10",
            "--only",
            "dropout=0.2",
            "l2=0",
            "--data-dir",
            shared_data_dir,
            "--records",
            str(records),
        ]
    )
    choice = json.load(open(records / "ocr_ms_lstm" / "selected-quick.json"))
    assert set(choice["scores"]) == {"dropout=0_l2=0", "dropout=0.5_l2=0", "dropout=0.2_l2=0"}
    assert len(choice["dropped"]) == 9 - 3 and choice["scores"][results.point_name(choice["point"])] == min(
        choice["scores"].values()
    )
    with pytest.raises(ValueError, match="outside the grid: units"):
        selection.grid_points({"dropout": (0.0,)}, {"units": (5,)})
    with pytest.raises(ValueError, match="no grid"):
        selection.run("sequential_mnist_conv")  # fixed epochs, nothing to choose


def test_a_grid_can_tie_arguments_in_pairs():
    """The LMN paper's grid pairs functional and memory sizes (not a product)."""
    from keras_seq.zoo import selection

    grid = {"units,memory_units": ((50, 50), (100, 250)), "l2": (0.0, 1e-4)}
    assert selection.grid_arguments(grid) == ["l2", "memory_units", "units"]
    assert selection.grid_points(grid) == [
        {"l2": 0.0, "units": 50, "memory_units": 50},
        {"l2": 0.0, "units": 100, "memory_units": 250},
        {"l2": 1e-4, "units": 50, "memory_units": 50},
        {"l2": 1e-4, "units": 100, "memory_units": 250},
    ]
    assert selection.grid_points(grid, {"memory_units": (250,), "l2": (0.0,)}) == [
        {"l2": 0.0, "units": 100, "memory_units": 250}
    ]
    with pytest.raises(ValueError, match="outside the grid: dropout; the grid has l2, memory_units, units"):
        selection.grid_points(grid, {"dropout": (0.5,)})


def test_row_commands_name_the_documented_data_folder_not_the_machine_path(tmp_path):
    from keras_seq.zoo import results

    records = tmp_path / "records"
    machine_path = "/home/someone/shared/data"
    for seed in (0, 1):
        record = _record(seed, 0.16, command=f"keras-seq train ocr_ms_scrbm --seed {seed} --data-dir {machine_path}")
        results.write_record(record, str(records / "ocr_ms_scrbm" / f"seed-{seed}.json"))
    results.write_record(
        _record(
            0,
            0.2,
            recipe="ocr_ms_gru",
            command=f"keras-seq train ocr_ms_gru --data-dir {machine_path}",
            model={"builder": "labelling_model", "kind": "gru", "units": 100},
        ),
        str(records / "ocr_ms_gru" / "seed-0.json"),
    )
    text = results.markdown(results.load_records(str(records)), str(records))
    assert machine_path not in text
    assert "`keras-seq results --only ocr_ms_scrbm --seeds 0 1 --data-dir ../shared/data`" in text
    assert "`keras-seq train ocr_ms_gru --data-dir ../shared/data`" in text  # one seed: its own command
    assert (
        results.portable_command("keras-seq train x --data-dir data/local") == "keras-seq train x --data-dir data/local"
    )


def test_the_committed_results_md_is_the_rebuild_of_the_committed_records():
    """RESULTS.md holds nothing the records do not (no hand edits, no row of
    a configuration its recipe no longer trains: the rebuild refuses those)."""
    from keras_seq.zoo import results

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    records = os.path.join(root, "records")
    rebuilt = results.markdown(results.load_records(records), records)
    with open(os.path.join(root, "RESULTS.md")) as f:
        assert f.read() == rebuilt, "RESULTS.md differs from `keras-seq results --rebuild`; rerun it"
    pages = results.findings_pages(results.load_records(records), records)
    directory = os.path.join(root, results.FINDINGS)
    assert sorted(os.listdir(directory)) == sorted(pages), "docs/findings differs from the records' notes; rebuild"
    for name, text in pages.items():
        with open(os.path.join(directory, name)) as f:
            assert f.read() == text, f"docs/findings/{name} differs from `keras-seq results --rebuild`"


def test_a_long_finding_is_shortened_at_a_clause_outside_code_and_brackets():
    from keras_seq.zoo import results

    note = "Reproduced: 8.35 % against 8.29 % (3 seeds, `select --only a,b`), " + "and more, " * 40 + "end. Next."
    line = results.summary(note, limit=120)
    assert len(line) <= 120 and line.endswith(" …")
    assert line.count("`") % 2 == 0 and line.count("(") == line.count(")")
    assert results.summary("**Bold lead.** The rest.") == "Bold lead."
    assert results.summary("First sentence. Second one.") == "First sentence."


def test_a_preset_run_is_one_more_run_of_its_row_and_must_be_trained_at_its_point(tmp_path):
    from keras_seq.zoo import results

    records = tmp_path / "records"
    for seed, error in ((0, 0.16), (1, 0.18)):
        results.write_record(_record(seed, error), str(records / "ocr_ms_scrbm" / f"seed-{seed}.json"))
    preset = {**_record(0, 0.20), "recipe": "ocr_ms_scrbm+units=100"}
    results.write_record(preset, str(records / "ocr_ms_scrbm" / "preset" / "seed-0.json"))
    text = results.markdown(results.load_records(str(records)), str(records))
    row = next(line for line in text.splitlines() if line.startswith("| ocr_ms_scrbm "))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2] == "18.00 ± 2.00 %" and cells[3] == "0, 1, 0 (preset)"
    assert "--seeds 0 1 " in cells[-1]  # the seeds' command; the preset run keeps its own

    results.write_record(
        {**preset, "model": {**preset["model"], "units": 250}}, str(records / "ocr_ms_scrbm" / "preset" / "seed-0.json")
    )
    with pytest.raises(ValueError, match=r"preset/seed-0.json was trained with units=250"):
        results.markdown(results.load_records(str(records)), str(records))
