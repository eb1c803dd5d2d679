"""bench/unseen_word_errors.py (the WSJ POS note's numbers) splits a test
error into words seen and unseen in training, counting every real token once."""

import importlib

import numpy as np

import keras_seq.data as data
from keras_seq.zoo import recipes


class _Constant:
    """A labeller that tags every token with one class."""

    def __init__(self, label, classes):
        self.label, self.classes = label, classes

    def predict_on_batch(self, x):
        scores = np.zeros(np.shape(x) + (self.classes,), "float32")
        scores[..., self.label] = 1.0
        return scores


def _expected(recipe, label, data_dir):
    """The split counted from the raw arrays, token by token."""
    options = recipe.data_options
    seen = {
        int(t)
        for x in data.load_arrays(recipe.dataset, recipe.train_split, data_dir=data_dir, **options).inputs
        for t in np.ravel(x)
    }
    test = data.load_arrays(recipe.dataset, "test", data_dir=data_dir, **options)
    counts = {"seen": [0, 0], "unseen": [0, 0]}
    for x, y in zip(test.inputs, test.targets):
        for token, tag in zip(np.ravel(x), np.ravel(y)):
            group = counts["seen" if int(token) in seen else "unseen"]
            group[0] += int(tag != label)
            group[1] += 1
    return {name: tuple(value) for name, value in counts.items()}


def test_error_split_counts_each_test_token_once_by_whether_training_saw_it(shared_data_dir, capsys, monkeypatch):
    script = importlib.import_module("bench.unseen_word_errors")
    recipe = recipes.get("wsj_pos_2000_scrbm")  # teacher-forced: the predictor's inputs are taken apart
    classes = data.info(recipe.dataset).num_classes
    for label in (0, 3):
        split = script.error_split(recipe, _Constant(label, classes), shared_data_dir)
        assert split == _expected(recipe, label, shared_data_dir)
    (_, seen), (_, unseen) = split["seen"], split["unseen"]
    assert seen > 0 and unseen > 0

    monkeypatch.setattr(script.saving, "load_model", lambda path: _Constant(3, classes))
    monkeypatch.setattr(
        "sys.argv", ["unseen_word_errors.py", recipe.name, "model.keras", "--data-dir", shared_data_dir]
    )
    script.main()
    out = capsys.readouterr().out
    assert f"{seen + unseen} test tokens, {100 * unseen / (seen + unseen):.1f} % unseen in training" in out
