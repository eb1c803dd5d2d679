import numpy as np
import pytest

from keras_seq.data import music21_corpus
from keras_seq.data import musicxml

music21 = pytest.importorskip("music21")

# Chorales whose MusicXML exercises what the fast reader must reproduce:
# tie "continue" and measure="yes" rests (bwv10.7), several voices in one part
# with <backup> (bwv248.23-2), a Finale <forward> that ends the piece
# (bwv111.6), Finale <forward> rests kept mid-piece (bwv171.6), grace notes
# (bwv299), extra instrument parts around the SATB ones (bwv1.6).
FEATURE_CHORALES = ("bwv10.7", "bwv248.23-2", "bwv111.6", "bwv171.6", "bwv299", "bwv1.6")


def _corpus_path(name):
    return next(p for p in music21_corpus.bach_paths() if p.rsplit("/", 1)[-1].startswith(name + "."))


def _assert_same_chorale(fast, slow):
    assert (fast is None) == (slow is None)
    if fast is not None:
        np.testing.assert_array_equal(fast[0], slow[0])
        np.testing.assert_array_equal(fast[1], slow[1])


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


def test_a_truncated_cache_is_named_and_rebuilt(tmp_path, capsys):
    out = music21_corpus.cached("bach", limit=4, cache_dir=str(tmp_path))
    (path,) = tmp_path.glob("bach_*.npz")
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])  # a crash mid-write, or a full disk
    rebuilt = music21_corpus.cached("bach", limit=4, cache_dir=str(tmp_path))
    err = capsys.readouterr().err
    assert f"the music21 cache {path} is damaged" in err and "converting the corpus again" in err
    assert "converting music21's Bach chorales (once): 4/4" in err  # progress while converting
    assert all(np.array_equal(a, b) for a, b in zip(rebuilt["rolls"], out["rolls"]))
    assert music21_corpus.cached("bach", limit=4, cache_dir=str(tmp_path))["seconds"] == rebuilt["seconds"]


@pytest.mark.parametrize(
    "damage, named",
    [
        (lambda a: a.update(rolls_lens=a["rolls_lens"] + 1), "rolls: lengths adding up to"),
        (lambda a: a.update(rolls_flat=a["rolls_flat"] * 2), "rolls: rows of shape"),
        (lambda a: a.update(melodies_flat=a["melodies_flat"] + 200), "melodies: values that are not MIDI pitches"),
        (lambda a: (a.pop("melodies_flat"), a.pop("melodies_lens")), "it holds ['rolls'], not ['melodies', 'rolls']"),
    ],
)
def test_a_cache_that_unzips_but_holds_other_values_is_named_and_rebuilt(damage, named, tmp_path, capsys):
    out = music21_corpus.cached("bach", limit=4, cache_dir=str(tmp_path))
    (path,) = tmp_path.glob("bach_*.npz")
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    damage(arrays)
    with open(path, "wb") as f:
        np.savez_compressed(f, **arrays)
    rebuilt = music21_corpus.cached("bach", limit=4, cache_dir=str(tmp_path))
    err = capsys.readouterr().err
    assert f"the music21 cache {path} is damaged" in err and named in err
    assert all(np.array_equal(a, b) for a, b in zip(rebuilt["rolls"], out["rolls"]))


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
    """The whole conversion (about 20 s the first time, then cached in the Keras
    cache folder, so later runs and backends read the .npz)."""
    import keras_seq.data as data

    for name in ("bach_chorales", "bach_melodies", "kinderlieder"):
        for split, count in data.info(name).splits.items():
            sequences = data.load_arrays(name, split)
            assert len(sequences) == count, (name, split)
            assert all(len(x) == len(y) >= 1 for x, y in zip(sequences.inputs, sequences.targets))
    rolls = data.load_arrays("bach_chorales", "train")
    assert rolls.inputs[0].shape[1] == 88 and rolls.inputs[0].dtype == np.float32


@pytest.mark.parametrize("name", FEATURE_CHORALES)
def test_fast_reader_matches_music21(name):
    path = _corpus_path(name)
    fast = music21_corpus.chorale_from_musicxml(path)
    assert fast is not None and len(fast[0]) > 8 and len(fast[1]) > 8
    _assert_same_chorale(fast, music21_corpus._chorale_from_music21(path))


def _part_xml(part_id, measure, beats):
    attributes = f"<divisions>2</divisions><time><beats>{beats}</beats><beat-type>4</beat-type></time>"
    return f'<part id="{part_id}"><measure number="1"><attributes>{attributes}</attributes>{measure}</measure></part>'


def _note(step, octave, duration, extra="", alter=0):
    """A <note>; `extra` goes before the pitch (<chord/>, <grace/>, ...),
    except for ties and voices, which MusicXML puts after the duration."""
    before, after = ("", extra) if extra.startswith(("<tie", "<voice")) else (extra, "")
    pitch = f"<step>{step}</step>" + (f"<alter>{alter}</alter>" if alter else "") + f"<octave>{octave}</octave>"
    length = "" if duration is None else f"<duration>{duration}</duration>"
    return f"<note>{before}<pitch>{pitch}</pitch>{length}{after}</note>"


def _write_score(path, soprano, alto=None, tenor=None, bass=None, beats=4):
    """A one-measure SATB score; by default alto holds a chord, tenor two
    voices, bass a tied note."""
    if alto is None:
        alto = _note("C", 4, 8) + _note("E", 4, 8, "<chord/>")
    if tenor is None:
        tenor = _note("G", 3, 4, "<voice>1</voice>") + _note("A", 3, 4, "<voice>1</voice>")
        tenor += "<backup><duration>8</duration></backup>" + _note("E", 3, 8, "<voice>2</voice>")
    if bass is None:
        bass = _note("C", 3, 4, '<tie type="start"/>') + _note("C", 3, 4, '<tie type="stop"/>')
    names = ("Soprano", "Alto", "Tenor", "Bass")
    part_list = "".join(f'<score-part id="P{i}"><part-name>{n}</part-name></score-part>' for i, n in enumerate(names))
    body = "".join(_part_xml(f"P{i}", m, beats) for i, m in enumerate((soprano, alto, tenor, bass)))
    path.write_text(f'<?xml version="1.0"?><score-partwise><part-list>{part_list}</part-list>{body}</score-partwise>')
    return str(path)


def _assert_same_as_music21(path, roll, melody):
    score = music21.converter.parse(path)
    np.testing.assert_array_equal(roll, music21_corpus.chorale_roll(score))
    np.testing.assert_array_equal(melody, music21_corpus.pitch_events(music21_corpus._voices(score)[0]))


def test_fast_reader_handles_chords_voices_and_ties(tmp_path):
    soprano = _note("G", 4, 3, '<tie type="start"/>') + _note("G", 4, 1, '<tie type="stop"/>')
    soprano += _note("A", 4, None, "<grace/>") + _note("B", 4, 4, alter=-1)
    path = _write_score(tmp_path / "small.xml", soprano)
    roll, melody = music21_corpus.chorale_from_musicxml(path)
    np.testing.assert_array_equal(melody, [67, 70])  # tie merged, grace note skipped
    assert roll.shape == (4, 88)
    assert roll[0, [48 - 21, 52 - 21, 55 - 21, 60 - 21, 64 - 21, 67 - 21]].all() and roll[0].sum() == 6
    _assert_same_as_music21(path, roll, melody)


def test_fast_reader_orders_voices_and_stretches_a_whole_rest(tmp_path):
    soprano = _note("G", 4, 6, "<voice>1</voice>") + "<backup><duration>6</duration></backup>"
    soprano += _note("E", 4, 2, "<voice>2</voice>") + _note("F", 4, 4, "<voice>2</voice>")
    whole_rest = "<note><rest/><duration>8</duration><type>whole</type></note>"  # 4 beats in 3/4
    path = _write_score(
        tmp_path / "voices.xml", soprano, alto=whole_rest, tenor=_note("C", 4, 6), bass=_note("C", 3, 6), beats=3
    )
    roll, melody = music21_corpus.chorale_from_musicxml(path)
    np.testing.assert_array_equal(melody, [67, 64, 65])  # voice 1 first at equal offsets
    assert roll.shape == (3, 88)  # the whole rest lasts the 3/4 bar, as in music21
    _assert_same_as_music21(path, roll, melody)


def test_unsupported_files_raise_naming_the_file_and_fall_back(tmp_path):
    krn = _corpus_path("bwv277")
    assert krn.endswith(".krn")
    with pytest.raises(musicxml.UnsupportedMusicXML, match="bwv277.krn"):
        music21_corpus.chorale_from_musicxml(krn)
    converted = music21_corpus._convert_chorale(krn)
    assert converted is not None
    _assert_same_chorale(converted, music21_corpus._chorale_from_music21(krn))
    broken = tmp_path / "broken.mxl"
    broken.write_bytes(b"not a zip file")
    with pytest.raises(musicxml.UnsupportedMusicXML, match="broken.mxl"):
        musicxml.read_parts(str(broken))
    cue = _write_score(tmp_path / "cue.xml", _note("G", 4, 8, "<cue/>"))
    with pytest.raises(musicxml.UnsupportedMusicXML, match="cue.xml.*cue"):
        musicxml.read_parts(cue)
