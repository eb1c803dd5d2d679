"""keras_seq.data.treebank on hand-written bracketed trees and zips."""

import zipfile

import pytest

from keras_seq.data import treebank


def _write_treebank(path, mrg_text):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("treebank/combined/wsj_0001.mrg", mrg_text)
    return path


_TREE = "( (S (NP (NN dog)) (VP (VBZ barks))) )\n"


def test_tree_reader():
    trees = treebank.read_trees("( (S (NP-SBJ (-NONE- *)) (NP (DT The) (NN dog)) (. .)) )\n")
    assert len(trees) == 1
    assert treebank.tree_leaves(trees[0]) == [
        ("*", "-NONE-"),
        ("The", "DT"),
        ("dog", "NN"),
        (".", "."),
    ]


def test_treebank_zip_drops_none_leaves(tmp_path):
    mrg = _TREE + "( (S (NP-SBJ (-NONE- *)) (NP (DT The) (NN cat))) )\n"
    path = _write_treebank(tmp_path / "treebank.zip", mrg)
    assert treebank.read_treebank(path) == [
        (1, ("dog", "barks"), ("NN", "VBZ")),
        (1, ("The", "cat"), ("DT", "NN")),
    ]


@pytest.mark.parametrize(
    "mrg, line, message",
    [
        (_TREE + "( (S\n  (NP (NN cat)) ))\n)\n", 4, r"unbalanced '\)'"),
        (_TREE + "\n( (S\n (NN cat)\n", 3, r"unbalanced '\(' never closed"),
        (_TREE + "stray\n", 2, "outside"),
        ("( (S (NP (NN dog) cat) ) )\n", 1, "malformed"),
    ],
)
def test_malformed_tree(tmp_path, mrg, line, message):
    path = _write_treebank(tmp_path / "treebank.zip", mrg)
    with pytest.raises(ValueError, match=message) as error:
        treebank.read_treebank(path)
    assert f"{path}:treebank/combined/wsj_0001.mrg" in str(error.value)
    assert f"line {line}:" in str(error.value)


def test_zip_without_trees(tmp_path):
    path = tmp_path / "empty.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("README", "no trees")
    with pytest.raises(ValueError, match="no treebank/combined/wsj_NNNN.mrg members"):
        treebank.read_treebank(path)


def test_oversized_member_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = _write_treebank(tmp_path / "treebank.zip", _TREE * 50)
    monkeypatch.setattr(treebank, "MAX_MEMBER_BYTES", 100)
    with pytest.raises(ValueError, match=r"wsj_0001.mrg: [\d,]+ bytes, more than the 100"):
        treebank.read_treebank(path)
