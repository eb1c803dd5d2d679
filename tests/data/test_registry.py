"""The catalogue's account of each loader's options, and the error an unknown
option gets before any file is read."""

import pytest

import keras_seq.data as data
from keras_seq.data import registry


def test_options_are_the_loaders_keyword_arguments():
    assert registry.options("ocr_letters") == ("fold", "protocol")
    assert registry.options("conll2000_chunking") == ("features", "lowercase", "min_count", "vocabulary_from")
    assert registry.options("wsj_pos") == ("features", "lowercase", "min_count", "train_sentences")
    assert registry.options("ptb_char") == ()
    assert registry.options("jsb_chorales") == ("source",)  # `_name` is the loader's own, not an option


@pytest.mark.parametrize(
    "call",
    [
        lambda: data.load_arrays("ocr_letters", "train", "/nonexistent", folds=3),
        lambda: data.info("ocr_letters", folds=3),
        lambda: data.load("ocr_letters", "train", "/nonexistent", folds=3),
    ],
)
def test_an_unknown_option_is_named_with_the_options_taken(call):
    with pytest.raises(
        TypeError,
        match=r"Dataset 'ocr_letters' got unknown option\(s\) \['folds'\]; "
        r"it accepts fold, protocol\.",
    ):
        call()


def test_a_loader_without_options_says_so():
    with pytest.raises(TypeError, match=r"Dataset 'ptb_word' got unknown option\(s\) \['lowercase'\]; it accepts none"):
        data.load_arrays("ptb_word", "valid", "/nonexistent", lowercase=True)


@pytest.mark.parametrize(
    "name, features, message",
    [
        (
            "conll2000_chunking",
            "pos",
            r"Dataset 'conll2000_chunking': features must be 'words' or 'words\+pos', got 'pos'\.",
        ),
        ("conll2000_chunking", None, r"features must be 'words' or 'words\+pos', got None\."),
        ("wsj_pos", "lexical", r"Dataset 'wsj_pos': features must be 'words' or 'words\+lexical', got 'lexical'\."),
    ],
)
def test_info_refuses_the_features_the_loader_refuses(name, features, message):
    with pytest.raises(ValueError, match=message):
        data.info(name, features=features)
    assert data.info(name, features="words") is data.info(name)
