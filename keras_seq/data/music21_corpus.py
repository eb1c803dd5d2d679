"""Datasets built from the corpus that ships inside the `music21` package,
so they need no download: the embedded default of the project.

- `bach_chorales`: four-part Bach chorales as 88-key piano rolls at
  quarter-note resolution (a note sounds in frame k when it sounds at beat k),
  next-frame prediction like JSB Chorales.
- `bach_melodies`: the soprano lines of the same chorales as pitch events
  (ties merged, rests skipped), next-pitch prediction, 88 classes
  (target = MIDI note - 21; input ids are that + 1, so 0 can pad).
- `kinderlieder`: the Essen folksong collection's German children's songs
  (`essenFolksong/kinder0.abc`), as pitch events the same way.

Split (deterministic): pieces in corpus order; every 10th piece starting at
the 9th goes to `valid`, every 10th starting at the 10th to `test`, the rest
(80 %) to `train`. The conversion runs once and is cached as `.npz` in the
Keras cache folder (`~/.keras/datasets/keras_seq/music21/`); later loads
take milliseconds. For the chorales it takes 15-25 s on two CPU cores:
`keras_seq.data.musicxml` reads the MusicXML files directly and gives the
same rolls and melodies as parsing them with music21 (2-8 minutes); the few
files that reader does not handle (Humdrum `.krn`, a tied chord, a piano
score) still go through `music21.corpus.parse`.
"""

import math
import os
import sys
import time
import zipfile

import numpy as np

from keras_seq.data import files
from keras_seq.data import musicxml
from keras_seq.data import registry
from keras_seq.data.music import LOWEST_MIDI
from keras_seq.data.music import NUM_KEYS
from keras_seq.data.music import next_frame

CACHE_VERSION = 1
# With music21 10.5: 412 of its Bach chorales have four SATB parts; the
# Kinderlieder file holds 213 songs.
BACH_SPLITS = {"train": 330, "valid": 41, "test": 41}
KINDERLIEDER_SPLITS = {"train": 171, "valid": 21, "test": 21}
SATB = ("soprano", "alto", "tenor", "bass")


def _music21():
    try:
        import music21
    except ImportError:
        raise ImportError(
            "This dataset is built from the corpus inside the `music21` package: "
            "pip install music21 (or keras-seq[music])."
        ) from None
    return music21


def split_of(index):
    return {8: "valid", 9: "test"}.get(index % 10, "train")


def _satb(parts, label_of):
    """The four SATB parts, picked by name (soprano/alto/tenor/bass, first
    match wins), else the parts themselves when there are exactly four, else
    None."""
    named = {}
    for part in parts:
        label = label_of(part).lower()
        for voice in SATB:
            if label.startswith(voice) and voice not in named:
                named[voice] = part
    if len(named) == 4:
        return [named[v] for v in SATB]
    return parts if len(parts) == 4 else None


def _voices(score):
    """The four SATB parts of a music21 chorale, or None when it has no such four."""
    return _satb(list(score.parts), lambda part: part.partName or part.id or "")


def piano_roll(beats, notes):
    """A (beats, 88) roll from (start, length, MIDI pitches) triples, both in
    quarter notes: a note sets the frames ceil(start) .. ceil(start + length) - 1.
    Notes of length 0 (grace notes) are skipped."""
    roll = np.zeros((beats, NUM_KEYS), dtype="uint8")
    for start, length, pitches in notes:
        if length <= 0:
            continue
        first, last = math.ceil(start), math.ceil(start + length)
        for midi in pitches:
            key = midi - LOWEST_MIDI
            if 0 <= key < NUM_KEYS:
                roll[first:last, key] = 1
    return roll


def chorale_roll(score):
    """A (beats, 88) piano roll of a music21 score sampled on every quarter-note beat."""
    voices = _voices(score)
    if voices is None:
        return None
    notes = (
        (float(n.offset), float(n.quarterLength), [p.midi for p in n.pitches])
        for part in voices
        for n in part.flatten().notes
    )
    return piano_roll(int(math.ceil(float(score.highestTime))), notes)


def pitch_events(part):
    """MIDI pitches of a music21 monophonic line, ties merged, rests skipped."""
    events = []
    for note in part.stripTies().flatten().notes:
        if float(note.quarterLength) > 0:
            events.append(max(p.midi for p in note.pitches))
    return np.asarray(events, dtype="int32")


def _chorale_from_music21(path):
    """(roll, soprano melody) of one chorale parsed by music21, or None."""
    score = _music21().corpus.parse(path)
    roll = chorale_roll(score)
    if roll is None or len(roll) < 2:
        return None
    return roll, pitch_events(_voices(score)[0])


def chorale_from_musicxml(path):
    """(roll, soprano melody) of one chorale read by the fast MusicXML reader,
    equal to `_chorale_from_music21`; None when it is no SATB chorale.
    Raises `musicxml.UnsupportedMusicXML` for a file the reader cannot handle."""
    parts = musicxml.read_parts(path)
    voices = _satb(parts, lambda part: part.name)
    if voices is None:
        return None
    beats = int(math.ceil(max(part.highest_time for part in parts)))
    notes = ((e.offset, e.length, e.pitches) for part in voices for e in part.events if not e.is_rest)
    roll = piano_roll(beats, notes)
    if len(roll) < 2:
        return None
    kept = musicxml.strip_ties(musicxml.sounding_order(voices[0]))
    melody = np.asarray([max(e.pitches) for e in kept if not e.is_rest], dtype="int32")
    return roll, melody


def _convert_chorale(path):
    """The fast reader where it applies, music21 for anything else (Humdrum
    files, constructs the reader does not reproduce)."""
    try:
        return chorale_from_musicxml(path)
    except musicxml.UnsupportedMusicXML:
        return _chorale_from_music21(path)


def bach_paths(limit=None):
    """The Bach chorale files of music21's corpus in sorted-path order."""
    paths = sorted(str(p) for p in _music21().corpus.getComposer("bach"))
    return [p for p in paths if p.endswith((".mxl", ".xml", ".musicxml", ".krn"))][:limit]


def _progress(items, label):
    """Yields `items`, reporting progress on stderr: a rewritten line on a
    terminal, a line per quarter otherwise (logs, notebooks)."""
    total = len(items)
    terminal = sys.stderr.isatty()
    for done, item in enumerate(items, 1):
        yield item
        if terminal:
            print(f"\r{label}: {done}/{total}", end="" if done < total else "\n", file=sys.stderr, flush=True)
        elif done == total or done % max(1, total // 4) == 0:
            print(f"{label}: {done}/{total}", file=sys.stderr, flush=True)


def convert_bach(limit=None):
    """Reads the chorales; returns ([rolls], [soprano melodies], seconds)."""
    paths = bach_paths(limit)
    start = time.perf_counter()
    converted = map(_convert_chorale, _progress(paths, "converting music21's Bach chorales (once)"))
    kept = [c for c in converted if c is not None]
    return [c[0] for c in kept], [c[1] for c in kept], time.perf_counter() - start


def convert_kinderlieder(limit=None):
    music21 = _music21()
    start = time.perf_counter()
    opus = music21.corpus.parse("essenFolksong/kinder0.abc")
    melodies = [pitch_events(score) for score in list(opus.scores)[:limit]]
    melodies = [m for m in melodies if len(m) >= 2]
    return melodies, time.perf_counter() - start


def _pack(arrays):
    lengths = np.array([len(a) for a in arrays], dtype="int64")
    return np.concatenate(arrays), lengths


def _unpack(flat, lengths):
    return np.split(flat, np.cumsum(lengths)[:-1])


def cached(name, limit=None, cache_dir=None):
    """{"rolls"/"melodies": [...], "seconds": first conversion time}."""
    cache_dir = cache_dir or os.path.join(files.cache_dir(), "music21")
    suffix = "" if limit is None else f"_first{limit}"
    path = os.path.join(cache_dir, f"{name}_v{CACHE_VERSION}{suffix}.npz")
    if os.path.isfile(path):
        try:
            with np.load(path, allow_pickle=False) as data:
                out = {
                    k[:-5]: _unpack_checked(k[:-5], data[k[:-5] + "_flat"], data[k])
                    for k in data.files
                    if k.endswith("_lens")
                }
                out["seconds"] = float(data["seconds"])
            expected = {"rolls", "melodies"} if name == "bach" else {"melodies"}
            if set(out) - {"seconds"} != expected:
                raise ValueError(f"it holds {sorted(set(out) - {'seconds'})}, not {sorted(expected)}")
            return out
        except (zipfile.BadZipFile, EOFError, KeyError, ValueError, OSError) as error:
            print(
                f"keras_seq.data: the music21 cache {path} is damaged ({type(error).__name__}: {error}); "
                "converting the corpus again.",
                file=sys.stderr,
                flush=True,
            )
            os.remove(path)
    if name == "bach":
        rolls, melodies, seconds = convert_bach(limit)
        out = {"rolls": rolls, "melodies": melodies, "seconds": seconds}
    else:
        melodies, seconds = convert_kinderlieder(limit)
        out = {"melodies": melodies, "seconds": seconds}
    arrays = {}
    for key in ("rolls", "melodies"):
        if key in out:
            arrays[key + "_flat"], arrays[key + "_lens"] = _pack(out[key])
    os.makedirs(cache_dir, exist_ok=True)
    partial = f"{path}.{os.getpid()}.part.npz"  # concurrent test runs each write their own
    np.savez_compressed(partial, seconds=seconds, **arrays)
    os.replace(partial, path)
    return out


def _unpack_checked(key, flat, lengths):
    """`_unpack` of a cache's arrays, after checking that they are what
    `cached` writes: lengths that add up to the flat array, piano-roll rows
    of NUM_KEYS zeros and ones, melodies of MIDI pitches 0..127 (a
    ValueError naming the problem otherwise)."""
    if lengths.ndim != 1 or (lengths < 0).any() or int(lengths.sum()) != len(flat):
        raise ValueError(f"{key}: lengths adding up to {int(lengths.sum())} for {len(flat)} rows")
    if key == "rolls" and (flat.ndim != 2 or flat.shape[1] != NUM_KEYS or not np.isin(flat, (0, 1)).all()):
        raise ValueError(f"rolls: rows of shape {flat.shape[1:]} or values other than 0 and 1")
    if key == "melodies" and (flat.ndim != 1 or flat.dtype.kind not in "iu" or (flat < 0).any() or (flat > 127).any()):
        raise ValueError("melodies: values that are not MIDI pitches 0..127")
    return _unpack(flat, lengths)


def _select(items, split):
    return [item for i, item in enumerate(items) if split_of(i) == split]


def melody_sequences(melodies):
    """Inputs are key + 1 (0 stays free for padding, `mask_zero=True`);
    targets are the key of the next note, 0..87."""
    keys = [np.clip(m - LOWEST_MIDI, 0, NUM_KEYS - 1).astype("int32") for m in melodies]
    return registry.Sequences([k[:-1] + 1 for k in keys], [k[1:] for k in keys])


def _load_chorales(split, data_dir=None, limit=None, cache_dir=None):
    return next_frame(_select(cached("bach", limit, cache_dir)["rolls"], split))


def _load_bach_melodies(split, data_dir=None, limit=None, cache_dir=None):
    return melody_sequences(_select(cached("bach", limit, cache_dir)["melodies"], split))


def _load_kinderlieder(split, data_dir=None, limit=None, cache_dir=None):
    return melody_sequences(_select(cached("kinderlieder", limit, cache_dir)["melodies"], split))


_SOURCE = "music21 corpus (ships with the music21 package; no download)"
registry.register(
    registry.DatasetInfo(
        name="bach_chorales",
        description="Four-part Bach chorales from music21, 88-key piano rolls per quarter note; next-frame prediction.",
        task="next_frame",
        splits=BACH_SPLITS,
        input_shape=(NUM_KEYS,),
        input_dtype="float32",
        num_classes=None,
        source=_SOURCE,
    ),
    _load_chorales,
)
registry.register(
    registry.DatasetInfo(
        name="bach_melodies",
        description="Soprano lines of the music21 Bach chorales as pitch events; next-pitch prediction (88 classes).",
        task="next_token",
        splits=BACH_SPLITS,
        input_shape=(),
        input_dtype="int32",
        num_classes=NUM_KEYS,
        source=_SOURCE,
        vocabulary_size=NUM_KEYS + 1,
    ),
    _load_bach_melodies,
)
registry.register(
    registry.DatasetInfo(
        name="kinderlieder",
        description="Essen folksong collection, German children's songs (music21 corpus), pitch events; "
        "next-pitch prediction.",
        task="next_token",
        splits=KINDERLIEDER_SPLITS,
        input_shape=(),
        input_dtype="int32",
        num_classes=NUM_KEYS,
        source=_SOURCE + "; Essen Associative Code folksong database (Schaffrath)",
        vocabulary_size=NUM_KEYS + 1,
    ),
    _load_kinderlieder,
)
