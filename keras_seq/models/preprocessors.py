"""Preprocessors: what turns a user's own data (words, letter images, a
piece of music, a text) into the inputs a trained network reads, and its
outputs back into tags, notes or characters. Each is serialisable
(`get_config` / `from_config`); a preset keeps its long lists (vocabularies,
tag names) as files under `assets/` (`ASSETS` names those fields).

They read no dataset: everything they need is in their arguments, so a
preset loads with no data folder. `keras_seq.zoo.presets` builds them from
a recipe's training data, with the rules its loader applied (token ids of
`keras_seq.data.tokens`: 0 padding, 1 unknown).
"""

import os

import keras
import numpy as np

from keras_seq.data import tokens


class Preprocessor:
    """Base class: a serialisable description of a model's inputs.

    `ASSETS` names the config fields that a preset writes to
    `assets/<field>.json` instead of `preprocessor.json`.
    """

    ASSETS = ()

    def get_config(self):
        raise NotImplementedError

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __eq__(self, other):
        return type(self) is type(other) and self.get_config() == other.get_config()

    def __repr__(self):
        small = {k: v for k, v in self.get_config().items() if k not in self.ASSETS}
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in small.items())})"


def _check_token_lists(sentences):
    """`sentences` as a list of token lists; a ValueError naming what is wrong."""
    if isinstance(sentences, str):
        raise ValueError(
            "expected a list of sentences, each a list of tokens; got one string "
            f"({sentences[:40]!r}). Split it into tokens first, e.g. text.split()."
        )
    sentences = list(sentences)
    if not sentences:
        raise ValueError("expected at least one sentence; got none.")
    for i, sentence in enumerate(sentences):
        if isinstance(sentence, str):
            raise ValueError(
                f"sentence {i} is one string ({sentence[:40]!r}), not a list of tokens; "
                "split it into tokens first, e.g. sentence.split()."
            )
        if len(sentence) == 0:
            raise ValueError(f"sentence {i} is empty: a sentence needs at least one token.")
        for token in sentence:
            if not isinstance(token, str) or not token:
                raise ValueError(f"sentence {i}: every token must be a non-empty string; got {token!r}.")
    return sentences


def _pad(rows, dtype):
    """Rows of (T, ...) arrays as one right-padded (batch, longest, ...) array."""
    longest = max(len(r) for r in rows)
    padded = np.zeros((len(rows), longest) + rows[0].shape[1:], dtype=dtype)
    for i, row in enumerate(rows):
        padded[i, : len(row)] = row
    return padded


@keras.saving.register_keras_serializable(package="keras_seq")
class WordPreprocessor(Preprocessor):
    """Tokenised sentences -> word ids (and lexical feature ids), and class
    ids -> tag names: the inputs of a sequence tagger trained on
    `keras_seq.data`'s CoNLL-2000 or WSJ POS sets.

    A word not in `words` gets id 1 (unknown), as the test words the model
    never saw in training did; with `suffixes`, each step also carries the
    ids of the word's last 2 and 3 letters (lowercased; 1 when unseen) and
    of its shape (`keras_seq.data.tokens.word_shape`), the WSJ set's
    `features="words+lexical"`.

    Args:
        words: The id -> word list (id 0 padding, 1 unknown).
        class_names: The id -> tag list of the model's outputs.
        suffixes: None, or {length: id -> suffix list} (lengths 2 and 3).
        lowercase: Lowercase words before looking them up.

    Example:

    >>> p = WordPreprocessor(["<pad>", "<oov>", "the", "cat"], ["DT", "NN"])
    >>> p([["the", "dog"]])[0].tolist()
    [[2, 1]]
    """

    ASSETS = ("words", "class_names", "suffixes")

    def __init__(self, words, class_names, suffixes=None, lowercase=False):
        self.words = list(words)
        self.class_names = list(class_names)
        self.suffixes = None if suffixes is None else {int(k): list(v) for k, v in suffixes.items()}
        self.lowercase = bool(lowercase)
        self._index = {w: i for i, w in enumerate(self.words)}
        self._suffix_index = (
            None if self.suffixes is None else {n: {s: i for i, s in enumerate(v)} for n, v in self.suffixes.items()}
        )

    def encode(self, sentence):
        """The (T,) or (T, 1 + suffix lengths + 1) int32 ids of one token list."""
        ids = tokens.encode(sentence, self._index, self.lowercase)
        if self._suffix_index is None:
            return ids
        lengths = sorted(self._suffix_index)
        columns = [
            [self._suffix_index[n].get(tokens.suffix(w, n), 1) for n in lengths] + [tokens.word_shape(w)]
            for w in sentence
        ]
        return np.concatenate([ids[:, None], np.asarray(columns, dtype="int32")], axis=1)

    def __call__(self, sentences):
        """`(ids, lengths)`: the sentences' ids right-padded with 0 into one
        int32 array, and each sentence's length."""
        sentences = _check_token_lists(sentences)
        rows = [self.encode(list(s)) for s in sentences]
        return _pad(rows, "int32"), [len(s) for s in sentences]

    def unknown_words(self, sentence):
        """The tokens of `sentence` the model never saw in training."""
        return [w for w in sentence if (w.lower() if self.lowercase else w) not in self._index]

    def decode(self, class_ids):
        return [self.class_names[int(i)] for i in class_ids]

    def get_config(self):
        return {
            "words": self.words,
            "class_names": self.class_names,
            "suffixes": self.suffixes,
            "lowercase": self.lowercase,
        }

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if config.get("suffixes") is not None:
            config["suffixes"] = {int(k): v for k, v in config["suffixes"].items()}
        return cls(**config)


@keras.saving.register_keras_serializable(package="keras_seq")
class LetterImagePreprocessor(Preprocessor):
    """Words written as letter images -> the (T, height * width) pixel rows
    of the MIT OCR letters, and class ids -> letters.

    Each word is an array of `(T, height, width)` or `(T, height * width)`
    pixel values in [0, 1] (the set's images are binary).

    Args:
        height: Image rows (16 for the OCR letters).
        width: Image columns (8).
        class_names: The id -> letter list.

    Example:

    >>> p = LetterImagePreprocessor()
    >>> p([np.zeros((3, 16, 8))])[0].shape
    (1, 3, 128)
    """

    ASSETS = ("class_names",)

    def __init__(self, height=16, width=8, class_names=tuple("abcdefghijklmnopqrstuvwxyz")):
        self.height, self.width = int(height), int(width)
        self.class_names = list(class_names)

    def __call__(self, words):
        if isinstance(words, np.ndarray) and words.ndim in (2, 3):
            words = [words]
        words = list(words)
        if not words:
            raise ValueError("expected at least one word of letter images; got none.")
        pixels = self.height * self.width
        rows = []
        for i, word in enumerate(words):
            word = np.asarray(word, dtype="float32")
            if word.ndim == 3 and word.shape[1:] == (self.height, self.width):
                word = word.reshape(len(word), pixels)
            if word.ndim != 2 or word.shape[1] != pixels or len(word) == 0:
                raise ValueError(
                    f"word {i}: expected letter images of shape (letters, {self.height}, "
                    f"{self.width}) or (letters, {pixels}); got {word.shape}."
                )
            if not np.all(np.isfinite(word)) or word.min() < 0 or word.max() > 1:
                raise ValueError(
                    f"word {i}: pixel values must lie in [0, 1]; got [{np.nanmin(word):g}, {np.nanmax(word):g}]."
                )
            rows.append(word)
        return _pad(rows, "float32"), [len(w) for w in rows]

    def decode(self, class_ids):
        return [self.class_names[int(i)] for i in class_ids]

    def get_config(self):
        return {"height": self.height, "width": self.width, "class_names": self.class_names}


@keras.saving.register_keras_serializable(package="keras_seq")
class PianoRollPreprocessor(Preprocessor):
    """Music as binary piano rolls: frames of `keys` keys, key k the MIDI
    note `lowest_midi + k`, one frame every `frame_quarters` quarter notes.

    Reads a user's MIDI or MusicXML file with music21 (`read`), and writes a
    roll as a standard MIDI file with no other package (`write_midi`).

    Args:
        keys: Keys per frame (88).
        lowest_midi: The MIDI note of key 0 (21, the piano's A0).
        frame_quarters: A frame's length in quarter notes (1: the chorales).

    Example:

    >>> p = PianoRollPreprocessor()
    >>> roll = np.zeros((4, 88)); roll[:, 39] = 1   # middle C held 4 beats
    >>> p.notes(roll)
    [(60, 0, 4)]
    """

    def __init__(self, keys=88, lowest_midi=21, frame_quarters=1.0):
        self.keys, self.lowest_midi, self.frame_quarters = int(keys), int(lowest_midi), float(frame_quarters)

    def check(self, roll, what="piano roll"):
        """`roll` as a (frames, keys) float32 array of 0 and 1; a ValueError naming what is wrong."""
        roll = np.asarray(roll, dtype="float32")
        if roll.ndim != 2 or roll.shape[1] != self.keys:
            raise ValueError(f"{what}: expected a (frames, {self.keys}) piano roll; got shape {roll.shape}.")
        if len(roll) == 0:
            raise ValueError(f"{what}: the piano roll has no frames.")
        if not np.isin(roll, (0.0, 1.0)).all():
            raise ValueError(f"{what}: a piano roll holds 0 and 1 only.")
        return roll

    def __call__(self, rolls):
        if isinstance(rolls, np.ndarray) and rolls.ndim == 2:
            rolls = [rolls]
        rolls = [self.check(r, f"piece {i}") for i, r in enumerate(rolls)]
        if not rolls:
            raise ValueError("expected at least one piano roll; got none.")
        return _pad(rolls, "float32"), [len(r) for r in rolls]

    def notes(self, roll):
        """`(midi note, first frame, frames)` of every held note of `roll`."""
        roll = self.check(roll)
        held = np.concatenate([np.zeros((1, self.keys)), roll, np.zeros((1, self.keys))]) > 0
        found = []
        for key in range(self.keys):
            changes = np.flatnonzero(np.diff(held[:, key].astype("int8")))
            for start, end in zip(changes[::2], changes[1::2]):
                found.append((self.lowest_midi + key, int(start), int(end - start)))
        return sorted(found, key=lambda n: (n[1], n[0]))

    def read(self, path):
        """The piano roll of a MIDI or MusicXML file (every part, sampled
        every `frame_quarters`), read with music21."""
        from keras_seq.data import midi

        return midi.read_roll(path, self.keys, self.lowest_midi, self.frame_quarters)

    def write_midi(self, roll, path, tempo=100, velocity=80):
        """Writes `roll` as a one-track MIDI file at `tempo` quarter notes a minute."""
        from keras_seq.data import midi

        ticks = midi.TICKS_PER_QUARTER * self.frame_quarters
        events = [(note, round(start * ticks), round(length * ticks)) for note, start, length in self.notes(roll)]
        midi.write(path, events, tempo=tempo, velocity=velocity)
        return path

    def get_config(self):
        return {"keys": self.keys, "lowest_midi": self.lowest_midi, "frame_quarters": self.frame_quarters}


@keras.saving.register_keras_serializable(package="keras_seq")
class MelodyPreprocessor(Preprocessor):
    """Melodies as MIDI pitches <-> the ids of a next-pitch model trained on
    `keras_seq.data`'s `kinderlieder` or `bach_melodies` sets: pitch p is
    input id `p - lowest_midi + 1` (0 is padding) and class
    `p - lowest_midi`.

    A melody is a sequence of MIDI pitch numbers, one a note (rests and
    durations are not modelled); `read` takes the top line of a MIDI or
    MusicXML file. A pitch outside the `keys` keys from `lowest_midi` is an
    error naming it (the corpora have none).

    Args:
        keys: How many pitches the model knows (88).
        lowest_midi: The MIDI pitch of class 0 (21, the piano's A0).

    Example:

    >>> p = MelodyPreprocessor()
    >>> p([[60, 62, 64]])[0].tolist()
    [[40, 42, 44]]
    >>> p.decode([39, 41])
    [60, 62]
    """

    def __init__(self, keys=88, lowest_midi=21):
        self.keys, self.lowest_midi = int(keys), int(lowest_midi)

    def check(self, melody, what="melody"):
        """`melody` as an int32 array of MIDI pitches in range; a ValueError naming what is wrong."""
        if isinstance(melody, str):
            raise ValueError(
                f"{what}: expected MIDI pitch numbers, e.g. [60, 62, 64]; got a string ({melody[:40]!r}). "
                "Read a file with .read(path)."
            )
        values = np.asarray(melody)
        if values.ndim != 1 or len(values) == 0:
            raise ValueError(f"{what}: expected a non-empty sequence of MIDI pitches; got shape {values.shape}.")
        if values.dtype.kind not in "iu" and not (
            values.dtype.kind == "f" and np.all(np.isfinite(values)) and np.all(values == np.round(values))
        ):
            raise ValueError(f"{what}: MIDI pitches are whole numbers; got {values.dtype} values.")
        values = values.astype("int64")
        highest = self.lowest_midi + self.keys - 1
        outside = sorted({int(v) for v in values if not self.lowest_midi <= v <= highest})
        if outside:
            raise ValueError(
                f"{what}: pitches {outside} lie outside the model's range, MIDI {self.lowest_midi}-{highest}."
            )
        return values.astype("int32")

    def __call__(self, melodies):
        """`(ids, lengths)`: input ids right-padded with 0, and each melody's length."""
        if isinstance(melodies, np.ndarray) and melodies.ndim == 1:
            melodies = [melodies]
        if isinstance(melodies, (list, tuple)) and melodies and np.ndim(melodies[0]) == 0:
            melodies = [melodies]  # one melody given as a flat list of pitches
        rows = [self.check(m, f"melody {i}") - self.lowest_midi + 1 for i, m in enumerate(melodies)]
        if not rows:
            raise ValueError("expected at least one melody; got none.")
        return _pad(rows, "int32"), [len(r) for r in rows]

    def decode(self, class_ids):
        """MIDI pitches of class ids."""
        return [self.lowest_midi + int(i) for i in class_ids]

    def read(self, path):
        """The top line of a MIDI or MusicXML file (`keras_seq.data.midi.read_melody`), checked."""
        from keras_seq.data import midi

        if path.replace(",", " ").replace(" ", "").isdigit() and not os.path.exists(path):
            raise ValueError(
                f"{path!r} is not a music file; give a melody as a list of MIDI pitches, e.g. "
                f"[{', '.join(path.replace(',', ' ').split()[:3])}]."
            )
        return self.check(midi.read_melody(path), path)

    def write_midi(self, melody, path, tempo=100, quarters=1.0, velocity=80):
        """Writes `melody` as a one-track MIDI file, each note `quarters` quarter notes long; returns `path`."""
        from keras_seq.data import midi

        ticks = round(midi.TICKS_PER_QUARTER * quarters)
        events = [(int(p), i * ticks, ticks) for i, p in enumerate(self.check(melody))]
        midi.write(path, events, tempo=tempo, velocity=velocity)
        return path

    def get_config(self):
        return {"keys": self.keys, "lowest_midi": self.lowest_midi}


@keras.saving.register_keras_serializable(package="keras_seq")
class CharacterPreprocessor(Preprocessor):
    """Text <-> the symbol ids of a character language model trained on
    `keras_seq.data`'s `ptb_char` stream: a space is written `word_separator`
    (`_`) and a line end `end_of_line` (`<eos>`), as in the PTB files.

    A character outside `vocabulary` is an error naming it: the stream had
    no unknown-symbol rule (PTB's text is lowercased, with `<unk>` spelt
    out).

    Args:
        vocabulary: The id -> symbol list.
        word_separator: The symbol that stands for a space.
        end_of_line: The symbol that ends a line.

    Example:

    >>> p = CharacterPreprocessor(["_", "a", "b", "<eos>"])
    >>> p.encode("ab a\\n").tolist()
    [1, 2, 0, 1, 3]
    >>> p.decode([1, 0, 2, 3])
    'a b\\n'
    """

    ASSETS = ("vocabulary",)

    def __init__(self, vocabulary, word_separator="_", end_of_line=tokens.EOS):
        self.vocabulary = list(vocabulary)
        self.word_separator, self.end_of_line = word_separator, end_of_line
        self._index = {s: i for i, s in enumerate(self.vocabulary)}

    def symbols(self, text):
        if not isinstance(text, str):
            raise ValueError(f"expected a text (str); got {type(text).__name__}.")
        symbols = []
        for line_number, line in enumerate(text.split("\n")):
            if line_number:
                symbols.append(self.end_of_line)
            symbols.extend(self.word_separator if c == " " else c for c in line)
        return symbols

    def encode(self, text):
        """The int32 ids of `text`; a ValueError naming the characters the vocabulary lacks."""
        symbols = self.symbols(text)
        unknown = sorted({s for s in symbols if s not in self._index})
        if unknown:
            hint = " (its text is lowercase)" if any(c.isupper() for c in unknown) else ""
            raise ValueError(
                f"characters outside the model's vocabulary{hint}: "
                f"{' '.join(repr(c) for c in unknown)}; it knows "
                f"{''.join(s for s in self.vocabulary if len(s) == 1)!r}."
            )
        return np.asarray([self._index[s] for s in symbols], dtype="int32")

    def decode(self, ids):
        text = []
        for i in ids:
            symbol = self.vocabulary[int(i)]
            text.append(" " if symbol == self.word_separator else "\n" if symbol == self.end_of_line else symbol)
        return "".join(text)

    def get_config(self):
        return {"vocabulary": self.vocabulary, "word_separator": self.word_separator, "end_of_line": self.end_of_line}
