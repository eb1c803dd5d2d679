"""keras_seq.data.text on the real benchmark files in shared/data.

Each file is parsed at most once per session: loads are module-scoped
fixtures, and text.py memoises parses in memory.
"""

import ast
import os
import zipfile

import numpy as np
import pytest

from keras_seq.data import files
from keras_seq.data import registry
from keras_seq.data import text

TEXT_NAMES = ("conll2000_chunking", "wsj_pos", "ptb_word", "ptb_char")


@pytest.fixture(scope="module")
def data_dir():
    # Same folder as conftest's (function-scoped) `shared_data_dir`.
    path = os.environ.get(
        "KERAS_SEQ_SHARED_DATA",
        os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"),
    )
    if not os.path.isdir(path):
        pytest.fail(f"benchmark data not found at {os.path.abspath(path)}")
    return path


def test_shared_data_dir_matches(shared_data_dir, data_dir):
    assert os.path.samefile(shared_data_dir, data_dir)


def _load(name, split, data_dir, **options):
    return registry.get(name).load(split, data_dir=data_dir, **options)


@pytest.fixture(scope="module")
def conll(data_dir):
    return {s: _load("conll2000_chunking", s, data_dir) for s in _CONLL_COUNTS}


@pytest.fixture(scope="module")
def wsj(data_dir):
    return {s: _load("wsj_pos", s, data_dir) for s in ("train", "valid", "test")}


@pytest.fixture(scope="module")
def ptb_word(data_dir):
    return {s: _load("ptb_word", s, data_dir) for s in ("train", "valid", "test")}


@pytest.fixture(scope="module")
def ptb_char(data_dir):
    return {s: _load("ptb_char", s, data_dir) for s in ("train", "valid", "test")}


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


# --------------------------------------------------------------------------
# Registry entries.


def test_registered(data_dir):
    for name in TEXT_NAMES:
        assert name in registry.names()
    info = {n: registry.get(n).info for n in TEXT_NAMES}
    assert info["conll2000_chunking"].task == "labelling"
    assert info["wsj_pos"].task == "labelling"
    assert info["ptb_word"].task == info["ptb_char"].task == "next_token"
    assert info["conll2000_chunking"].num_classes == 23
    assert info["wsj_pos"].num_classes == 45
    assert info["ptb_word"].vocabulary_size == info["ptb_word"].num_classes == 10000
    assert info["ptb_char"].vocabulary_size == info["ptb_char"].num_classes == 50
    for name in TEXT_NAMES:
        assert info[name].input_dtype == "int32"
        assert len(text.vocabulary(name, data_dir)) == info[name].vocabulary_size
        for f in info[name].files:
            assert f in text._SHA256


def test_text_module_is_numpy_only():
    with open(text.__file__) as f:
        tree = ast.parse(f.read())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module)
    assert imported <= {
        "collections", "os", "re", "zipfile", "numpy", "keras_seq.data",
    }, imported


def test_unknown_split_and_option(data_dir):
    with pytest.raises(ValueError, match="no split"):
        _load("ptb_word", "dev", data_dir)
    with pytest.raises(ValueError, match="no split"):
        _load("conll2000_chunking", "valid_x", data_dir)
    with pytest.raises(TypeError):
        _load("ptb_word", "valid", data_dir, lowercase=True)
    with pytest.raises(ValueError, match="features"):
        _load("conll2000_chunking", "test", data_dir, features="chars")


# --------------------------------------------------------------------------
# CoNLL-2000.

_CONLL_COUNTS = {  # sentences, tokens
    "train": (8936, 211727),
    "test": (2012, 47377),
    "train_minus_valid": (8042, 190717),
    "valid": (894, 21010),
}


def test_conll_counts_shapes_ids(conll, data_dir):
    info = registry.get("conll2000_chunking").info
    vocab = text.vocabulary("conll2000_chunking", data_dir)
    assert vocab[:2] == ["<pad>", "<oov>"] and len(vocab) == info.vocabulary_size
    for split, (n_sent, n_tok) in _CONLL_COUNTS.items():
        seqs = conll[split]
        assert len(seqs) == n_sent == info.splits[split]
        assert int(seqs.lengths().sum()) == n_tok
        _check_labelling(seqs, len(vocab), 23)
    # valid is the tail of train, train_minus_valid the head.
    train = conll["train"]
    assert all(
        np.array_equal(a, b)
        for a, b in zip(train.inputs, conll["train_minus_valid"].inputs + conll["valid"].inputs)
    )
    # The vocabulary covers all of train: no OOV there, some in test.
    train_ids, _ = _check_labelling(train, len(vocab), 23)
    assert not np.any(train_ids == 1)
    assert len(np.unique(train_ids)) == len(vocab) - 2
    test_ids = np.concatenate(conll["test"].inputs)
    assert 0 < np.mean(test_ids == 1) < 0.1


def test_conll_test_oov_words_are_unseen(conll, data_dir):
    train_words = {w for s in text._conll_file("train", data_dir) for w in s[0]}
    test_sents = text._conll_file("test", data_dir)  # memoised read_conll
    vocab = text.vocabulary("conll2000_chunking", data_dir)
    for sent, ids in zip(test_sents[:300], conll["test"].inputs[:300]):
        for word, i in zip(sent[0], ids):
            if word in train_words:
                assert vocab[i] == word
            else:
                assert i == 1


def test_conll_chunk_tags(conll):
    tags = text.class_names("conll2000_chunking")
    assert len(tags) == 23 and tags == sorted(tags)
    assert tags[-1] == "O" and {t[2:] for t in tags if t != "O"} == {
        "ADJP", "ADVP", "CONJP", "INTJ", "LST", "NP", "PP", "PRT", "SBAR", "UCP", "VP",
    }
    train_tags = {tags[i] for i in np.unique(np.concatenate(conll["train"].targets))}
    test_tags = {tags[i] for i in np.unique(np.concatenate(conll["test"].targets))}
    assert len(train_tags) == 22 and set(tags) - train_tags == {"I-LST"}
    assert "I-LST" in test_tags
    # First training sentence: "Confidence NN B-NP", "in IN B-PP".
    y = conll["train"].targets[0]
    assert tags[y[0]] == "B-NP" and tags[y[1]] == "B-PP"


def test_conll_words_pos_features(conll, data_dir):
    seqs = _load("conll2000_chunking", "test", data_dir, features="words+pos")
    pos_vocab = text.pos_vocabulary(data_dir)
    assert pos_vocab[:2] == ["<pad>", "<oov>"] and len(pos_vocab) == 2 + 44
    assert len(seqs) == 2012
    for x, x_words, y in zip(seqs.inputs, conll["test"].inputs, seqs.targets):
        assert x.dtype == np.int32 and x.shape == (len(y), 2)
        np.testing.assert_array_equal(x[:, 0], x_words)
    pos = np.concatenate([x[:, 1] for x in seqs.inputs])
    assert pos.min() >= 1 and pos.max() < len(pos_vocab)
    first = seqs.inputs[0]  # "Rockwell NNP B-NP"
    assert pos_vocab[first[0, 1]] == "NNP"


def test_conll_lowercase_min_count_and_valid_vocabulary(conll, data_dir):
    vocab = text.vocabulary("conll2000_chunking", data_dir)
    lower = text.vocabulary("conll2000_chunking", data_dir, lowercase=True)
    assert len(lower) < len(vocab)
    assert all(w == w.lower() for w in lower[2:])
    seqs = _load("conll2000_chunking", "valid", data_dir, lowercase=True)
    assert [len(x) for x in seqs.inputs] == list(conll["valid"].lengths())
    frequent = text.vocabulary("conll2000_chunking", data_dir, min_count=2)
    assert 2 < len(frequent) < len(vocab)
    train2 = np.concatenate(_load("conll2000_chunking", "train", data_dir, min_count=2).inputs)
    assert np.any(train2 == 1)  # singletons map to OOV
    # Model selection: vocabulary from train_minus_valid, so valid has OOV words.
    opts = dict(vocabulary_from="train_minus_valid")
    head = np.concatenate(_load("conll2000_chunking", "train_minus_valid", data_dir, **opts).inputs)
    valid = np.concatenate(_load("conll2000_chunking", "valid", data_dir, **opts).inputs)
    small = text.vocabulary("conll2000_chunking", data_dir, **opts)
    assert len(small) < len(vocab) and not np.any(head == 1)
    assert 0 < np.mean(valid == 1) < 0.1
    assert not np.any(np.concatenate(conll["valid"].inputs) == 1)


# --------------------------------------------------------------------------
# WSJ POS sample.

_WSJ_COUNTS = {"train": (3396, 81793), "valid": (273, 6327), "test": (245, 5964)}


def test_wsj_corpus_counts(wsj, data_dir):
    _, sentences = text._wsj_sentences(data_dir)  # memoised read_treebank
    assert len({s[0] for s in sentences}) == 199
    assert len(sentences) == 3914
    assert sum(len(s[1]) for s in sentences) == 94084
    assert not any("-NONE-" in s[2] for s in sentences)
    assert sentences[0][1][:2] == ("Pierre", "Vinken") and sentences[0][2][:2] == ("NNP", "NNP")
    assert sum(len(wsj[s]) for s in wsj) == 3914


def test_wsj_splits_shapes_ids(wsj, data_dir):
    info = registry.get("wsj_pos").info
    vocab = text.vocabulary("wsj_pos", data_dir)
    tags = text.class_names("wsj_pos", data_dir)
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


def test_wsj_reduced_training_sizes(wsj, data_dir):
    for n in (500, 1000, 2000):
        seqs = _load("wsj_pos", "train", data_dir, train_sentences=n)
        assert len(seqs) == n
        for a, b in zip(seqs.inputs, wsj["train"].inputs[:n]):
            np.testing.assert_array_equal(a, b)
    full = _load("wsj_pos", "train", data_dir, train_sentences=None)
    assert len(full) == 3396
    # Ignored outside train, so one option set serves every split.
    assert len(_load("wsj_pos", "test", data_dir, train_sentences=500)) == 245
    for bad in (0, 3397, 2.5, True):
        with pytest.raises(ValueError, match="train_sentences"):
            _load("wsj_pos", "train", data_dir, train_sentences=bad)


# --------------------------------------------------------------------------
# PTB language modelling.


def _check_stream(seqs, n_tokens, vocab_size):
    assert len(seqs) == 1 and len(seqs.targets) == 1
    x, y = seqs.inputs[0], seqs.targets[0]
    assert x.dtype == np.int32 and y.dtype == np.int32
    assert x.shape == y.shape == (n_tokens - 1,)
    np.testing.assert_array_equal(x[1:], y[:-1])
    assert x.min() >= 0 and max(x.max(), y.max()) < vocab_size
    return np.concatenate([x, y[-1:]])


def test_ptb_word(ptb_word, data_dir):
    vocab = text.vocabulary("ptb_word", data_dir)
    assert len(vocab) == 10000 and len(set(vocab)) == 10000
    assert {"<eos>", "<unk>", "the", "N"} <= set(vocab)
    eos = vocab.index("<eos>")
    for split, n_tok, n_lines in (
        ("train", 929589, 42068),
        ("valid", 73760, 3370),
        ("test", 82430, 3761),
    ):
        stream = _check_stream(ptb_word[split], n_tok, 10000)
        assert np.sum(stream == eos) == n_lines and stream[-1] == eos
    train = np.concatenate([ptb_word["train"].inputs[0], ptb_word["train"].targets[0][-1:]])
    assert len(np.unique(train)) == 10000
    assert " ".join(vocab[i] for i in train[:3]) == "aer banknote berlitz"


def test_ptb_char(ptb_char, data_dir):
    vocab = text.vocabulary("ptb_char", data_dir)
    assert len(vocab) == 50 and "<eos>" in vocab and "_" in vocab
    assert all(len(s) == 1 for s in vocab if s != "<eos>")  # 49 symbols + <eos>
    eos = vocab.index("<eos>")
    for split, n_chars, n_lines in (
        ("train", 4975414, 42068),
        ("valid", 389672, 3370),
        ("test", 438662, 3761),
    ):
        stream = _check_stream(ptb_char[split], n_chars + n_lines, 50)
        assert np.sum(stream == eos) == n_lines
    first = ptb_char["train"].inputs[0][:12]
    assert "".join(vocab[i] for i in first) == "aer_banknote"


def test_ptb_char_derived_from_word_files(ptb_char, data_dir, tmp_path, monkeypatch):
    # Only the word-level files (symlinked, not copied): ptb_char derives
    # the same streams from them.
    monkeypatch.delenv(files.ENV_VAR, raising=False)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    (tmp_path / "ptb").mkdir()
    for split in ("train", "valid", "test"):
        real = os.path.abspath(os.path.join(data_dir, "ptb", f"ptb.{split}.txt"))
        os.symlink(real, tmp_path / "ptb" / f"ptb.{split}.txt")
    assert text.vocabulary("ptb_char", tmp_path) == text.vocabulary("ptb_char", data_dir)
    derived = _load("ptb_char", "valid", tmp_path)
    np.testing.assert_array_equal(derived.inputs[0], ptb_char["valid"].inputs[0])
    np.testing.assert_array_equal(derived.targets[0], ptb_char["valid"].targets[0])


# --------------------------------------------------------------------------
# Bad and missing files.


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """No env data folder, an empty Keras cache, and no checksums, so that
    hand-written files in tmp_path are read."""
    monkeypatch.delenv(files.ENV_VAR, raising=False)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    monkeypatch.setattr(text, "_SHA256", {})
    monkeypatch.setattr(text, "_URL", {})
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
        _load("conll2000_chunking", "train", isolated)
    assert str(path) in str(error.value) and "line 4" in str(error.value)


def test_conll_small_file_parses(isolated):
    _write(isolated / "conll2000" / "train.txt", "A DT B-NP\ncat NN I-NP\n\nsat VBD B-VP\n")
    _write(isolated / "conll2000" / "test.txt", "A DT B-NP\ndog NN I-NP\n")
    assert text.vocabulary("conll2000_chunking", isolated) == ["<pad>", "<oov>", "A", "cat", "sat"]
    seqs = _load("conll2000_chunking", "test", isolated)
    np.testing.assert_array_equal(seqs.inputs[0], [2, 1])
    tags = text.class_names("conll2000_chunking")
    assert [tags[i] for i in seqs.targets[0]] == ["B-NP", "I-NP"]


def _write_treebank(path, mrg_text):
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("treebank/combined/wsj_0001.mrg", mrg_text)
    return path


_TREE = "( (S (NP (NN dog)) (VP (VBZ barks))) )\n"


@pytest.mark.parametrize(
    "mrg, line, message",
    [
        (_TREE + "( (S\n  (NP (NN cat)) ))\n)\n", 4, r"unbalanced '\)'"),
        (_TREE + "\n( (S\n (NN cat)\n", 3, r"unbalanced '\(' never closed"),
        (_TREE + "stray\n", 2, "outside"),
        ("( (S (NP (NN dog) cat) ) )\n", 1, "malformed"),
    ],
)
def test_wsj_malformed_tree(isolated, mrg, line, message):
    path = _write_treebank(isolated / "ptb_wsj_pos_sample" / "treebank.zip", mrg)
    with pytest.raises(ValueError, match=message) as error:
        _load("wsj_pos", "train", isolated)
    assert f"{path}:treebank/combined/wsj_0001.mrg" in str(error.value)
    assert f"line {line}:" in str(error.value)


def test_tree_reader():
    trees = text.read_trees("( (S (NP-SBJ (-NONE- *)) (NP (DT The) (NN dog)) (. .)) )\n")
    assert len(trees) == 1
    assert text.tree_leaves(trees[0]) == [("*", "-NONE-"), ("The", "DT"), ("dog", "NN"), (".", ".")]


def test_checksum_mismatch(tmp_path, monkeypatch):
    monkeypatch.delenv(files.ENV_VAR, raising=False)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    _write(tmp_path / "conll2000" / "train.txt", "A DT B-NP\n")
    with pytest.raises(ValueError, match="Checksum mismatch"):
        _load("conll2000_chunking", "train", tmp_path)


def test_missing_file(tmp_path, monkeypatch):
    monkeypatch.delenv(files.ENV_VAR, raising=False)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    with pytest.raises(FileNotFoundError, match="conll2000/test.txt"):
        _load("conll2000_chunking", "test", tmp_path)
    monkeypatch.setattr(text, "_URL", {})
    with pytest.raises(FileNotFoundError, match=r"ptb\.char\.train\.txt") as error:
        _load("ptb_char", "valid", tmp_path)
    assert "ptb/ptb.train.txt" in str(error.value)
