import numpy as np
import pytest

from keras_seq.data import music21_corpus



def test_bach_conversion_of_a_few_chorales(tmp_path):
    out = music21_corpus.cached("bach", limit=12, cache_dir=str(tmp_path))
    rolls, melodies = out["rolls"], out["melodies"]
    assert 8 <= len(rolls) <= 12 and len(melodies) == len(rolls)
    for roll, melody in zip(rolls, melodies):
        assert roll.shape[1] == 88 and set(np.unique(roll)) <= {0, 1}
        assert roll.sum(1).max() <= 4  # four voices at most
        assert (roll.sum(1) >= 3).mean() > 0.8  # mostly full four-part chords
        assert 55 <= melody.min() and melody.max() <= 84  # soprano range, MIDI
    again = music21_corpus.cached("bach", limit=12, cache_dir=str(tmp_path))
    assert all(np.array_equal(a, b) for a, b in zip(again["rolls"], rolls))
    assert again["seconds"] == out["seconds"]


def test_melody_sequences_shift_and_keep_zero_for_padding():
    sequences = music21_corpus.melody_sequences([np.array([60, 62, 64])])
    np.testing.assert_array_equal(sequences.inputs[0], [40, 42])
    np.testing.assert_array_equal(sequences.targets[0], [41, 43])


def test_kinderlieder_conversion(tmp_path):
    out = music21_corpus.cached("kinderlieder", limit=10, cache_dir=str(tmp_path))
    assert len(out["melodies"]) == 10
    assert all(len(m) >= 10 for m in out["melodies"])


def test_split_rule_is_deterministic():
    assert [music21_corpus.split_of(i) for i in range(10)] == ["train"] * 8 + ["valid", "test"]


def test_full_corpora_split_counts():
    """The whole conversion (minutes the first time, then cached in the Keras
    cache folder, so later runs and backends read the .npz)."""
    import keras_seq.data as data

    for name in ("bach_chorales", "bach_melodies", "kinderlieder"):
        for split, count in data.info(name).splits.items():
            sequences = data.load_arrays(name, split)
            assert len(sequences) == count, (name, split)
            assert all(len(x) == len(y) >= 1 for x, y in zip(sequences.inputs, sequences.targets))
    rolls = data.load_arrays("bach_chorales", "train")
    assert rolls.inputs[0].shape[1] == 88 and rolls.inputs[0].dtype == np.float32
