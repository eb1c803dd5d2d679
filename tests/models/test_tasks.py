"""The tasks a preset loads into (SequenceTagger, PianoRollModel,
CharacterLanguageModel, MelodyModel) and their preprocessors: what a user's own data
becomes, what comes back, and the errors bad input gets."""

import keras
import numpy as np
import pytest

from keras_seq import layers
from keras_seq.data import midi
from keras_seq.data import tokens
from keras_seq.models import CharacterLanguageModel
from keras_seq.models import CharacterPreprocessor
from keras_seq.models import LetterImagePreprocessor
from keras_seq.models import MelodyModel
from keras_seq.models import MelodyPreprocessor
from keras_seq.models import PianoRollModel
from keras_seq.models import PianoRollPreprocessor
from keras_seq.models import SequenceTagger
from keras_seq.models import Task
from keras_seq.models import WordPreprocessor

WORDS = ["<pad>", "<oov>", "the", "cat", "sat", "."]
TAGS = ["DT", "NN", "VBD", "."]


def _words(suffixes=False):
    return WordPreprocessor(
        WORDS,
        TAGS,
        suffixes={2: ["<pad>", "<oov>", "he", "at"], 3: ["<pad>", "<oov>", "the", "cat"]} if suffixes else None,
    )


def _tagger(suffixes=False):
    if suffixes:
        x = keras.Input((None, 4), dtype="int32")
        features = layers.FeatureEmbedding((len(WORDS), 4, 4, len(tokens.WORD_SHAPES) + 1), 6)(x)
    else:
        x = keras.Input((None,), dtype="int32")
        features = keras.layers.Embedding(len(WORDS), 6)(x)
    outputs = keras.layers.Dense(len(TAGS))(keras.layers.LSTM(5, return_sequences=True)(features))
    return SequenceTagger(keras.Model(x, outputs), _words(suffixes))


def test_word_ids_follow_the_training_rules():
    ids, lengths = _words(suffixes=True)([["The", "cat", "Sat", "42"]])
    assert lengths == [4]
    # word id (case kept: "The" is unknown), suffix-2, suffix-3 ids (lowercased), shape id
    assert ids[0].tolist() == [[1, 2, 2, 2], [3, 3, 3, 1], [1, 3, 1, 2], [1, 1, 1, 4]]


@pytest.mark.parametrize(
    "bad, message",
    [
        ("the cat sat", "one string"),
        (["the cat sat"], "sentence 0 is one string"),
        ([[]], "sentence 0 is empty"),
        ([], "at least one sentence"),
        ([["the", 3]], "non-empty string"),
    ],
)
def test_word_preprocessor_names_bad_input(bad, message):
    with pytest.raises(ValueError, match=message):
        _words()(bad)


def test_tagger_labels_each_sentence_as_if_alone():
    tagger = _tagger(suffixes=True)
    sentences = [["the", "cat", "sat", "."], ["cat"], ["the", "dog", "sat", "on", "the", "cat", "."]]
    together = tagger.label(sentences, batch_size=2)
    alone = [tagger.label([s])[0] for s in sentences]
    assert together == alone
    assert [len(t) for t in together] == [4, 1, 7]
    assert all(tag in TAGS for tags in together for tag in tags)


def test_tagger_labels_are_the_argmax_of_its_backbone():
    tagger = _tagger()
    ids, _ = tagger.preprocessor([["the", "cat", "sat"]])
    expected = np.argmax(keras.ops.convert_to_numpy(tagger.backbone(ids)), axis=-1)[0]
    assert tagger.label([["the", "cat", "sat"]])[0] == [TAGS[i] for i in expected]


def test_task_saves_and_loads_with_its_preprocessor(tmp_path):
    tagger = _tagger(suffixes=True)
    path = str(tmp_path / "tagger.keras")
    tagger.save(path)
    loaded = keras.saving.load_model(path)
    assert type(loaded) is SequenceTagger and loaded.preprocessor == tagger.preprocessor
    sentences = [["the", "cat", "sat", "."]]
    assert loaded.label(sentences) == tagger.label(sentences)
    ids, _ = tagger.preprocessor(sentences)
    np.testing.assert_allclose(loaded.predict_steps(ids), tagger.predict_steps(ids), atol=1e-6)


def test_task_refuses_an_unbuilt_backbone():
    with pytest.raises(ValueError, match="built keras.Model"):
        Task(keras.Sequential([keras.layers.Dense(2)]))


def test_letter_images_shapes_and_values():
    letters = LetterImagePreprocessor()
    batch, lengths = letters([np.zeros((3, 16, 8)), np.ones((5, 128))])
    assert batch.shape == (2, 5, 128) and lengths == [3, 5]
    with pytest.raises(ValueError, match=r"shape \(letters, 16, 8\)"):
        letters([np.zeros((3, 8, 16))])
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        letters([np.full((2, 128), 255.0)])


def _music_model(units=8):
    backbone = keras.Sequential(
        [
            keras.Input((None, 88)),
            keras.layers.LSTM(units, return_sequences=True),
            keras.layers.Dense(88, activation="sigmoid"),
        ]
    )
    return PianoRollModel(backbone, PianoRollPreprocessor())


def test_generation_is_seeded_and_keeps_its_primer():
    model = _music_model()
    primer = np.zeros((3, 88), "float32")
    primer[:, [39, 43, 46]] = 1  # C major, three beats
    first = model.generate(frames=10, primer=primer, seed=3)
    assert first.shape == (13, 88) and np.isin(first, (0, 1)).all()
    np.testing.assert_array_equal(first[:3], primer)
    np.testing.assert_array_equal(first, model.generate(frames=10, primer=primer, seed=3))
    assert not np.array_equal(first, model.generate(frames=10, primer=primer, seed=4))


def test_generated_frames_follow_the_backbone_probabilities():
    # A backbone that predicts one key on, every other off: the sampled
    # frames must be exactly that key, whatever the seed.
    inputs = keras.Input((None, 88))
    bias = np.full(88, -30.0, "float32")
    bias[50] = 30.0
    dense = keras.layers.Dense(
        88, activation="sigmoid", kernel_initializer="zeros", bias_initializer=keras.initializers.Constant(bias)
    )
    model = PianoRollModel(keras.Model(inputs, dense(inputs)), PianoRollPreprocessor())
    roll = model.generate(frames=6, seed=0)
    assert roll[1:].sum() == 6 and roll[1:, 50].all()


def test_midi_round_trip_through_music21(tmp_path):
    pytest.importorskip("music21")
    model = _music_model()
    roll = model.generate(frames=12, seed=0, temperature=0.5)
    path = model.write_midi(roll, str(tmp_path / "piece.mid"))
    back = model.preprocessor.read(path)
    last = int(np.flatnonzero(roll.any(axis=1)).max()) + 1
    np.testing.assert_array_equal(back, roll[:last])
    scores = model.score(path)
    assert 0 <= scores["frame_accuracy"] <= 1 and scores["frame_nll"] > 0


def test_midi_bytes_are_a_standard_midi_file():
    data = midi.midi_bytes([(60, 0, 480), (64, 480, 480)], tempo=120)
    assert data[:4] == b"MThd" and data[14:18] == b"MTrk"
    assert data.count(b"\x90\x3c\x50") == 1 and data.count(b"\x80\x40\x00") == 1


def test_music_input_errors(tmp_path):
    model = _music_model()
    fake = tmp_path / "song.mid"
    fake.write_bytes(b"not a midi file")
    with pytest.raises(ValueError, match="not a MIDI file"):
        model.score(str(fake))
    text = tmp_path / "song.txt"
    text.write_text("C D E")
    with pytest.raises(ValueError, match="expected a MIDI"):
        model.preprocessor.read(str(text))
    with pytest.raises(FileNotFoundError, match="no music file"):
        model.preprocessor.read(str(tmp_path / "missing.mid"))
    with pytest.raises(ValueError, match=r"\(frames, 88\)"):
        model.generate(frames=2, primer=np.zeros((4, 12)))
    with pytest.raises(ValueError, match="0 and 1"):
        model.score(np.full((4, 88), 0.5))
    with pytest.raises(ValueError, match="frames must be a positive integer"):
        model.generate(frames=0)


def _language_model(stateful=False):
    vocabulary = ["_", "a", "b", "c", "<eos>"]
    batch = 3 if stateful else None
    x = keras.Input((None,), batch_size=batch, dtype="int32")
    hidden = keras.layers.LSTM(8, return_sequences=True, stateful=stateful)(keras.layers.Embedding(5, 8)(x))
    return CharacterLanguageModel(keras.Model(x, keras.layers.Dense(5)(hidden)), CharacterPreprocessor(vocabulary))


@pytest.mark.parametrize("stateful", [False, True])
def test_language_model_scores_in_bits_as_its_backbone_predicts(stateful):
    lm = _language_model(stateful)
    text = "ab ca\nbc"
    ids = lm.preprocessor.encode(text)
    for layer in lm.backbone.layers:
        if getattr(layer, "stateful", False):
            layer.reset_states()
    batch = np.repeat(ids[None, :-1], lm._batch, axis=0)
    logits = keras.ops.convert_to_numpy(lm.backbone(batch))[0].astype("float64")
    log_p = logits - np.logaddexp.reduce(logits, axis=-1, keepdims=True)
    expected = -log_p[np.arange(len(ids) - 1), ids[1:]].mean() / np.log(2)
    scores = lm.score(text)
    assert scores["characters"] == len(ids) - 1
    np.testing.assert_allclose(scores["bits_per_character"], expected, rtol=1e-5)


@pytest.mark.parametrize("stateful", [False, True])
def test_language_model_continues_its_prompt(stateful):
    lm = _language_model(stateful)
    text = lm.generate("ab c", length=12, seed=0)
    assert text.startswith("ab c") and len(lm.preprocessor.symbols(text)) == 16
    assert text == lm.generate("ab c", length=12, seed=0)


def test_character_errors():
    lm = _language_model()
    with pytest.raises(ValueError, match=r"outside the model's vocabulary \(its text is lowercase\): 'A'"):
        lm.generate("A b")
    with pytest.raises(ValueError, match="prompt is empty"):
        lm.generate("")
    with pytest.raises(ValueError, match="expected a text"):
        lm.score(["a", "b"])


def _melody_model():
    x = keras.Input((None,), dtype="int32")
    hidden = keras.layers.LSTM(8, return_sequences=True)(keras.layers.Embedding(89, 8, mask_zero=True)(x))
    return MelodyModel(keras.Model(x, keras.layers.Dense(88)(hidden)), MelodyPreprocessor())


def test_melody_scores_in_bits_as_its_backbone_predicts():
    model = _melody_model()
    melody = [60, 62, 64, 65, 67, 65, 64]
    ids = np.asarray(melody[:-1], "int32")[None] - 20  # input id: pitch - 21 + 1
    logits = keras.ops.convert_to_numpy(model.backbone(ids))[0].astype("float64")
    log_p = logits - np.logaddexp.reduce(logits, axis=-1, keepdims=True)
    targets = np.asarray(melody[1:]) - 21
    scores = model.score(melody)
    assert scores["notes"] == 6
    np.testing.assert_allclose(scores["bits_per_note"], -log_p[np.arange(6), targets].mean() / np.log(2), rtol=1e-5)
    assert scores["next_pitch_error"] == np.mean(np.argmax(log_p, axis=-1) != targets)
    assert model.predict_next([melody])[0] == [21 + int(k) for k in np.argmax(log_p, axis=-1)] + [
        model.predict_next([melody])[0][-1]
    ]


def test_melody_generation_is_seeded_keeps_its_primer_and_follows_the_backbone():
    model = _melody_model()
    first = model.generate([60, 64], notes=9, seed=1)
    assert len(first) == 11 and first[:2].tolist() == [60, 64] and ((first >= 21) & (first <= 108)).all()
    np.testing.assert_array_equal(first, model.generate([60, 64], notes=9, seed=1))
    x = keras.Input((None,), dtype="int32")
    bias = np.full(88, -30.0, "float32")
    bias[67 - 21] = 30.0  # always G4
    dense = keras.layers.Dense(88, kernel_initializer="zeros", bias_initializer=keras.initializers.Constant(bias))
    sure = MelodyModel(keras.Model(x, dense(keras.layers.Embedding(89, 2)(x))), MelodyPreprocessor())
    assert sure.generate([60], notes=5, seed=0).tolist() == [60, 67, 67, 67, 67, 67]


def test_melody_midi_round_trip_and_errors(tmp_path):
    model = _melody_model()
    melody = model.generate([60], notes=12, seed=0)
    path = model.write_midi(melody, str(tmp_path / "tune.mid"))
    np.testing.assert_array_equal(model.preprocessor.read(path), melody)
    assert model.score(path)["notes"] == 12
    chord = tmp_path / "chords.mid"
    midi.write(str(chord), [(48, 0, 960), (60, 0, 480), (64, 0, 480), (62, 480, 480)])
    assert midi.read_melody(str(chord)).tolist() == [64, 62]  # the top note at each onset
    with pytest.raises(ValueError, match=r"pitches \[12, 120\] lie outside the model's range, MIDI 21-108"):
        model.score([60, 12, 120])
    with pytest.raises(ValueError, match=r"not a music file; give a melody as a list of MIDI pitches, e.g. \[60, 62"):
        model.generate("60 62 64")
    with pytest.raises(ValueError, match="whole numbers"):
        model.predict_next([[60.5, 62]])
    with pytest.raises(ValueError, match="at least two notes"):
        model.score([60])
    with pytest.raises(ValueError, match="notes must be a positive integer"):
        model.generate([60], notes=0)
    fake = tmp_path / "tune2.mid"
    fake.write_bytes(b"RIFF")
    with pytest.raises(ValueError, match="not a MIDI file"):
        model.generate(str(fake))
