"""The text datasets together: their registry entries, the options every
loader checks, the modules' imports, and the `keras_seq.data.text`
compatibility names. Each dataset's own tests are in test_conll.py,
test_wsj_pos.py, test_ptb.py and test_treebank.py."""

import ast

import pytest

from keras_seq.data import conll
from keras_seq.data import load_arrays
from keras_seq.data import parse_cache
from keras_seq.data import ptb
from keras_seq.data import registry
from keras_seq.data import text
from keras_seq.data import text_files
from keras_seq.data import text_vocabularies
from keras_seq.data import tokens
from keras_seq.data import treebank
from keras_seq.data import wsj_pos

TEXT_NAMES = ("conll2000_chunking", "wsj_pos", "ptb_word", "ptb_char")
TEXT_MODULES = (
    conll,
    parse_cache,
    ptb,
    text,
    text_files,
    text_vocabularies,
    tokens,
    treebank,
    wsj_pos,
)


def test_registered(shared_data_dir):
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
        vocab = text_vocabularies.vocabulary(name, shared_data_dir)
        assert len(vocab) == info[name].vocabulary_size
        for f in info[name].files:
            assert f in text_files.SHA256


def test_text_modules_are_numpy_only():
    own = {m.__name__ for m in TEXT_MODULES} | {
        "keras_seq.data.files",
        "keras_seq.data.registry",
        "keras_seq.data.archives",
    }
    for module in TEXT_MODULES:
        with open(module.__file__) as f:
            tree = ast.parse(f.read())
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module == "keras_seq.data":
                imported.update(f"keras_seq.data.{a.name}" for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                imported.add(node.module)
        assert imported <= {"collections", "dataclasses", "os", "re", "zipfile", "numpy"} | own, (
            module.__name__,
            imported,
        )


def test_unknown_split_and_option(shared_data_dir):
    with pytest.raises(ValueError, match="no split"):
        load_arrays("ptb_word", "dev", shared_data_dir)
    with pytest.raises(ValueError, match="no split"):
        load_arrays("conll2000_chunking", "valid_x", shared_data_dir)
    with pytest.raises(TypeError):
        load_arrays("ptb_word", "valid", shared_data_dir, lowercase=True)
    with pytest.raises(ValueError, match="features"):
        load_arrays("conll2000_chunking", "test", shared_data_dir, features="chars")
    with pytest.raises(TypeError, match="unknown option"):
        text_vocabularies.vocabulary("wsj_pos", shared_data_dir, vocabulary_from="train")
    with pytest.raises(ValueError, match="not a text dataset"):
        text_vocabularies.vocabulary("jsb_chorales", shared_data_dir)
    with pytest.raises(ValueError, match="not a text dataset"):
        text_vocabularies.class_names("jsb_chorales", shared_data_dir)


def test_text_module_keeps_its_names():
    homes = {
        "CONLL2000_CHUNK_TAGS": conll,
        "CONLL2000_VALID_SENTENCES": conll,
        "read_conll": conll,
        "clear_cache": parse_cache,
        "class_names": text_vocabularies,
        "pos_vocabulary": text_vocabularies,
        "vocabulary": text_vocabularies,
        "EOS": tokens,
        "OOV": tokens,
        "PAD": tokens,
        "read_trees": treebank,
        "read_treebank": treebank,
        "tree_leaves": treebank,
        "WSJ_SPLIT_FILES": wsj_pos,
    }
    assert sorted(text.__all__) == sorted(homes)
    for name, module in homes.items():
        assert getattr(text, name) is getattr(module, name), name
