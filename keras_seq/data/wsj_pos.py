"""WSJ POS tagging on the NLTK Penn Treebank sample, as token ids. Reads the
`treebank/combined/wsj_*.mrg` trees in `ptb_wsj_pos_sample/treebank.zip`
(parsed by `keras_seq.data.treebank`), with `-NONE-` leaves dropped.

Importing this module registers `wsj_pos` (labelling). The split goes by
file number (`WSJ_SPLIT_FILES`): wsj_0001-0159 are `train` (3396 sentences,
81793 tokens), wsj_0160-0179 are `valid` (273, 6327) and wsj_0180-0199 are
`test` (245, 5964). Option `train_sentences=N` (the SCRBM paper uses 500,
1000 and 2000) keeps only the first N sentences of `train`. It is ignored for
the other splits, so the same options can be passed to every split.

Input ids come from a vocabulary built on wsj_0001-0159 only, whatever split
or `train_sentences` is requested (see `keras_seq.data.tokens` for the
ordering, `lowercase` and `min_count`). With `features="words+lexical"` the
inputs are (T, 4): [word id, id of its last 2 letters, of its last 3
letters, its shape (`tokens.WORD_SHAPES`)], the suffixes lowercased, their
vocabularies from wsj_0001-0159 too (0 padding, 1 unseen): what a tagger
knows of a word it has not seen in training. Targets are the 45 tags seen in
train, sorted; valid and test use no other tag. Target ids are class indices
with no padding value, so mask with `inputs != 0`.
"""

import numpy as np

from keras_seq.data import parse_cache
from keras_seq.data import registry
from keras_seq.data import text_files
from keras_seq.data import tokens
from keras_seq.data import treebank

WSJ_SPLIT_FILES = {"train": (1, 159), "valid": (160, 179), "test": (180, 199)}
_SPLITS = {"train": 3396, "valid": 273, "test": 245}


def _sentences(data_dir):
    """(path of the zip, its parsed sentences)."""
    path = text_files.find("ptb_wsj_pos_sample/treebank.zip", data_dir)
    return path, parse_cache.memo("wsj", path, lambda: treebank.read_treebank(path))


def _split(sentences, split):
    lo, hi = WSJ_SPLIT_FILES[split]
    return [s for s in sentences if lo <= s[0] <= hi]


def vocabularies(data_dir, lowercase, min_count):
    """(id -> word list, id -> tag list), both from `train`."""
    path, sentences = _sentences(data_dir)

    def build():
        train = _split(sentences, "train")
        words = tokens.labelling_vocabulary([s[1] for s in train], lowercase, min_count)
        tags = sorted({t for s in train for t in s[2]})
        return words, tags

    return parse_cache.memo("wsj_vocab", path, build, bool(lowercase), min_count)


SUFFIX_LENGTHS = (2, 3)
# Sizes of the vocabularies of `features="words+lexical"`, per input column.
LEXICAL_VOCABULARY_SIZES = (11055, 495, 2039, len(tokens.WORD_SHAPES) + 1)


def suffix_vocabularies(data_dir):
    """{length: id -> suffix list} of `SUFFIX_LENGTHS`, from `train`."""
    path, sentences = _sentences(data_dir)

    def build():
        train = [s[1] for s in _split(sentences, "train")]
        return {n: tokens.suffix_vocabulary(train, n) for n in SUFFIX_LENGTHS}

    return parse_cache.memo("wsj_suffixes", path, build)


def _suffix_indexes(data_dir):
    """Suffix length -> {suffix: id}, from the train suffix vocabularies."""
    return {n: {x: i for i, x in enumerate(v)} for n, v in suffix_vocabularies(data_dir).items()}


def _lexical_columns(words, indexes):
    """(T, 3) ids of the suffixes and shape of each word; `indexes` from `_suffix_indexes`."""
    suffixes = [[indexes[n].get(tokens.suffix(w, n), 1) for n in SUFFIX_LENGTHS] for w in words]
    return np.array([[*s, tokens.word_shape(w)] for s, w in zip(suffixes, words)], dtype="int32")


def _load_wsj(split, data_dir=None, train_sentences=None, lowercase=False, min_count=1, features="words"):
    registry.check_split("wsj_pos", split)
    if features not in ("words", "words+lexical"):
        raise ValueError(f"features must be 'words' or 'words+lexical', got {features!r}.")
    _, sentences = _sentences(data_dir)
    sentences = _split(sentences, split)
    if split == "train" and train_sentences is not None:
        if (
            not isinstance(train_sentences, (int, np.integer))
            or isinstance(train_sentences, bool)
            or not 0 < train_sentences <= len(sentences)
        ):
            raise ValueError(
                f"train_sentences must be None or an integer in [1, {len(sentences)}], got {train_sentences!r}."
            )
        sentences = sentences[: int(train_sentences)]
    words, tags = vocabularies(data_dir, lowercase, min_count)
    word_index = {w: i for i, w in enumerate(words)}
    tag_index = {t: i for i, t in enumerate(tags)}
    suffix_indexes = _suffix_indexes(data_dir) if features == "words+lexical" else None
    inputs, targets = [], []
    for _, w, t in sentences:
        ids = tokens.encode(w, word_index, lowercase)
        if suffix_indexes is not None:
            ids = np.concatenate([ids[:, None], _lexical_columns(w, suffix_indexes)], axis=1)
        inputs.append(ids)
        try:
            targets.append(np.array([tag_index[x] for x in t], dtype="int32"))
        except KeyError as error:
            raise ValueError(f"wsj_pos {split}: tag {error.args[0]!r} not seen in train.") from None
    return registry.Sequences(inputs, targets)


_INFO = registry.DatasetInfo(
    name="wsj_pos",
    description=(
        "POS tagging on the NLTK 10% Penn Treebank WSJ sample (199 files, 3914 "
        "sentences, 94084 tokens without -NONE-). Split by file: wsj_0001-0159 "
        "train (81793 tokens), 0160-0179 valid (6327), 0180-0199 test (5964). "
        "45 tags. Option train_sentences=N keeps the first N train sentences "
        "(SCRBM: 500/1000/2000); features='words+lexical' adds suffix and shape "
        "ids; also lowercase, min_count. Non-commercial use only."
    ),
    task="labelling",
    splits=dict(_SPLITS),
    input_shape=(),
    input_dtype="int32",
    num_classes=45,
    source="NLTK nltk_data packages/corpora/treebank.zip (Penn Treebank, LDC 1995)",
    files=("ptb_wsj_pos_sample/treebank.zip",),
    vocabulary_size=11055,
)


registry.register(_INFO, _load_wsj, registry.info_for_features(_INFO, {"words+lexical": LEXICAL_VOCABULARY_SIZES}))
