"""The package as Colab installs it: a built wheel (not this checkout), in a
fresh virtual environment, running the quick-start notebook's path on the
Bach chorales bundled with music21 (no ../shared data, no download).

The fresh environment borrows the already installed dependencies through a
path file (so the test needs no network); keras-seq itself comes only from
the wheel. Run under the TensorFlow backend only, Colab's."""

import os
import subprocess
import sys
import sysconfig
import textwrap

import keras
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytestmark = pytest.mark.skipif(
    keras.backend.backend() != "tensorflow",
    reason="builds and installs the wheel once, in the TensorFlow (Colab's backend) test run",
)

QUICK_START = """
import json, os, sys
import keras_seq
from keras_seq.zoo import compare, report

assert keras_seq.__file__.startswith(sys.prefix), keras_seq.__file__  # the wheel, not the checkout
records = compare.run(["bach_chorales_lmn_b_pretrained", "bach_chorales_lstm"], epochs=1, quick=True,
                      output="runs")
print(report.comparison_table(records))
print("RESULT", json.dumps({r["recipe"]: r["test"]["frame_accuracy"] for r in records}))
"""

# A preset applied to a user's sentence, in three lines, with no data folder.
PRESET = """
import keras_seq
tagger = keras_seq.presets.load("wsj_pos_2000_lexical_scrbm")
print("TAGS", tagger.label([["The", "market", "fell", "sharply", "."]]))
"""

# The modules of the notebooks' extras (`keras-seq[zoo,tune]`).
EXTRAS_MODULES = ("tensorflow", "tensorflow_datasets", "music21", "matplotlib", "keras_tuner", "sklearn")


def _run(command, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, **kwargs)
    assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def test_the_wheel_installs_into_a_fresh_environment_and_runs_the_quick_start(tmp_path):
    wheels = tmp_path / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels), ROOT])
    (wheel,) = wheels.glob("keras_seq-*.whl")

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    python = str(venv / "bin" / "python")
    site = _run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).strip()
    with open(os.path.join(site, "borrowed-dependencies.pth"), "w") as f:
        f.write(sysconfig.get_paths()["purelib"] + "\n")  # the dependencies, not keras-seq's editable finder
    _run([python, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--force-reinstall", str(wheel)])
    _run([python, "-c", f"import {', '.join(EXTRAS_MODULES)}"])

    work = tmp_path / "work"
    work.mkdir()
    environment = {k: v for k, v in os.environ.items() if k not in ("KERAS_SEQ_DATA_DIR", "PYTHONPATH")}
    environment.update(
        KERAS_BACKEND="tensorflow", TF_CPP_MIN_LOG_LEVEL="3", MPLBACKEND="Agg", KERAS_HOME=str(tmp_path / "keras_home")
    )
    out = _run([python, "-c", textwrap.dedent(QUICK_START)], cwd=work, env=environment)
    assert "| bach_chorales_lmn_b_pretrained (quick) |" in out and "| bach_chorales_lstm (quick) |" in out
    assert os.path.getsize(work / "runs" / "bach_chorales_lstm" / "seed-0-quick" / "model.keras") > 0
    cli = _run([str(venv / "bin" / "keras-seq"), "list"], cwd=work, env=environment)
    assert "bach_chorales_lmn_b_pretrained" in cli
    out = _run([python, "-c", textwrap.dedent(PRESET)], cwd=work, env=environment)
    assert "TAGS [['DT', 'NN', 'VBD', 'RB', '.']]" in out
    labelled = _run(
        [str(venv / "bin" / "keras-seq"), "label", "wsj_pos_2000_lexical_scrbm", "The market fell sharply ."],
        cwd=work,
        env=environment,
    )
    assert labelled.split() == ["The/DT", "market/NN", "fell/VBD", "sharply/RB", "./."]
    chunked = _run(
        [str(venv / "bin" / "keras-seq"), "label", "conll2000_scrbm", "The market fell sharply ."],
        cwd=work,
        env=environment,
    )
    words, tags = zip(*(token.rsplit("/", 1) for token in chunked.split()))
    assert words == ("The", "market", "fell", "sharply", ".")
    assert all(tag == "O" or tag[:2] in ("B-", "I-") for tag in tags), chunked
    _run(
        [str(venv / "bin" / "keras-seq"), "generate", "jsb_chorales_lstm", "--output", "chorale.mid"],
        cwd=work,
        env=environment,
    )
    notes = _run(
        [python, "-c", "import music21; print(len(music21.converter.parse('chorale.mid').flatten().notes))"],
        cwd=work,
        env=environment,
    )
    assert int(notes.split()[-1]) > 0
    # `tune` comes from keras_seq.tuning's entry point, which the wheel must carry.
    assert "--max-trials" in _run([str(venv / "bin" / "keras-seq"), "tune", "--help"], cwd=work, env=environment)
