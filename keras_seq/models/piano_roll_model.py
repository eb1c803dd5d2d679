"""`PianoRollModel`: a next-frame model of polyphonic music that samples new
pieces, continues a user's piece and scores one."""

import keras
import numpy as np

from keras_seq import metrics
from keras_seq.models.task import Task
from keras_seq.models.task import check_positive


@keras.saving.register_keras_serializable(package="keras_seq")
class PianoRollModel(Task):
    """A next-frame predictor of binary piano rolls (the LMN paper's task):
    the backbone maps `(batch, frames, keys)` rolls to the probability of
    each key sounding in the next frame, reading left to right.

    `generate` samples a piece frame by frame (every key from its
    probability, sharpened or flattened by `temperature`), after a primer;
    `score` gives the frame-level accuracy and NLL of predicting a piece's
    every next frame; `write_midi` writes a roll as a MIDI file.

    Args:
        backbone: The next-frame predictor, built (sigmoid outputs).
        preprocessor: A `PianoRollPreprocessor` (keys, pitch range, frame length).

    Example:

    >>> from keras_seq.models.preprocessors import PianoRollPreprocessor
    >>> backbone = keras.Sequential([keras.Input((None, 88)),
    ...     keras.layers.LSTM(8, return_sequences=True), keras.layers.Dense(88, activation="sigmoid")])
    >>> model = PianoRollModel(backbone, PianoRollPreprocessor())
    >>> model.generate(frames=8, seed=0).shape
    (9, 88)
    """

    def generate(self, frames=64, primer=None, temperature=1.0, seed=None):
        """A piano roll: `primer` (a roll, or a MIDI / MusicXML path; default
        one frame of silence) followed by `frames` sampled frames.

        Args:
            frames: How many frames to sample after the primer.
            primer: A `(frames, keys)` roll of 0 and 1, or a file path.
            temperature: Divides each key's logit before sampling (below 1:
                surer, fewer stray notes; above 1: more random).
            seed: Seed of the sampling (None: a fresh one each call).

        Returns:
            A `(primer frames + frames, keys)` float32 array of 0 and 1.
        """
        check_positive("frames", frames, int)
        check_positive("temperature", temperature, (int, float))
        if primer is None:
            primer = np.zeros((1, self.preprocessor.keys), dtype="float32")
        elif isinstance(primer, str):
            primer = self.preprocessor.read(primer)
        primer = self.preprocessor.check(primer, "primer")
        rng = np.random.default_rng(seed)
        # One fixed shape for every step (one compiled predict function): the
        # backbone reads left to right, so the frames not yet sampled, zeros
        # here, do not change the prediction at the current frame.
        roll = np.zeros((1, len(primer) + frames, self.preprocessor.keys), dtype="float32")
        roll[0, : len(primer)] = primer
        for t in range(len(primer) - 1, len(primer) + frames - 1):
            p = np.clip(self.predict_steps(roll)[0, t].astype("float64"), 1e-7, 1 - 1e-7)
            logits = np.log(p) - np.log1p(-p)
            roll[0, t + 1] = rng.random(p.shape) < 1 / (1 + np.exp(-logits / temperature))
        return roll[0]

    def score(self, piece):
        """`{"frame_accuracy", "frame_nll"}` of predicting every next frame of
        `piece` (a roll or a MIDI / MusicXML path), as the zoo's test split is
        scored (keras_seq.metrics.frame_scores)."""
        roll = self.preprocessor.read(piece) if isinstance(piece, str) else self.preprocessor.check(piece, "piece")
        if len(roll) < 2:
            raise ValueError("a piece to score needs at least two frames (one to predict from, one to predict).")
        predicted = self.predict_steps(roll[None, :-1])[0]
        scores = metrics.frame_scores([predicted], [roll[1:]])
        return {"frame_accuracy": scores["frame_accuracy"], "frame_nll": scores["nll"]}

    def write_midi(self, roll, path, tempo=100):
        """Writes `roll` as a MIDI file (see PianoRollPreprocessor.write_midi); returns `path`."""
        return self.preprocessor.write_midi(roll, path, tempo=tempo)
