"""`MelodyModel`: a next-pitch model of melodies that predicts, scores and
continues a user's tune."""

import keras
import numpy as np

from keras_seq.models.task import Task
from keras_seq.models.task import batches
from keras_seq.models.task import check_positive


@keras.saving.register_keras_serializable(package="keras_seq")
class MelodyModel(Task):
    """A next-pitch predictor of monophonic melodies (the SCRBM paper's
    melody task): the backbone maps `(batch, notes)` pitch ids to the logits
    of the next note's pitch at every step, reading left to right.

    `predict_next` gives the most probable next pitch after every note;
    `score` the bits per note and the error of predicting a melody's every
    next pitch, as the zoo's test split is scored; `generate` samples a
    continuation of a primer; `write_midi` writes a melody as a MIDI file.

    Args:
        backbone: The next-pitch predictor, built (logits over the pitches).
        preprocessor: A `MelodyPreprocessor` (pitch range).

    Example:

    >>> from keras_seq.models.preprocessors import MelodyPreprocessor
    >>> backbone = keras.Sequential([keras.Input((None,), dtype="int32"),
    ...     keras.layers.Embedding(89, 8, mask_zero=True), keras.layers.LSTM(8, return_sequences=True),
    ...     keras.layers.Dense(88)])
    >>> model = MelodyModel(backbone, MelodyPreprocessor())
    >>> len(model.generate([60, 62, 64], notes=5, seed=0))
    8
    >>> tuple(len(next_pitches) for next_pitches in model.predict_next([[60, 62], [67]]))
    (2, 1)
    """

    def _log_probabilities(self, ids):
        logits = self.predict_steps(ids).astype("float64")
        return logits - np.logaddexp.reduce(logits, axis=-1, keepdims=True)

    def predict_next(self, melodies, batch_size=32):
        """The most probable pitch after each note of each melody (MIDI
        pitches; a list per melody)."""
        ids, lengths = self.preprocessor(melodies)
        found = [None] * len(lengths)
        for batch in batches(lengths, batch_size):
            longest = max(lengths[i] for i in batch)
            log_p = self._log_probabilities(ids[batch, :longest])
            for row, i in enumerate(batch):
                found[i] = self.preprocessor.decode(np.argmax(log_p[row, : lengths[i]], axis=-1))
        return found

    def score(self, melody):
        """`{"bits_per_note", "next_pitch_error", "notes"}` of predicting
        every pitch of `melody` (MIDI pitches, or a MIDI / MusicXML path)
        from the ones before it."""
        pitches = self.preprocessor.read(melody) if isinstance(melody, str) else self.preprocessor.check(melody)
        if len(pitches) < 2:
            raise ValueError("a melody to score needs at least two notes (one to predict from, one to predict).")
        ids, _ = self.preprocessor([pitches[:-1]])
        log_p = self._log_probabilities(ids)[0]
        targets = pitches[1:] - self.preprocessor.lowest_midi
        bits = -log_p[np.arange(len(targets)), targets] / np.log(2)
        return {
            "bits_per_note": float(bits.mean()),
            "next_pitch_error": float(np.mean(np.argmax(log_p, axis=-1) != targets)),
            "notes": int(len(targets)),
        }

    def generate(self, primer=(60,), notes=32, temperature=1.0, seed=None):
        """MIDI pitches: `primer` (pitches, or a MIDI / MusicXML path)
        followed by `notes` sampled pitches.

        Args:
            primer: The melody to continue (at least one note).
            notes: How many notes to sample.
            temperature: Divides the logits before sampling.
            seed: Seed of the sampling (None: a fresh one each call).
        """
        check_positive("notes", notes, int)
        check_positive("temperature", temperature, (int, float))
        primer = self.preprocessor.read(primer) if isinstance(primer, str) else self.preprocessor.check(primer)
        rng = np.random.default_rng(seed)
        # One fixed shape for every step (one compiled predict function): the
        # ids not sampled yet are padding, which a left-to-right model does
        # not read before the current note.
        ids = np.zeros((1, len(primer) + notes), dtype="int32")
        ids[0, : len(primer)] = self.preprocessor(primer)[0][0]
        for t in range(len(primer) - 1, len(primer) + notes - 1):
            log_p = self._log_probabilities(ids)[0, t]
            p = np.exp((log_p - log_p.max()) / temperature)
            ids[0, t + 1] = rng.choice(len(p), p=p / p.sum()) + 1
        return np.asarray(self.preprocessor.decode(ids[0] - 1), dtype="int32")

    def write_midi(self, melody, path, tempo=100, quarters=1.0):
        """Writes `melody` as a MIDI file (see MelodyPreprocessor.write_midi); returns `path`."""
        return self.preprocessor.write_midi(melody, path, tempo=tempo, quarters=quarters)
