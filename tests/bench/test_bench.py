"""`python -m bench --tiny` on the current backend, in a subprocess: the
report has its header, a table per section with a row per model, and
positive numbers where numbers belong. No timing is asserted."""

import os
import re
import subprocess
import sys

import keras
import pytest

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BACKEND = keras.backend.backend()
SECTIONS = {
    "OCR letters, SCRBM vs Keras RNNs": [
        "SCRBM (4 units, Algorithm 1)",
        "SCRBM teacher-forcing trainer (4 units)",
        "SCRBM floor: free energy of all steps at once, no recurrence (4 units), fast form",
        "SCRBM floor: free energy of all steps at once, no recurrence (4 units), plain softplus",
        "LSTM, equal width (4 units)",
        "LSTM, equal parameters",
    ],
    "JSB Chorales, LMN vs Keras RNNs": [
        "LMN-A (3 + 4 units)",
        "LMN-B (3 + 4 units)",
        "LSTM, equal width (7 units)",
        "LSTM, equal parameters",
    ],
    "Sequential MNIST, TrellisNet vs Keras RNNs": [
        "TrellisNet (12 hidden incl. 10 out, 3 levels)",
        "LSTM, equal width (12 units)",
        "LSTM, equal parameters",
    ],
    "Character-level PTB, TrellisNet LM vs Keras RNN LMs": [
        "TrellisNet LM (8 hidden incl. 4 out, 2 levels, tied embedding)",
        "LSTM, equal width (8 units)",
        "LSTM, equal parameters",
    ],
}
TRAINER_ONLY = "SCRBM teacher-forcing trainer"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    output = tmp_path_factory.mktemp("bench") / "report.md"
    environment = dict(os.environ, KERAS_BACKEND=BACKEND, TF_CPP_MIN_LOG_LEVEL="3")
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--tiny", "--backends", BACKEND, "--output", str(output)],
        cwd=REPOSITORY,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    text = output.read_text()
    assert text.strip() == done.stdout.strip()
    return text


def rows(text, title):
    """The table rows (lists of cells) under the heading `### title`."""
    section = text.split(f"### {title}\n", 1)[1].split("\n### ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]


def value(cell):
    return float(cell.replace(",", ""))


def memory_ok(report, cell):
    """A peak is a number >= 0, or a dash where the header says why not."""
    return value(cell) >= 0 if cell != "—" else "- Peak memory: not measured" in report


def test_header_names_machine_versions_load_and_wall_time(report):
    assert report.startswith("# keras-seq benchmark")
    assert f"## Backend: {BACKEND}" in report
    for field in (
        "- Machine: ",
        "- Versions: ",
        "- Load average (1 / 5 / 15 min): before ",
        "- Wall time: ",
        "- Peak memory: ",
    ):
        assert field in report
    assert re.search(r"Keras 3\.\d+", report) and "numpy " in report
    assert value(re.search(r"- Wall time: ([\d,]+) s", report).group(1)) >= 0


@pytest.mark.parametrize("title", sorted(SECTIONS))
def test_each_section_has_a_row_per_model_with_positive_numbers(report, title):
    table = rows(report, title)
    for expected in SECTIONS[title]:
        assert any(row[1].startswith(expected) for row in table), (expected, table)
    for jit, name, parameters, train_ms, ratio, latency, throughput, first_peak, train_peak, predict_peak in table:
        assert jit in ("False", "True")
        assert value(parameters) > 0 and value(train_ms) > 0 and value(ratio) > 0
        assert memory_ok(report, first_peak) and memory_ok(report, train_peak)
        if name.startswith(TRAINER_ONLY):  # its predictor is the SCRBM row
            assert latency == throughput == predict_peak == "—"
        else:
            assert value(latency) > 0 and value(throughput) > 0 and memory_ok(report, predict_peak)
    baseline = [row for row in table if row[1].startswith("LSTM, equal width")]
    assert all(row[4] == "1.00" for row in baseline)


def test_free_energy_floor_forms_agree_with_the_softplus_sum():
    """Both forms of the floor compute the SCRBM's logits without recurrence."""
    import numpy as np

    from bench.free_energy import FreeEnergyFloor

    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 3, 5)).astype("float32")
    plain, fast = FreeEnergyFloor(4, 3, form="plain"), FreeEnergyFloor(4, 3, form="fast")
    plain.build(x.shape)
    fast.build(x.shape)
    fast.set_weights(plain.get_weights())
    kernel, bias, label_kernel, label_bias = plain.get_weights()
    a = x @ kernel + bias
    expected = np.logaddexp(0.0, a[:, :, None, :] + label_kernel).sum(-1) + label_bias
    for layer in (plain, fast):
        np.testing.assert_allclose(keras.ops.convert_to_numpy(layer(x)), expected, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="form must be one of"):
        FreeEnergyFloor(4, 3, form="exact")


def _jsb_chorales_row(shared_data_dir, module, *options):
    """The JSB Chorales row of `python -m <module>`'s table, as cells."""
    done = subprocess.run(  # a process of its own: the script pins BLAS threads before numpy loads
        [sys.executable, "-m", module, "--sets", "jsb_chorales", "--data-dir", shared_data_dir, *options],
        cwd=REPOSITORY,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    (row,) = [line for line in done.stdout.splitlines() if line.startswith("| jsb_chorales |")]
    return [cell.strip() for cell in row.strip("|").split("|")]


def test_xi_products_bench_times_both_routes_and_checks_they_agree(shared_data_dir):
    cells = _jsb_chorales_row(shared_data_dir, "bench.xi_products", "--units", "8", "--columns", "12")
    assert cells[1:4] == ["229", "128", "13578"] and cells[4] in ("shifted", "FFT")
    assert all(value(cell) >= 0 for cell in cells[5:9]) and value(cells[9]) < 1e-10


def test_reconstruction_memory_bench_measures_the_error_on_real_lengths(shared_data_dir):
    cells = _jsb_chorales_row(shared_data_dir, "bench.reconstruction_memory", "--units", "8", "--memory-units", "12")
    padded_mib = 229 * 128 * 8 * 8 / 2**20
    assert cells[1:4] == ["229", "128", "13578"] and value(cells[4]) == round(padded_mib)
    assert value(cells[5]) >= 0 and value(cells[6]) > 0
