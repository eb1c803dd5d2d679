"""The same seed gives the same metrics on the same backend, for every kind
of recipe: labelling (SCRBM, CNN), piano roll (RNN), pretrained LMN (its
randomized SVD is seeded), TrellisNet, counts. Two --quick runs of each in
this process; a third in a fresh process for the pretrained LMN, whose
repeatability across processes the main job relies on."""

import json
import os
import subprocess
import sys

import keras
import numpy as np
import pytest

from keras_seq.zoo import recipes
from keras_seq.zoo import registry
from keras_seq.zoo import train

KINDS = [
    "ocr_ms_scrbm",
    "conll2000_conv",
    "jsb_chorales_lstm",
    "jsb_chorales_lmn_b_pretrained",
    "adding_trellisnet",
    "bach_melodies_ngram",
]
CROSS_PROCESS = "jsb_chorales_lmn_b_pretrained"
REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def quick_metrics(name, data_dir, seed=0):
    record = train.run(recipes.get(name), data_dir=data_dir, quick=True, seed=seed, verbose=0)
    return record["test"]


@pytest.mark.parametrize("name", KINDS)
def test_the_same_seed_gives_the_same_metrics(name, shared_data_dir):
    first = quick_metrics(name, shared_data_dir)
    assert first == quick_metrics(name, shared_data_dir), name
    if registry.family(recipes.get(name).builder).saves_keras_model:  # counts have no seed
        assert first != quick_metrics(name, shared_data_dir, seed=1), name


def test_the_pretrained_lmn_repeats_in_a_fresh_process(shared_data_dir):
    code = (
        "import json, sys; from keras_seq.zoo import recipes, train; "
        f"r = train.run(recipes.get({CROSS_PROCESS!r}), data_dir=sys.argv[1], quick=True, seed=0, verbose=0); "
        "print(json.dumps(r['test']))"
    )
    environment = dict(os.environ, KERAS_BACKEND=keras.backend.backend(), TF_CPP_MIN_LOG_LEVEL="3")
    done = subprocess.run(
        [sys.executable, "-c", code, str(shared_data_dir)],
        cwd=REPOSITORY,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    fresh = json.loads(done.stdout.strip().splitlines()[-1])
    here = quick_metrics(CROSS_PROCESS, shared_data_dir)
    assert fresh.keys() == here.keys()
    np.testing.assert_equal(fresh, here)
