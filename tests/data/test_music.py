import json
import os
import pickle

import numpy as np
import pytest

import keras_seq.data as data
from keras_seq.data import music

PUBLISHED = {
    "jsb_chorales": ((229, 76, 77), (13807, 4602, 4725)),
    "nottingham": ((694, 173, 170), (176561, 45513, 44463)),
    "piano_midi": ((87, 12, 25), (75911, 8540, 19036)),
    "musedata": ((524, 135, 124), (245202, 82755, 64339)),
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_piano_roll_splits_match_the_published_counts(shared_data_dir, name):
    counts, frames = PUBLISHED[name]
    for split, count, total in zip(("train", "valid", "test"), counts, frames):
        rolls = music.piano_rolls(name, split, shared_data_dir)
        assert len(rolls) == count == data.info(name).splits[split]
        assert sum(len(r) for r in rolls) == total
        sequences = data.load_arrays(name, split, data_dir=shared_data_dir)
        assert len(sequences) == count
        first = rolls[0].astype("float32")
        np.testing.assert_array_equal(sequences.inputs[0], first[:-1])
        np.testing.assert_array_equal(sequences.targets[0], first[1:])
        assert sequences.inputs[0].shape[1] == 88 and sequences.inputs[0].dtype == np.float32


def test_json_and_pickle_formats_equal_the_mat_file(shared_data_dir, tmp_path):
    mat = music.piano_rolls("jsb_chorales", "test", shared_data_dir)
    from_json = music.piano_rolls("jsb_chorales", "test", shared_data_dir, source="json")
    assert all(np.array_equal(a, b) for a, b in zip(mat, from_json))

    with open(os.path.join(shared_data_dir, "jsb_chorales", "jsb-chorales-quarter.json")) as f:
        note_lists = json.load(f)
    os.makedirs(tmp_path / "jsb_chorales")
    with open(tmp_path / "jsb_chorales" / "JSB Chorales.pickle", "wb") as f:
        pickle.dump(note_lists, f, protocol=2)
    from_pickle = music.piano_rolls("jsb_chorales", "test", str(tmp_path), source="pickle")
    assert len(from_pickle) == 77
    assert all(np.array_equal(a, b) for a, b in zip(mat, from_pickle))


def test_corrupt_json_names_the_file(shared_data_dir, tmp_path):
    with open(os.path.join(shared_data_dir, "jsb_chorales", "jsb-chorales-quarter.json"), "rb") as f:
        text = f.read()
    os.makedirs(tmp_path / "jsb_chorales")
    (tmp_path / "jsb_chorales" / "jsb-chorales-quarter.json").write_bytes(text[: len(text) // 2])
    with pytest.raises(
        ValueError, match=r"jsb-chorales-quarter\.json: not valid JSON .*corrupt or truncated"
    ) as caught:
        music.piano_rolls("jsb_chorales", "test", str(tmp_path), source="json")
    assert isinstance(caught.value.__cause__, json.JSONDecodeError)


def test_note_outside_the_piano_is_an_error():
    with pytest.raises(ValueError, match="MIDI note 120"):
        music.notes_to_roll([[60], [120]], "example.pickle")


def test_corrupt_mat_file_names_the_problem(tmp_path):
    os.makedirs(tmp_path / "nottingham")
    (tmp_path / "nottingham" / "Nottingham.mat").write_bytes(b"MATLAB 5.0 garbage")
    with pytest.raises(ValueError, match="Checksum mismatch"):
        music.piano_rolls("nottingham", "train", str(tmp_path))
    with pytest.raises(ValueError, match="not a readable MATLAB file"):
        music.read_mat(str(tmp_path / "nottingham" / "Nottingham.mat"), "train")


def test_non_binary_roll_is_rejected():
    with pytest.raises(ValueError, match="not a binary piano roll"):
        music.check_piano_rolls([np.full((3, 88), 2, "uint8")], "x.mat")


def test_mat_values_are_checked_before_the_uint8_conversion(tmp_path, monkeypatch):
    from scipy import io as scipy_io

    roll = np.zeros((4, 88))
    roll[1, 3] = 0.5  # uint8 would make it 0, silently
    cell = np.empty((1,), dtype=object)
    cell[0] = roll
    path = str(tmp_path / "rolls.mat")
    scipy_io.savemat(path, {"traindata": cell})
    with pytest.raises(ValueError, match=r"rolls.mat: sequence 0 of 'traindata' is not a binary piano roll"):
        music.read_mat(path, "train")
    roll[1, 3] = np.nan
    scipy_io.savemat(path, {"traindata": cell})
    with pytest.raises(ValueError, match="not a binary piano roll"):
        music.read_mat(path, "train")
    roll[1, 3] = 1.0
    scipy_io.savemat(path, {"traindata": cell})
    (read,) = music.read_mat(path, "train")
    assert read.dtype == np.uint8 and read[1, 3] == 1 and read.sum() == 1


def test_fractional_midi_note_is_an_error():
    with pytest.raises(ValueError, match=r"MIDI note 60.7 at step 1 is not a whole number"):
        music.notes_to_roll([[60], [60.7]], "rolls.json")
    assert music.notes_to_roll([[60.0]], "rolls.json")[0, 60 - music.LOWEST_MIDI] == 1
