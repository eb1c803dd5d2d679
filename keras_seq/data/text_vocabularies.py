"""The id -> token and id -> tag lists of the text datasets, by dataset name:
`vocabulary(name, data_dir=None, **options)`, `pos_vocabulary(...)` and
`class_names(name, data_dir=None)`. They read the same files as the loaders
in `keras_seq.data.conll`, `keras_seq.data.wsj_pos` and `keras_seq.data.ptb`
(the training split's), and share their in-memory parses.
"""

from keras_seq.data import conll
from keras_seq.data import ptb
from keras_seq.data import registry
from keras_seq.data import wsj_pos


def vocabulary(name, data_dir=None, **options):
    """The id -> token list of dataset `name` (`lowercase` / `min_count`
    options for the labelling sets change it)."""
    registry.check_options(name, options)
    if name == "conll2000_chunking":
        words, _ = conll.vocabularies(
            data_dir,
            options.get("lowercase", False),
            options.get("min_count", 1),
            options.get("vocabulary_from", "train"),
        )
        return list(words)
    if name == "wsj_pos":
        words, _ = wsj_pos.vocabularies(data_dir, options.get("lowercase", False), options.get("min_count", 1))
        return list(words)
    if name in ("ptb_word", "ptb_char"):
        return list(ptb.stream_vocabulary(name[4:], data_dir))
    raise ValueError(f"Dataset {name!r} is not a text dataset.")


def pos_vocabulary(data_dir=None, vocabulary_from="train"):
    """The id -> Brill POS tag list of `conll2000_chunking`'s `features="words+pos"`."""
    return list(conll.vocabularies(data_dir, False, 1, vocabulary_from)[1])


def class_names(name, data_dir=None):
    """The id -> tag list of a labelling text dataset."""
    if name == "conll2000_chunking":
        return list(conll.CONLL2000_CHUNK_TAGS)
    if name == "wsj_pos":
        return list(wsj_pos.vocabularies(data_dir, False, 1)[1])
    if name in ("ptb_word", "ptb_char"):
        return vocabulary(name, data_dir)
    raise ValueError(f"Dataset {name!r} is not a text dataset.")
