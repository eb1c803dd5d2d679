"""The Colab notebooks in colab/.

Static checks on every backend: each notebook equals what
scripts/make_notebooks.py writes, has its own "Open in Colab" badge, exactly
one pip-install cell, and no stored outputs. Under the TensorFlow backend
(Colab's) every notebook is also executed headless with nbclient, in quick
mode on CPU, from a temporary working directory; its last cell prints a
`SUMMARY {json}` line that is checked here.
"""

import json
import math
import os
import re
import sys
import time

import keras
import pytest

from tests.support import load_script

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
COLAB = os.path.join(ROOT, "colab")
NOTEBOOKS = ("quick_start", "drop_in_layers", "kerastuner_search", "tpu_gpu")
TIMEOUT_PER_CELL = 300  # seconds; the quick runs take 10-40 s per notebook on 2 loaded cores


def _load(name):
    with open(os.path.join(COLAB, f"{name}.ipynb"), encoding="utf-8") as f:
        return json.load(f)


def _pyproject():
    import tomllib

    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)


def _source(cell):
    return "".join(cell["source"])


def _pip_installs(cell):
    """The pip-install commands of a code cell (comments aside)."""
    lines = [line.split("#", 1)[0] for line in _source(cell).splitlines()]
    return [line for line in lines if re.search(r"\bpip\b.*\binstall\b|[\"']pip[\"'],\s*[\"']install", line)]


def test_the_colab_folder_holds_exactly_these_notebooks():
    assert sorted(f[: -len(".ipynb")] for f in os.listdir(COLAB) if f.endswith(".ipynb")) == sorted(NOTEBOOKS)
    assert sorted(load_script("make_notebooks").NOTEBOOKS) == sorted(NOTEBOOKS)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_is_what_the_generator_writes(name):
    with open(os.path.join(COLAB, f"{name}.ipynb"), encoding="utf-8") as f:
        assert f.read() == load_script("make_notebooks").text(name), "run: python scripts/make_notebooks.py"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_has_its_badge_one_install_cell_and_no_outputs(name):
    nb = _load(name)
    assert nb["nbformat"] == 4
    source = _pyproject()["project"]["urls"]["Source"]
    repository = source.removeprefix("https://github.com/")
    badge = (
        "[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
        f"(https://colab.research.google.com/github/{repository}/blob/main/colab/{name}.ipynb)"
    )
    assert nb["cells"][0]["cell_type"] == "markdown" and badge in _source(nb["cells"][0])
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    installs = [c for c in code if _pip_installs(c)]
    assert len(installs) == 1, f"{len(installs)} pip-install cells"
    (install,) = installs
    assert install is code[0], "the install cell comes first"
    assert len(_pip_installs(install)) == 1, "one pip install"
    assert f'"keras-seq[zoo,tune] @ git+{source}"' in _source(install)  # the address pyproject states
    assert 'find_spec("keras_seq") is None' in _source(install), "installs only where keras-seq is missing"
    for cell in code:
        assert cell["outputs"] == [] and cell["execution_count"] is None, "stored outputs"
    assert all("attachments" not in c for c in nb["cells"])


def test_every_notebook_selects_the_accelerator_and_reads_quick_mode():
    for name in NOTEBOOKS:
        text = "\n".join(_source(c) for c in _load(name)["cells"] if c["cell_type"] == "code")
        assert 'distribute.training_strategy("auto")' in text, name
        assert 'os.environ.get("KERAS_SEQ_NOTEBOOK_QUICK") == "1"' in text, name
        assert "with scope():" in text or "distribution_strategy=strategy" in text, "trains under the strategy"


def _outputs_text(nb):
    """All text the executed notebook shows: streams, results, displays."""
    parts = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output["output_type"] == "stream":
                parts.append(output["text"])
            elif output["output_type"] in ("execute_result", "display_data"):
                for mime in ("text/plain", "text/markdown"):
                    if mime in output.get("data", {}):
                        parts.append(output["data"][mime])
    return "\n".join(parts)


def _summary(nb):
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o["output_type"] == "stream")
    (line,) = [line for line in text.splitlines() if line.startswith("SUMMARY ")]
    return json.loads(line[len("SUMMARY ") :])


def _check_quick_start(nb, summary, folder):
    text = _outputs_text(nb)
    assert "| model | parameters | updates | epochs | wall s | test frame_nll | test frame_accuracy |" in text
    assert "| jsb_chorales_lmn_b_pretrained (quick) |" in text and "| jsb_chorales_lstm (quick) |" in text
    assert "Not converged: jsb_chorales_lmn_b_pretrained, jsb_chorales_lstm" in text  # one epoch each
    assert "| wsj_pos_2000_lexical_scrbm | SequenceTagger |" in text and "The/DT market/NN fell/VBD" in text
    assert summary["presets"]["tags"] == ["DT", "NN", "VBD", "RB", "."]
    assert summary["presets"]["chorale_frames"] == 33 and summary["presets"]["chorale_notes"] > 0
    with open(os.path.join(folder, "chorale.mid"), "rb") as f:
        assert f.read(4) == b"MThd"
    assert sorted(summary["runs"]) == ["jsb_chorales_lmn_b_pretrained", "jsb_chorales_lstm"]
    for row in summary["runs"].values():
        assert row["metric"] == "frame_accuracy" and 0.0 <= row["test"] <= 1.0 and row["epochs"] == 1
        assert row["converged"] is False
    images = [o for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(images) == 5  # the sampled chorale, then curve + piano roll per recipe
    for name in ("model.keras", "curve.png", "roll.png", "record.json"):
        assert (
            os.path.getsize(os.path.join(folder, "runs", "quick_start", "jsb_chorales_lstm", "seed-0-quick", name)) > 0
        )


def _check_drop_in_layers(nb, summary, folder):
    assert "| model | parameters | test accuracy | fit s |" in _outputs_text(nb)
    assert len(summary) == 5 and "LSTM (the original)" in summary
    for row in summary.values():
        assert 0.0 <= row["test_accuracy"] <= 1.0 and row["parameters"] > 0
    assert sorted(f for f in os.listdir(folder) if f.endswith(".keras")) == [
        "lmn_a.keras",
        "lmn_b.keras",
        "lstm.keras",
        "scrbm.keras",
        "trellis.keras",
    ]


def _check_kerastuner_search(nb, summary, folder):
    text = _outputs_text(nb)
    assert "best hyperparameters:" in text and "| trial | status | units_pair | l2 | learning_rate | score |" in text
    assert summary["recipe"] == "jsb_chorales_lmn_b" and summary["trials_completed"] == 2
    assert summary["best_hyperparameters"]["units_pair"] in ("4x4", "8x8", "8x16")
    assert math.isfinite(summary["best_score"]) and 0.0 <= summary["test"]["frame_accuracy"] <= 1.0
    assert os.path.isdir(os.path.join(folder, "runs", "tuning"))


def _check_tpu_gpu(nb, summary, folder):
    assert summary["accelerator"] == "CPU" and summary["replicas"] == 1
    assert summary["strategy"] == "_DefaultDistributionStrategy" and summary["jit_compile"] is False
    assert summary["global_batch"] == 4 and summary["epochs"] == 2
    assert summary["epoch_seconds"] > 0 and summary["sequences_per_second"] > 0
    assert 0.0 <= summary["test"]["frame_accuracy"] <= 1.0
    assert "chorales/s" in _outputs_text(nb)


CHECKS = {
    "quick_start": _check_quick_start,
    "drop_in_layers": _check_drop_in_layers,
    "kerastuner_search": _check_kerastuner_search,
    "tpu_gpu": _check_tpu_gpu,
}


KERNEL = "keras-seq-test"


@pytest.fixture(scope="module")
def jupyter_path(tmp_path_factory):
    """A folder for $JUPYTER_PATH with a kernel spec that runs this
    interpreter (sys.executable), whatever `python3` kernel a user or CI
    image may have registered."""
    root = tmp_path_factory.mktemp("jupyter")
    folder = root / "kernels" / KERNEL
    folder.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "keras-seq test",
        "language": "python",
    }
    (folder / "kernel.json").write_text(json.dumps(spec))
    return str(root)


@pytest.mark.skipif(
    keras.backend.backend() != "tensorflow",
    reason="the notebooks run on Colab's backend, TensorFlow; they are executed only in the "
    "KERAS_BACKEND=tensorflow test run (the static checks run on every backend)",
)
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_executes_in_quick_mode(name, shared_data_dir, jupyter_path, tmp_path, monkeypatch):
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("ipykernel")

    monkeypatch.setenv("JUPYTER_PATH", jupyter_path)  # searched first for the kernel spec
    monkeypatch.setenv("KERAS_SEQ_NOTEBOOK_QUICK", "1")
    monkeypatch.setenv("KERAS_SEQ_DATA_DIR", os.path.abspath(shared_data_dir))
    monkeypatch.setenv("KERAS_BACKEND", "tensorflow")
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", "3")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(os.path.join(COLAB, f"{name}.ipynb"), as_version=4)
    nbformat.validate(nb)
    client = nbclient.NotebookClient(
        nb, kernel_name=KERNEL, timeout=TIMEOUT_PER_CELL, resources={"metadata": {"path": str(tmp_path)}}
    )
    start = time.perf_counter()
    client.execute()
    print(f"{name}: executed in {time.perf_counter() - start:.1f} s")
    assert "quick mode" in _outputs_text(nb)  # the setup cell saw KERAS_SEQ_NOTEBOOK_QUICK
    CHECKS[name](nb, _summary(nb), str(tmp_path))
