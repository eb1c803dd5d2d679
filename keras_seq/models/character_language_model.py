"""`CharacterLanguageModel`: a next-symbol model of text that continues a
prompt and scores a text in bits per character."""

import keras
import numpy as np

from keras_seq.models.task import Task


def _stateful_layers(model):
    return [
        layer
        for layer in model._flatten_layers(include_self=False)
        if getattr(layer, "stateful", False) and hasattr(layer, "reset_states")
    ]


@keras.saving.register_keras_serializable(package="keras_seq")
class CharacterLanguageModel(Task):
    """A next-symbol predictor (e.g. the zoo's PTB character TrellisNet):
    the backbone maps `(batch, time)` symbol ids to the logits (or
    log-probabilities) of the next symbol at every step, reading left to
    right.

    A stateful backbone (history repackaging: it carries its state from one
    call to the next, with a static batch size) reads a long input window
    by window, its state carried, as in training; a stateless one reads a
    fixed window of the last `context` symbols.

    Args:
        backbone: The next-symbol predictor, built.
        preprocessor: A `CharacterPreprocessor`.
        context: The longest input a stateless backbone reads at once.

    Example:

    >>> from keras_seq.models.preprocessors import CharacterPreprocessor
    >>> backbone = keras.Sequential([keras.Input((None,), dtype="int32"),
    ...     keras.layers.Embedding(4, 8), keras.layers.LSTM(8, return_sequences=True), keras.layers.Dense(4)])
    >>> lm = CharacterLanguageModel(backbone, CharacterPreprocessor(["_", "a", "b", "<eos>"]))
    >>> len(lm.generate("ab", length=5, seed=0))
    7
    """

    def __init__(self, backbone, preprocessor=None, context=256, **kwargs):
        super().__init__(backbone, preprocessor, **kwargs)
        self.context = int(context)

    @property
    def _batch(self):
        """The backbone's static batch size (1 for a dynamic one)."""
        return self.backbone.inputs[0].shape[0] or 1

    def _reset(self):
        for layer in _stateful_layers(self.backbone):
            layer.reset_states()

    def _log_probabilities(self, ids, window=None):
        """`(T, vocabulary)` log-probabilities of the next symbol after each
        of `ids`, read window by window (state carried) by a stateful
        backbone, or in chunks of `context` by a stateless one."""
        stateful = bool(_stateful_layers(self.backbone))
        window = window or (self.context if not stateful else 128)
        outputs = []
        for start in range(0, len(ids), window):
            chunk = ids[start : start + window]
            if not stateful:  # a stateless backbone reads the preceding context too
                begin = max(0, start + len(chunk) - self.context)
                chunk = ids[begin : start + len(chunk)]
            batch = np.repeat(np.asarray(chunk, "int32")[None], self._batch, axis=0)
            logits = self.predict_steps(batch)[0].astype("float64")
            logits = logits[-min(window, len(ids) - start) :]
            outputs.append(logits - np.logaddexp.reduce(logits, axis=-1, keepdims=True))
        return np.concatenate(outputs)

    def score(self, text):
        """`{"bits_per_character", "characters"}` of predicting every symbol
        of `text` after the first (the zoo's test metric, bits per event)."""
        ids = self.preprocessor.encode(text)
        if len(ids) < 2:
            raise ValueError("a text to score needs at least two symbols.")
        self._reset()
        log_p = self._log_probabilities(ids[:-1])
        nats = -log_p[np.arange(len(ids) - 1), ids[1:]]
        return {"bits_per_character": float(nats.mean() / np.log(2)), "characters": int(len(ids) - 1)}

    def generate(self, prompt, length=200, temperature=1.0, seed=None):
        """`prompt` followed by `length` sampled symbols, as text.

        Args:
            prompt: The text to continue (at least one character; every
                character in the model's vocabulary).
            length: How many symbols to sample.
            temperature: Divides the logits before sampling.
            seed: Seed of the sampling (None: a fresh one each call).
        """
        if isinstance(length, bool) or not isinstance(length, int) or length < 1:
            raise ValueError(f"length must be a positive integer; got {length!r}.")
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not temperature > 0:
            raise ValueError(f"temperature must be a positive number; got {temperature!r}.")
        ids = list(self.preprocessor.encode(prompt))
        if not ids:
            raise ValueError("the prompt is empty: give at least one character to continue.")
        rng = np.random.default_rng(seed)
        stateful = bool(_stateful_layers(self.backbone))
        self._reset()
        log_p = self._log_probabilities(np.asarray(ids))[-1]
        for _ in range(length):
            p = np.exp((log_p - log_p.max()) / temperature)
            ids.append(int(rng.choice(len(p), p=p / p.sum())))
            if stateful:  # one new symbol, the state carried
                log_p = self._log_probabilities(np.asarray(ids[-1:]))[-1]
            else:
                log_p = self._log_probabilities(np.asarray(ids[-self.context :]))[-1]
        return self.preprocessor.decode(ids)

    def get_config(self):
        return {**super().get_config(), "context": self.context}
