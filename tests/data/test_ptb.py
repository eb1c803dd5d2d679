"""keras_seq.data.ptb on the real Penn Treebank files (the `shared_data_dir` fixture).

Each file is parsed at most once per session: loads are module-scoped
fixtures, and parse_cache memoises parses in memory.
"""

import os

import numpy as np
import pytest

from keras_seq.data import files
from keras_seq.data import load_arrays
from keras_seq.data import text_files
from keras_seq.data import text_vocabularies

_SPLITS = ("train", "valid", "test")


@pytest.fixture(scope="module")
def ptb_word(shared_data_dir):
    return {s: load_arrays("ptb_word", s, shared_data_dir) for s in _SPLITS}


@pytest.fixture(scope="module")
def ptb_char(shared_data_dir):
    return {s: load_arrays("ptb_char", s, shared_data_dir) for s in _SPLITS}


def _check_stream(seqs, n_tokens, vocab_size):
    assert len(seqs) == 1 and len(seqs.targets) == 1
    x, y = seqs.inputs[0], seqs.targets[0]
    assert x.dtype == np.int32 and y.dtype == np.int32
    assert x.shape == y.shape == (n_tokens - 1,)
    np.testing.assert_array_equal(x[1:], y[:-1])
    assert x.min() >= 0 and max(x.max(), y.max()) < vocab_size
    return np.concatenate([x, y[-1:]])


def test_ptb_word(ptb_word, shared_data_dir):
    vocab = text_vocabularies.vocabulary("ptb_word", shared_data_dir)
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


def test_ptb_char(ptb_char, shared_data_dir):
    vocab = text_vocabularies.vocabulary("ptb_char", shared_data_dir)
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


def test_ptb_char_derived_from_word_files(ptb_char, shared_data_dir, tmp_path, monkeypatch):
    # Only the word-level files (symlinked, not copied): ptb_char derives
    # the same streams from them.
    monkeypatch.delenv(files.ENV_VAR, raising=False)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    (tmp_path / "ptb").mkdir()
    for split in _SPLITS:
        real = os.path.abspath(os.path.join(shared_data_dir, "ptb", f"ptb.{split}.txt"))
        os.symlink(real, tmp_path / "ptb" / f"ptb.{split}.txt")
    derived_vocab = text_vocabularies.vocabulary("ptb_char", tmp_path)
    assert derived_vocab == text_vocabularies.vocabulary("ptb_char", shared_data_dir)
    derived = load_arrays("ptb_char", "valid", tmp_path)
    np.testing.assert_array_equal(derived.inputs[0], ptb_char["valid"].inputs[0])
    np.testing.assert_array_equal(derived.targets[0], ptb_char["valid"].targets[0])


def test_missing_char_and_word_files(tmp_path, monkeypatch):
    monkeypatch.delenv(files.ENV_VAR, raising=False)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    monkeypatch.setattr(text_files, "URL", {})
    with pytest.raises(FileNotFoundError, match=r"ptb\.char\.train\.txt") as error:
        load_arrays("ptb_char", "valid", tmp_path)
    assert "ptb/ptb.train.txt" in str(error.value)
