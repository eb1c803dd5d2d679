"""`SequenceTagger`: one label per step of a user's sequences (part-of-speech
tags, chunk tags, letters), from a trained per-step classifier."""

import keras
import numpy as np

from keras_seq.models.task import Task
from keras_seq.models.task import batches


@keras.saving.register_keras_serializable(package="keras_seq")
class SequenceTagger(Task):
    """A per-step classifier (e.g. the SCRBM's Algorithm 1 predictor, an
    LSTM labeller) with the preprocessor that encodes a user's sequences
    and names its classes.

    The backbone maps `(batch, time, ...)` inputs to `(batch, time,
    classes)` scores (logits or probabilities); `label` takes the best class
    at every step. Sequences are right-padded within a batch: the taggers
    read left to right, so padding after a sequence does not change its
    labels.

    Args:
        backbone: The per-step classifier, built.
        preprocessor: A `WordPreprocessor` (tokenised sentences) or a
            `LetterImagePreprocessor` (words written as letter images).

    Example:

    >>> from keras_seq.models.preprocessors import WordPreprocessor
    >>> words = WordPreprocessor(["<pad>", "<oov>", "the", "cat"], ["DT", "NN"])
    >>> backbone = keras.Sequential([keras.Input((None,), dtype="int32"),
    ...                              keras.layers.Embedding(4, 2)])
    >>> tagger = SequenceTagger(backbone, words)
    >>> tuple(len(tags) for tags in tagger.label([["the", "cat"], ["cat"]]))
    (2, 1)
    """

    def label(self, sequences, batch_size=32):
        """The class names of every step of every sequence (a list per
        sequence, in order); see the preprocessor for what a sequence is."""
        inputs, lengths = self._encode(sequences)
        labels = [None] * len(lengths)
        for batch in batches(lengths, batch_size):
            longest = max(lengths[i] for i in batch)
            scores = self.predict_steps(inputs[batch, :longest])
            for row, i in enumerate(batch):
                labels[i] = self.preprocessor.decode(np.argmax(scores[row, : lengths[i]], axis=-1))
        return labels

    def _encode(self, sequences):
        if self.preprocessor is None:
            raise ValueError("this SequenceTagger has no preprocessor; call the backbone on ids directly.")
        return self.preprocessor(sequences)
