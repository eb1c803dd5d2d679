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


def test_wsj_lexical_features(wsj, shared_data_dir):
    """`features="words+lexical"`: [word, last 2 letters, last 3 letters,
    shape] per word, vocabularies from train, sizes as `data.info` says."""
    from keras_seq import data
    from keras_seq.data import pipeline
    from keras_seq.data import tokens

    info = data.info("wsj_pos", features="words+lexical")
    assert info.input_shape == (4,) and data.info("wsj_pos").input_shape == ()
    suffixes = wsj_pos.suffix_vocabularies(shared_data_dir)
    assert info.column_vocabulary_sizes == (
        info.vocabulary_size,
        len(suffixes[2]),
        len(suffixes[3]),
        len(tokens.WORD_SHAPES) + 1,
    )
    _, sentences = wsj_pos._sentences(shared_data_dir)
    test_words = [s[1] for s in wsj_pos._split(sentences, "test")]
    for split in ("train", "test"):
        seqs = load_arrays("wsj_pos", split, shared_data_dir, features="words+lexical")
        pipeline.check_sequences(seqs, info)  # every column inside its vocabulary
        for x, x_words in zip(seqs.inputs, wsj[split].inputs):
            assert x.dtype == np.int32 and x.shape == (len(x_words), 4)
            np.testing.assert_array_equal(x[:, 0], x_words)
    words, x = test_words[0], seqs.inputs[0]
    for column, length in ((1, 2), (2, 3)):
        assert [suffixes[length][i] for i in x[:, column] if i > 1] == [
            w.lower()[-length:] for w, i in zip(words, x[:, column]) if i > 1
        ]
    # A test word never seen in training still has its suffix and shape.
    train_words = {w for s in wsj_pos._split(sentences, "train") for w in s[1]}
    unseen = [(w, row) for s, xs in zip(test_words, seqs.inputs) for w, row in zip(s, xs) if w not in train_words]
    assert unseen and all(row[0] == 1 and row[3] >= 1 for _, row in unseen)
    assert sum(row[2] > 1 for _, row in unseen) > 0.8 * len(unseen)
    with pytest.raises(ValueError, match="features must be 'words' or 'words\\+lexical'"):
        load_arrays("wsj_pos", "test", shared_data_dir, features="lexical")


@pytest.mark.parametrize(
    "word,shape",
    [
        ("the", "lowercase"),
        ("'s", "lowercase"),
        ("don't", "lowercase"),
        ("Pierre", "capitalised"),
        ("McDonald", "capitalised"),
        ("IBM", "all_caps"),
        ("U.S.", "all_caps"),
        ("1987", "has_digit"),
        ("3\\/4", "has_digit"),
        ("well-known", "has_hyphen"),
        (",", "punctuation"),
        ("--", "punctuation"),
        ("iPod", "other"),
    ],
)
def test_word_shapes(word, shape):
    from keras_seq.data import tokens

    assert tokens.WORD_SHAPES[tokens.word_shape(word) - 1] == shape
