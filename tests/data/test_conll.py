"""keras_seq.data.conll on the real CoNLL-2000 files (the `shared_data_dir`
fixture), plus hand-written files for the parser's errors and the file lookup.

Each file is parsed at most once per session: loads are module-scoped
fixtures, and parse_cache memoises parses in memory.
"""

import numpy as np
import pytest

from keras_seq.data import conll
from keras_seq.data import files
from keras_seq.data import load_arrays
from keras_seq.data import registry
from keras_seq.data import text_files
from keras_seq.data import text_vocabularies

_CONLL_COUNTS = {  # sentences, tokens
    "train": (8936, 211727),
    "test": (2012, 47377),
    "train_minus_valid": (8042, 190717),
    "valid": (894, 21010),
}


@pytest.fixture(scope="module")
def conll_splits(shared_data_dir):
    return {s: load_arrays("conll2000_chunking", s, shared_data_dir) for s in _CONLL_COUNTS}


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


def test_conll_counts_shapes_ids(conll_splits, shared_data_dir):
    info = registry.get("conll2000_chunking").info
    vocab = text_vocabularies.vocabulary("conll2000_chunking", shared_data_dir)
    assert vocab[:2] == ["<pad>", "<oov>"] and len(vocab) == info.vocabulary_size
    for split, (n_sent, n_tok) in _CONLL_COUNTS.items():
        seqs = conll_splits[split]
        assert len(seqs) == n_sent == info.splits[split]
        assert int(seqs.lengths().sum()) == n_tok
        _check_labelling(seqs, len(vocab), 23)
    # valid is the tail of train, train_minus_valid the head.
    train = conll_splits["train"]
    assert all(
        np.array_equal(a, b)
        for a, b in zip(
            train.inputs,
            conll_splits["train_minus_valid"].inputs + conll_splits["valid"].inputs,
        )
    )
    # The vocabulary covers all of train: no OOV there, some in test.
    train_ids, _ = _check_labelling(train, len(vocab), 23)
    assert not np.any(train_ids == 1)
    assert len(np.unique(train_ids)) == len(vocab) - 2
    test_ids = np.concatenate(conll_splits["test"].inputs)
    assert 0 < np.mean(test_ids == 1) < 0.1


def test_conll_test_oov_words_are_unseen(conll_splits, shared_data_dir):
    train_words = {w for s in conll._file_sentences("train", shared_data_dir) for w in s[0]}
    test_sents = conll._file_sentences("test", shared_data_dir)  # memoised read_conll
    vocab = text_vocabularies.vocabulary("conll2000_chunking", shared_data_dir)
    for sent, ids in zip(test_sents[:300], conll_splits["test"].inputs[:300]):
        for word, i in zip(sent[0], ids):
            if word in train_words:
                assert vocab[i] == word
            else:
                assert i == 1


def test_conll_chunk_tags(conll_splits):
    tags = text_vocabularies.class_names("conll2000_chunking")
    assert tags == list(conll.CONLL2000_CHUNK_TAGS)
    assert len(tags) == 23 and tags == sorted(tags)
    assert tags[-1] == "O" and {t[2:] for t in tags if t != "O"} == {
        "ADJP",
        "ADVP",
        "CONJP",
        "INTJ",
        "LST",
        "NP",
        "PP",
        "PRT",
        "SBAR",
        "UCP",
        "VP",
    }
    train_tags = {tags[i] for i in np.unique(np.concatenate(conll_splits["train"].targets))}
    test_tags = {tags[i] for i in np.unique(np.concatenate(conll_splits["test"].targets))}
    assert len(train_tags) == 22 and set(tags) - train_tags == {"I-LST"}
    assert "I-LST" in test_tags
    # First training sentence: "Confidence NN B-NP", "in IN B-PP".
    y = conll_splits["train"].targets[0]
    assert tags[y[0]] == "B-NP" and tags[y[1]] == "B-PP"


def test_conll_words_pos_features(conll_splits, shared_data_dir):
    seqs = load_arrays("conll2000_chunking", "test", shared_data_dir, features="words+pos")
    pos_vocab = text_vocabularies.pos_vocabulary(shared_data_dir)
    assert pos_vocab[:2] == ["<pad>", "<oov>"] and len(pos_vocab) == 2 + 44
    assert len(seqs) == 2012
    for x, x_words, y in zip(seqs.inputs, conll_splits["test"].inputs, seqs.targets):
        assert x.dtype == np.int32 and x.shape == (len(y), 2)
        np.testing.assert_array_equal(x[:, 0], x_words)
    pos = np.concatenate([x[:, 1] for x in seqs.inputs])
    assert pos.min() >= 1 and pos.max() < len(pos_vocab)
    first = seqs.inputs[0]  # "Rockwell NNP B-NP"
    assert pos_vocab[first[0, 1]] == "NNP"


def test_conll_lowercase_min_count_and_valid_vocabulary(conll_splits, shared_data_dir):
    def vocabulary(**options):
        return text_vocabularies.vocabulary("conll2000_chunking", shared_data_dir, **options)

    def ids(split, **options):
        return load_arrays("conll2000_chunking", split, shared_data_dir, **options)

    vocab = vocabulary()
    lower = vocabulary(lowercase=True)
    assert len(lower) < len(vocab)
    assert all(w == w.lower() for w in lower[2:])
    seqs = ids("valid", lowercase=True)
    assert [len(x) for x in seqs.inputs] == list(conll_splits["valid"].lengths())
    frequent = vocabulary(min_count=2)
    assert 2 < len(frequent) < len(vocab)
    train2 = np.concatenate(ids("train", min_count=2).inputs)
    assert np.any(train2 == 1)  # singletons map to OOV
    # Model selection: vocabulary from train_minus_valid, so valid has OOV words.
    opts = dict(vocabulary_from="train_minus_valid")
    head = np.concatenate(ids("train_minus_valid", **opts).inputs)
    valid = np.concatenate(ids("valid", **opts).inputs)
    small = vocabulary(**opts)
    assert len(small) < len(vocab) and not np.any(head == 1)
    assert 0 < np.mean(valid == 1) < 0.1
    assert not np.any(np.concatenate(conll_splits["valid"].inputs) == 1)


# --------------------------------------------------------------------------
# Hand-written and missing files.


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """No env data folder, an empty Keras cache, and no checksums, so that
    hand-written files in tmp_path are read."""
    monkeypatch.delenv(files.ENV_VAR, raising=False)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    monkeypatch.setattr(text_files, "SHA256", {})
    monkeypatch.setattr(text_files, "URL", {})
    return tmp_path


def _write(path, content):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    return path


@pytest.mark.parametrize(
    "bad_line, message",
    [
        ("in IN", "expected 3"),
        ("in IN B-PP extra", "expected 3"),
        ("in IN B-XX", "unknown chunk tag"),
    ],
)
def test_conll_malformed_line(isolated, bad_line, message):
    good = "Confidence NN B-NP\n\nThe DT B-NP\n"
    path = _write(isolated / "conll2000" / "train.txt", good + bad_line + "\n")
    with pytest.raises(ValueError, match=message) as error:
        load_arrays("conll2000_chunking", "train", isolated)
    assert str(path) in str(error.value) and "line 4" in str(error.value)


def test_conll_small_file_parses(isolated):
    _write(isolated / "conll2000" / "train.txt", "A DT B-NP\ncat NN I-NP\n\nsat VBD B-VP\n")
    _write(isolated / "conll2000" / "test.txt", "A DT B-NP\ndog NN I-NP\n")
    assert conll.read_conll(isolated / "conll2000" / "test.txt") == [(("A", "dog"), ("DT", "NN"), ("B-NP", "I-NP"))]
    vocab = text_vocabularies.vocabulary("conll2000_chunking", isolated)
    assert vocab == ["<pad>", "<oov>", "A", "cat", "sat"]
    seqs = load_arrays("conll2000_chunking", "test", isolated)
    np.testing.assert_array_equal(seqs.inputs[0], [2, 1])
    tags = text_vocabularies.class_names("conll2000_chunking")
    assert [tags[i] for i in seqs.targets[0]] == ["B-NP", "I-NP"]


def test_checksum_mismatch(tmp_path, monkeypatch):
    monkeypatch.delenv(files.ENV_VAR, raising=False)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    _write(tmp_path / "conll2000" / "train.txt", "A DT B-NP\n")
    with pytest.raises(ValueError, match="Checksum mismatch"):
        load_arrays("conll2000_chunking", "train", tmp_path)


def test_missing_file(tmp_path, monkeypatch):
    monkeypatch.delenv(files.ENV_VAR, raising=False)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    with pytest.raises(FileNotFoundError, match="conll2000/test.txt"):
        load_arrays("conll2000_chunking", "test", tmp_path)


def test_conll_words_pos_features_through_the_pipeline(shared_data_dir):
    """`data.load` with `features="words+pos"`: (batch, time, 2) batches,
    the shape `data.info` gives for those options."""
    from keras_seq import data

    info = data.info("conll2000_chunking", features="words+pos")
    assert info.input_shape == (2,) and info.column_vocabulary_sizes == (info.vocabulary_size, 46)
    x, y, w = next(iter(data.load("conll2000_chunking", "test", shared_data_dir, batch_size=4, features="words+pos")))
    assert x.shape[0] == 4 and x.shape[2] == 2 and y.shape == x.shape[:2]
