"""The layers need keras + numpy + one backend: never TensorFlow."""

import os
import subprocess
import sys

import keras

CODE = """
import sys
sys.modules["tensorflow"] = None  # as if not installed: importing it fails
import numpy as np, keras, keras_seq
x = np.ones((2, 5, 3), "float32")
for layer in (
    keras.layers.RNN(keras_seq.SCRBMCell(4, 3), return_sequences=True),
    keras.layers.RNN(keras_seq.LinearMemoryCell(4, 6), return_sequences=True),
    keras.layers.RNN(keras_seq.LinearMemoryCell(4, 6, memory_recurrent_constraint=keras_seq.MaxSpectralNorm()),
                     return_sequences=True),
    keras_seq.TrellisBlock(8, 4, num_levels=3),
):
    assert layer(x).shape[:2] == (2, 5), layer
from keras_seq.pretraining import LinearAutoencoder
LinearAutoencoder(2).fit([np.random.rand(6, 3)])
assert abs(np.linalg.svd(keras.ops.convert_to_numpy(keras_seq.MaxSpectralNorm(1.0)(3 * np.eye(3))))[1][0] - 1) < 1e-5
assert sys.modules["tensorflow"] is None
print("ok", keras.backend.backend())
"""


def test_layers_import_and_run_without_tensorflow():
    backend = keras.backend.backend()
    env = dict(os.environ, KERAS_BACKEND="numpy" if backend == "tensorflow" else backend)
    result = subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.startswith("ok")
