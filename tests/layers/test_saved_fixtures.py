"""`.keras` files saved by an earlier version (tests/fixtures/, written
once by scripts/make_fixtures.py) keep loading, without custom_objects, with
identical predictions."""

import os

import keras
import numpy as np
import pytest

import keras_seq  # noqa: F401  (registers the classes)

FOLDER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")
NAMES = ["scrbm", "lmn", "trellis_block", "trellisnet"]


@pytest.mark.parametrize("name", NAMES)
def test_saved_model_loads_with_identical_predictions(name):
    model = keras.saving.load_model(os.path.join(FOLDER, f"{name}.keras"))
    saved = np.load(os.path.join(FOLDER, f"{name}.npz"))
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(model(saved["inputs"])), saved["predictions"], rtol=1e-5, atol=1e-6
    )


def test_every_layer_has_a_fixture():
    files = set(os.listdir(FOLDER))
    assert {f"{name}.keras" for name in NAMES} <= files and {f"{name}.npz" for name in NAMES} <= files


def test_unknown_class_in_a_keras_file_is_named(tmp_path):
    """A file naming a keras-seq class this version lacks: the error names
    the class and the file."""
    import json
    import zipfile

    from keras_seq import saving

    source = os.path.join(FOLDER, "scrbm.keras")
    target = tmp_path / "newer.keras"
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for item in old.namelist():
            data = old.read(item)
            if item == "config.json":
                data = json.dumps(json.loads(data)).replace('"keras_seq>SCRBM"', '"keras_seq>SCRBMv9"')
                data = data.replace('"class_name": "SCRBM"', '"class_name": "SCRBMv9"')
            new.writestr(item, data)
    with pytest.raises(ValueError, match=r"newer\.keras needs classes .*keras_seq>SCRBMv9.*keras_seq>SCRBM\b"):
        saving.load_model(str(target))
    with pytest.raises(IsADirectoryError, match="is a directory"):
        saving.load_model(str(tmp_path))
    np.testing.assert_allclose(  # a known file loads through the same function
        keras.ops.convert_to_numpy(saving.load_model(source)(np.load(os.path.join(FOLDER, "scrbm.npz"))["inputs"])),
        np.load(os.path.join(FOLDER, "scrbm.npz"))["predictions"],
        rtol=1e-5,
        atol=1e-6,
    )


def test_a_zoo_model_with_keras_seq_metrics_loads_in_a_fresh_process(tmp_path):
    """A saved zoo model names keras-seq metrics besides its layers;
    `saving.load_model` registers them all, even when nothing of keras-seq
    was imported before it."""
    import subprocess
    import sys

    from keras_seq import metrics
    from keras_seq.layers import SCRBM

    inputs = keras.Input((None, 3))
    model = keras.Model(inputs, SCRBM(4, 5)(inputs))
    model.compile(
        "adam", "sparse_categorical_crossentropy", metrics=[metrics.SequenceLabellingError(), metrics.BitsPerEvent()]
    )
    x, y = np.ones((2, 6, 3), "float32"), np.zeros((2, 6), "int64")
    model.fit(x, y, verbose=0)
    path = str(tmp_path / "zoo_model.keras")
    model.save(path)
    code = (
        f"import sys\nfrom keras_seq import saving\nmodel = saving.load_model({path!r})\nprint(type(model).__name__)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and result.stdout.strip() == "Functional", result.stderr[-2000:]
