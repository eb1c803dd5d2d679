"""Callbacks of the TrellisNet models (Bai, Kolter, Koltun, "Trellis Networks
for Sequence Modeling", ICLR 2019): the reset of the stored history of
stateful language models (Appendix B, history repackaging)."""

import keras


class ResetStates(keras.callbacks.Callback):
    """Zeroes the stored state of every stateful layer of the model.

    A stateful `TrellisBlock` (and a stateful Keras RNN) carries the final
    `(h, c)` of one batch into the next: history repackaging across the
    consecutive windows of a language-model stream (the paper's Appendix B).
    This callback resets that history at the start of each epoch and before
    evaluation and prediction, so that validation starts from a clean
    history, as the reference code's `init_hidden` does. Every layer of the
    model with `stateful=True` and a `reset_states()` method is reset,
    nested layers included.

    Example:

    ```python
    lm = TrellisNet(16, 8, 4, vocab_size=30, embedding_dim=8, stateful=True, batch_size=2)
    lm.compile(optimizer="sgd", loss=keras.losses.SparseCategoricalCrossentropy(
        from_logits=True))
    windows = np.random.randint(0, 30, (6, 10))  # consecutive windows of two streams
    lm.fit(windows, windows, batch_size=2, epochs=2, shuffle=False, callbacks=[ResetStates()], verbose=0)
    lm.evaluate(windows, windows, batch_size=2, callbacks=[ResetStates()], verbose=0)
    ```
    """

    def _reset(self):
        for layer in self.model._flatten_layers(include_self=False):
            if getattr(layer, "stateful", False) and hasattr(layer, "reset_states"):
                layer.reset_states()

    def on_epoch_begin(self, epoch, logs=None):
        self._reset()

    def on_test_begin(self, logs=None):
        self._reset()

    def on_predict_begin(self, logs=None):
        self._reset()
