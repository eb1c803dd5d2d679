"""keras_seq.data.wsj_pos on the real NLTK treebank sample (the `shared_data_dir` fixture).

The zip is parsed at most once per session: loads are module-scoped
fixtures, and parse_cache memoises parses in memory.
"""

import numpy as np
import pytest

from keras_seq.data import load_arrays
from keras_seq.data import registry
from keras_seq.data import text_vocabularies
from keras_seq.data import wsj_pos

_WSJ_COUNTS = {"train": (3396, 81793), "valid": (273, 6327), "test": (245, 5964)}


@pytest.fixture(scope="module")
def wsj(shared_data_dir):
    return {s: load_arrays("wsj_pos", s, shared_data_dir) for s in _WSJ_COUNTS}


def _check_labelling(seqs, vocab_size, num_classes):
    assert len(seqs.inputs) == len(seqs.targets)
    for x, y in zip(seqs.inputs, seqs.targets):
        assert x.dtype == np.int32 and y.dtype == np.int32
        assert x.ndim == 1 and y.shape == x.shape and len(x) > 0
    x = np.concatenate(seqs.inputs)
    y = np.concatenate(seqs.targets)
    assert x.min() >= 1 and x.max() < vocab_size  # 0 is padding only
    assert y.min() >= 0 and y.max() < num_classes
    return x, y


def test_wsj_corpus_counts(wsj, shared_data_dir):
    _, sentences = wsj_pos._sentences(shared_data_dir)  # memoised read_treebank
    assert len({s[0] for s in sentences}) == 199
    assert len(sentences) == 3914
    assert sum(len(s[1]) for s in sentences) == 94084
    assert not any("-NONE-" in s[2] for s in sentences)
    assert sentences[0][1][:2] == ("Pierre", "Vinken") and sentences[0][2][:2] == ("NNP", "NNP")
    assert sum(len(wsj[s]) for s in wsj) == 3914
    for split, (lo, hi) in wsj_pos.WSJ_SPLIT_FILES.items():
        assert len([s for s in sentences if lo <= s[0] <= hi]) == _WSJ_COUNTS[split][0]


def test_wsj_splits_shapes_ids(wsj, shared_data_dir):
    info = registry.get("wsj_pos").info
    vocab = text_vocabularies.vocabulary("wsj_pos", shared_data_dir)
    tags = text_vocabularies.class_names("wsj_pos", shared_data_dir)
    assert len(tags) == 45 == info.num_classes and tags == sorted(tags)
    assert "-NONE-" not in tags and "NN" in tags
    assert len(vocab) == info.vocabulary_size and vocab[:2] == ["<pad>", "<oov>"]
    for split, (n_sent, n_tok) in _WSJ_COUNTS.items():
        seqs = wsj[split]
        assert len(seqs) == n_sent == info.splits[split]
        assert int(seqs.lengths().sum()) == n_tok
        x, y = _check_labelling(seqs, len(vocab), 45)
        oov = np.mean(x == 1)
        if split == "train":
            assert oov == 0 and len(np.unique(y)) == 45
        else:
            assert 0.01 < oov < 0.2  # unseen words become OOV
    assert tags[wsj["train"].targets[0][0]] == "NNP"
    assert vocab[wsj["train"].inputs[0][0]] == "Pierre"


def test_wsj_reduced_training_sizes(wsj, shared_data_dir):
    for n in (500, 1000, 2000):
        seqs = load_arrays("wsj_pos", "train", shared_data_dir, train_sentences=n)
        assert len(seqs) == n
        for a, b in zip(seqs.inputs, wsj["train"].inputs[:n]):
            np.testing.assert_array_equal(a, b)
    full = load_arrays("wsj_pos", "train", shared_data_dir, train_sentences=None)
    assert len(full) == 3396
    # Ignored outside train, so one option set serves every split.
    assert len(load_arrays("wsj_pos", "test", shared_data_dir, train_sentences=500)) == 245
    for bad in (0, 3397, 2.5, True):
        with pytest.raises(ValueError, match="train_sentences"):
            load_arrays("wsj_pos", "train", shared_data_dir, train_sentences=bad)
