"""Special tokens, vocabularies and token -> id encoding shared by the text
datasets. Works on token lists already read; reads no file.

* Labelling sets (CoNLL-2000, WSJ POS): id 0 is padding (`PAD`) and id 1
  out-of-vocabulary (`OOV`). The other words follow by decreasing training
  frequency, ties in code-point order. Words keep their case unless
  `lowercase=True`. With `min_count=k`, training words seen fewer than k
  times also map to OOV (so that OOV gets trained).
* PTB streams: no padding or OOV ids; `EOS` ends each line. Ids follow
  decreasing training frequency with ties in code-point order (the ordering
  of the TensorFlow PTB tutorial reader).
"""

import collections

import numpy as np

PAD = "<pad>"
OOV = "<oov>"
EOS = "<eos>"


def ranked(counter, min_count=1):
    """Tokens by decreasing count, ties in code-point order."""
    items = [(t, c) for t, c in counter.items() if c >= min_count]
    items.sort(key=lambda tc: (-tc[1], tc[0]))
    return [t for t, _ in items]


def labelling_vocabulary(train_words, lowercase, min_count):
    """[PAD, OOV] + the training words of `train_words` (one list per sentence)."""
    if not isinstance(min_count, (int, np.integer)) or min_count < 1:
        raise ValueError(f"min_count must be a positive integer, got {min_count!r}.")
    counter = collections.Counter()
    for words in train_words:
        counter.update([w.lower() for w in words] if lowercase else words)
    return [PAD, OOV] + ranked(counter, min_count)


def encode(words, index, lowercase):
    """int32 ids of `words` under `index` (token -> id), OOV (1) where unknown."""
    if lowercase:
        words = [w.lower() for w in words]
    return np.array([index.get(w, 1) for w in words], dtype="int32")


# The classes of `word_shape`; id 0 is padding, so class i has id i + 1.
WORD_SHAPES = ("lowercase", "capitalised", "all_caps", "has_digit", "has_hyphen", "punctuation", "other")


def word_shape(word):
    """The id (1..7) of `word`'s class in `WORD_SHAPES`: a digit anywhere,
    else a hyphen between letters, else the letters' case (an apostrophe or
    a full stop does not change it: "don't", "U.S."); no letter and no
    digit is punctuation."""
    if any(c.isdigit() for c in word):
        return 4
    if not any(c.isalpha() for c in word):
        return 6
    if "-" in word:
        return 5
    if word.islower():
        return 1
    if word.isupper():
        return 3
    if word[0].isupper():
        return 2
    return 7


def suffix(word, length):
    """The last `length` characters of `word`, lowercased (all of a shorter word)."""
    return word.lower()[-length:]


def suffix_vocabulary(train_words, length):
    """[PAD, OOV] + the suffixes of `length` characters of the training words
    (one list per sentence), by decreasing count, ties in code-point order."""
    counter = collections.Counter(suffix(w, length) for words in train_words for w in words)
    return [PAD, OOV] + ranked(counter)
