"""`import keras_seq` registers every object a saved keras-seq model needs,
in any import order: a zoo model (with keras-seq's metrics) loads in a
process that imports only `keras_seq` and `keras`."""

import os
import subprocess
import sys

import keras
import pytest

from keras_seq.zoo import recipes
from keras_seq.zoo import train


@pytest.fixture(scope="module")
def saved_zoo_model(tmp_path_factory):
    (_, predictor), _ = train.build(recipes.get("jsb_chorales_lmn_b"), quick=True)
    path = str(tmp_path_factory.mktemp("model") / "model.keras")
    predictor.save(path)
    return path


@pytest.mark.parametrize(
    "imports", ["import keras_seq, keras", "import keras, keras_seq", "import keras_seq; import keras"]
)
def test_a_zoo_model_loads_after_importing_keras_seq_and_keras_in_any_order(imports, saved_zoo_model):
    script = (
        f"{imports}\n"
        "import numpy as np\n"
        f"model = keras.saving.load_model({saved_zoo_model!r})\n"
        "scores = model.evaluate(np.zeros((2, 5, 88)), np.zeros((2, 5, 88)), return_dict=True, verbose=0)\n"
        "print(sorted(scores))\n"
    )
    env = {**os.environ, "KERAS_BACKEND": keras.backend.backend(), "TF_CPP_MIN_LOG_LEVEL": "3"}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "frame_accuracy" in result.stdout


def test_importing_keras_seq_alone_does_not_import_keras():
    script = "import sys, keras_seq; print('keras' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "False", result.stderr[-2000:]
