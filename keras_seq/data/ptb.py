"""Penn Treebank language modelling (Mikolov's preprocessing) as id streams.
Reads `ptb/ptb.{train,valid,test}.txt` (UTF-8, one sentence a line) and, for
the character level, `ptb/ptb.char.{train,valid,test}.txt`.

Importing this module registers two next_token datasets:

* `ptb_word`. One stream per split. Each line's whitespace tokens are
  followed by `<eos>`. The vocabulary has 10000 entries (9999 words plus
  `<eos>`; the text already contains `<unk>`).
* `ptb_char`. The same text as single characters, with `_` between words and
  one `<eos>` per line: 49 symbols plus `<eos>`, so 50 entries. If
  `ptb/ptb.char.*.txt` is missing, the stream is derived from the word-level
  file. That reproduces the character files exactly.

Ids are in [0, vocabulary size), with no padding or OOV id, ordered by
decreasing training frequency (`keras_seq.data.tokens.ranked`). `Sequences`
holds one sequence per split: `inputs=[stream[:-1]]`, `targets=[stream[1:]]`.
"""

import collections
import os

import numpy as np

from keras_seq.data import parse_cache
from keras_seq.data import registry
from keras_seq.data import text_files
from keras_seq.data import tokens


def _read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def _word_tokens(path):
    return _read_text(path).replace("\n", f" {tokens.EOS} ").split()


def _char_tokens_from_words(path):
    symbols = []
    for line in _read_text(path).split("\n")[:-1]:
        symbols.extend("_".join(line.split()))
        symbols.append(tokens.EOS)
    return symbols


def _stream_tokens(level, split, data_dir):
    """(path, tokens) of one PTB split at `level` ("word" or "char")."""
    if level == "word":
        path = text_files.find(f"ptb/ptb.{split}.txt", data_dir)
        return path, parse_cache.memo("ptb_word_tokens", path, lambda: _word_tokens(path))
    try:
        path = text_files.find(f"ptb/ptb.char.{split}.txt", data_dir)
    except FileNotFoundError as missing:
        try:
            path = text_files.find(f"ptb/ptb.{split}.txt", data_dir)
        except FileNotFoundError as also_missing:
            raise FileNotFoundError(
                f"{missing} It can also be derived from the word-level file, but that is missing too: {also_missing}"
            ) from None
        return path, parse_cache.memo("ptb_char_from_words", path, lambda: _char_tokens_from_words(path))
    return path, parse_cache.memo("ptb_char_tokens", path, lambda: _word_tokens(path))


def stream_vocabulary(level, data_dir):
    """The id -> token list of `ptb_{level}`."""
    return _stream_vocabulary_and_path(level, data_dir)[0]


def _stream_vocabulary_and_path(level, data_dir):
    path, train_tokens = _stream_tokens(level, "train", data_dir)
    vocab = parse_cache.memo(f"ptb_{level}_vocab", path, lambda: tokens.ranked(collections.Counter(train_tokens)))
    return vocab, path


def _stream_ids(level, split, data_dir):
    vocab, train_path = _stream_vocabulary_and_path(level, data_dir)
    path, split_tokens = _stream_tokens(level, split, data_dir)

    def build():
        index = {t: i for i, t in enumerate(vocab)}
        unk = index.get("<unk>")
        try:
            if unk is None:
                ids = [index[t] for t in split_tokens]
            else:
                ids = [index.get(t, unk) for t in split_tokens]
        except KeyError as error:
            raise ValueError(f"{path}: symbol {error.args[0]!r} is not in the training vocabulary.") from None
        return np.array(ids, dtype="int32")

    return parse_cache.memo(f"ptb_{level}_ids", path, build, os.path.abspath(train_path))


def _stream_loader(level):
    name = f"ptb_{level}"

    def load(split, data_dir=None):
        registry.check_split(name, split)
        ids = _stream_ids(level, split, data_dir)
        return registry.Sequences([ids[:-1].copy()], [ids[1:].copy()])

    load.__name__ = f"_load_{name}"
    return load


registry.register(
    registry.DatasetInfo(
        name="ptb_word",
        description=(
            "Penn Treebank word-level language modelling (Mikolov's preprocessing): "
            "one stream per split, <eos> after each line; 929589 / 73760 / 82430 "
            "tokens; 10000-word vocabulary (ids by train frequency, no padding id)."
        ),
        task="next_token",
        splits={"train": 1, "valid": 1, "test": 1},
        input_shape=(),
        input_dtype="int32",
        num_classes=10000,
        source="http://www.fit.vutbr.cz/~imikolov/rnnlm/simple-examples.tgz",
        files=("ptb/ptb.train.txt", "ptb/ptb.valid.txt", "ptb/ptb.test.txt"),
        vocabulary_size=10000,
    ),
    _stream_loader("word"),
)

registry.register(
    registry.DatasetInfo(
        name="ptb_char",
        description=(
            "Penn Treebank character-level language modelling: one stream per split, "
            "'_' between words, <eos> after each line; 5017482 / 393042 / 442423 "
            "symbols; 50-symbol vocabulary (49 + <eos>; no padding id)."
        ),
        task="next_token",
        splits={"train": 1, "valid": 1, "test": 1},
        input_shape=(),
        input_dtype="int32",
        num_classes=50,
        source="http://www.fit.vutbr.cz/~imikolov/rnnlm/simple-examples.tgz",
        files=("ptb/ptb.char.train.txt", "ptb/ptb.char.valid.txt", "ptb/ptb.char.test.txt"),
        vocabulary_size=50,
    ),
    _stream_loader("char"),
)
