"""CoNLL-2000 chunking as token ids. Reads `conll2000/train.txt` and
`conll2000/test.txt` (one `word POS chunk-tag` line per token, a blank line
between sentences, latin-1).

Importing this module registers `conll2000_chunking` (labelling). Splits:
`train` (8936 sentences, the full official training set), `test` (2012), and
for model selection `train_minus_valid` (the first 8042 training sentences)
plus `valid` (the last 894, about 10%). The two are disjoint and together
make `train`.

Input ids come from a vocabulary built on the official `train` split only
(all 8936 sentences), whatever split is requested, so the ids are the same
for every split (see `keras_seq.data.tokens` for the ordering, `lowercase`
and `min_count`). For model selection pass
`vocabulary_from="train_minus_valid"` to both the `train_minus_valid` and
`valid` loads. Both vocabularies, words and POS, then come from those 8042
sentences, and unseen `valid` words become OOV as they would in `test`.

Chunk tags: the fixed, sorted list `CONLL2000_CHUNK_TAGS`, 23 classes: `O`
plus B-/I- for the 11 chunk types in the CoNLL-2000 data. 22 of them occur in
train; `I-LST` occurs only in test. Target ids are class indices with no
padding value, so mask with `inputs != 0`. With `features="words+pos"` the
inputs are (T, 2): [word id, POS id]. POS ids also use 0 = padding and
1 = unknown, and the 44 Brill tags seen in train follow in sorted order.
"""

import collections

import numpy as np

from keras_seq.data import parse_cache
from keras_seq.data import registry
from keras_seq.data import text_files
from keras_seq.data import tokens

_CHUNK_TYPES = ("ADJP", "ADVP", "CONJP", "INTJ", "LST", "NP", "PP", "PRT", "SBAR", "UCP", "VP")
CONLL2000_CHUNK_TAGS = tuple(sorted(["O"] + [f"{p}-{t}" for t in _CHUNK_TYPES for p in ("B", "I")]))
CONLL2000_VALID_SENTENCES = 894  # the last 894 of the 8936 training sentences
_SPLITS = {"train": 8936, "test": 2012, "train_minus_valid": 8042, "valid": 894}


def read_conll(path):
    """[(words, pos_tags, chunk_tags)] per sentence from a CoNLL-2000 file.

    Raises ValueError naming the file and line for a line without exactly 3
    fields or with an unknown chunk tag.
    """
    tagset = set(CONLL2000_CHUNK_TAGS)
    sentences = []
    words, pos, chunks = [], [], []
    with open(path, encoding="latin-1") as f:
        for lineno, line in enumerate(f, 1):
            fields = line.split()
            if not fields:
                if words:
                    sentences.append((tuple(words), tuple(pos), tuple(chunks)))
                    words, pos, chunks = [], [], []
                continue
            if len(fields) != 3:
                raise ValueError(
                    f"{path}, line {lineno}: expected 3 space-separated fields "
                    f"'word POS chunk-tag', got {len(fields)}: {line.rstrip()!r}."
                )
            if fields[2] not in tagset:
                raise ValueError(
                    f"{path}, line {lineno}: unknown chunk tag {fields[2]!r}; "
                    f"known tags are {list(CONLL2000_CHUNK_TAGS)}."
                )
            words.append(fields[0])
            pos.append(fields[1])
            chunks.append(fields[2])
    if words:
        sentences.append((tuple(words), tuple(pos), tuple(chunks)))
    return sentences


def _file_sentences(split, data_dir):
    """The parsed sentences of the file holding `split` (train.txt for all but test)."""
    name = "conll2000/test.txt" if split == "test" else "conll2000/train.txt"
    path = text_files.find(name, data_dir)
    return parse_cache.memo("conll", path, lambda: read_conll(path))


def vocabularies(data_dir, lowercase, min_count, vocabulary_from="train"):
    """(id -> word list, id -> POS tag list), both from `vocabulary_from`."""
    if vocabulary_from not in ("train", "train_minus_valid"):
        raise ValueError(f"vocabulary_from must be 'train' or 'train_minus_valid', got {vocabulary_from!r}.")
    path = text_files.find("conll2000/train.txt", data_dir)

    def build():
        train = parse_cache.memo("conll", path, lambda: read_conll(path))
        if vocabulary_from == "train_minus_valid":
            train = train[:-CONLL2000_VALID_SENTENCES]
        words = tokens.labelling_vocabulary([s[0] for s in train], lowercase, min_count)
        pos_counter = collections.Counter(p for s in train for p in s[1])
        pos = [tokens.PAD, tokens.OOV] + sorted(pos_counter)
        return words, pos

    return parse_cache.memo("conll_vocab", path, build, bool(lowercase), min_count, vocabulary_from)


def _load_conll(
    split,
    data_dir=None,
    features="words",
    lowercase=False,
    min_count=1,
    vocabulary_from="train",
):
    registry.check_split("conll2000_chunking", split)
    if features not in ("words", "words+pos"):
        raise ValueError(f"features must be 'words' or 'words+pos', got {features!r}.")
    sentences = _file_sentences(split, data_dir)
    n_valid = CONLL2000_VALID_SENTENCES
    if split == "train_minus_valid":
        sentences = sentences[:-n_valid]
    elif split == "valid":
        sentences = sentences[-n_valid:]
    words, pos = vocabularies(data_dir, lowercase, min_count, vocabulary_from)
    word_index = {w: i for i, w in enumerate(words)}
    pos_index = {p: i for i, p in enumerate(pos)}
    tag_index = {t: i for i, t in enumerate(CONLL2000_CHUNK_TAGS)}
    inputs, targets = [], []
    for w, p, c in sentences:
        ids = tokens.encode(w, word_index, lowercase)
        if features == "words+pos":
            pos_ids = np.array([pos_index.get(x, 1) for x in p], dtype="int32")
            ids = np.stack([ids, pos_ids], axis=-1)
        inputs.append(ids)
        targets.append(np.array([tag_index[x] for x in c], dtype="int32"))
    return registry.Sequences(inputs, targets)


_INFO = registry.DatasetInfo(
    name="conll2000_chunking",
    description=(
        "CoNLL-2000 text chunking (WSJ sections 15-18 train, 20 test): per-word "
        "chunk tags (23 classes, B-/I-/O). 211727 train / 47377 test tokens. "
        "'valid' = last 894 train sentences, 'train_minus_valid' = the rest. "
        "Inputs: word ids (0 pad, 1 OOV; vocabulary from train), or (T, 2) "
        "[word id, POS id] with features='words+pos'. Options: features, "
        "lowercase, min_count, vocabulary_from ('train' or 'train_minus_valid')."
    ),
    task="labelling",
    splits=dict(_SPLITS),
    input_shape=(),
    input_dtype="int32",
    num_classes=len(CONLL2000_CHUNK_TAGS),
    source="https://www.clips.uantwerpen.be/conll2000/chunking/ (NLTK conll2000)",
    files=("conll2000/train.txt", "conll2000/test.txt"),
    vocabulary_size=19124,
)
POS_VOCABULARY_SIZE = 46  # padding, unknown and the 44 Brill tags of train


registry.register(
    _INFO,
    _load_conll,
    registry.info_for_features(_INFO, {"words+pos": (_INFO.vocabulary_size, POS_VOCABULARY_SIZE)}),
)
