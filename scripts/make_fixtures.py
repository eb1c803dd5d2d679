"""Writes tests/fixtures/: a small saved `.keras` model per layer (SCRBM,
LMN, TrellisBlock) and TrellisNet, with an input batch and the predictions
of the version that saved them. tests/layers/test_saved_fixtures.py loads
them on every backend and asserts identical predictions, so that a later
change that breaks loading old files fails there.

    KERAS_BACKEND=tensorflow python scripts/make_fixtures.py

Run it only to add a fixture: rewriting the existing ones would hide
exactly the incompatibility the test exists to catch.
"""

import os

import keras
import numpy as np

from keras_seq.layers import LMN
from keras_seq.layers import SCRBM
from keras_seq.layers import TrellisBlock
from keras_seq.models import TrellisNet

FOLDER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "fixtures")


def models():
    """name -> (model, inputs)."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 6, 3)).astype("float32")

    def sequential(layer):
        return keras.Sequential([keras.Input((None, 3)), layer])

    return {
        "scrbm": (sequential(SCRBM(5, 4, dropout=0.1)), x),
        "lmn": (sequential(LMN(4, 6, output="memory", return_sequences=True)), x),
        "trellis_block": (sequential(TrellisBlock(8, 3, num_levels=4, dilations=(1, 2), weight_dropout=0.1)), x),
        "trellisnet": (
            TrellisNet(8, 4, 3, input_dim=3, num_outputs=5, return_sequences=False, dilations=(1, 2)),
            x,
        ),
    }


def main():
    keras.utils.set_random_seed(0)
    os.makedirs(FOLDER, exist_ok=True)
    for name, (model, x) in models().items():
        model.save(os.path.join(FOLDER, f"{name}.keras"))
        np.savez(os.path.join(FOLDER, f"{name}.npz"), inputs=x, predictions=keras.ops.convert_to_numpy(model(x)))
        print("wrote", name)


if __name__ == "__main__":
    main()
