"""Training callbacks of the zoo: early stopping on a validation schedule
sparser than every epoch, and a wall-time budget.

The SCRBM paper (Sec. 4.2) checks the validation metric every 10 epochs and
stops once 5 consecutive checks have not beaten the best one. Train with
`model.fit(..., validation_freq=every)` so validation runs only at checks.
"""

import time

import keras
import numpy as np


class PeriodicEarlyStopping(keras.callbacks.Callback):
    """Stops training after `patience` checks without improvement, checking
    `monitor` at the end of every `every`-th epoch (epochs `every`,
    `2 * every`, ... counted from 1).

    Improvement means strictly better than the best check so far. With
    `restore_best_weights`, the weights of the best check are put back when
    training ends (stopped or not), as `keras.callbacks.EarlyStopping` does.

    Args:
        monitor: A key of the epoch logs, e.g. `"val_sequence_error"`.
        mode: `"min"` or `"max"`: which direction is better.
        every: Check every this many epochs (pass the same number as
            `validation_freq` to `fit`).
        patience: Checks without improvement before stopping.
        restore_best_weights: Restore the weights of the best check.

    Example:

    >>> stopper = PeriodicEarlyStopping("val_loss", "min", every=10, patience=5)
    >>> model.fit(train, validation_data=valid, validation_freq=10, epochs=200, callbacks=[stopper])
    """

    def __init__(self, monitor="val_loss", mode="min", every=1, patience=0, restore_best_weights=True):
        super().__init__()
        if mode not in ("min", "max"):
            raise ValueError(f"`mode` must be 'min' or 'max'; got {mode!r}.")
        if int(every) < 1 or int(patience) < 0:
            raise ValueError(f"`every` must be >= 1 and `patience` >= 0; got {every} and {patience}.")
        self.monitor = monitor
        self.mode = mode
        self.every = int(every)
        self.patience = int(patience)
        self.restore_best_weights = restore_best_weights

    def on_train_begin(self, logs=None):
        self.best = np.inf if self.mode == "min" else -np.inf
        self.best_epoch = None  # 0-based, as Keras counts epochs
        self.best_weights = None
        self.checks_without_improvement = 0
        self.stopped_epoch = None

    def _is_improvement(self, value):
        return value < self.best if self.mode == "min" else value > self.best

    def on_epoch_end(self, epoch, logs=None):
        if (epoch + 1) % self.every:
            return
        logs = logs or {}
        if self.monitor not in logs:
            raise ValueError(
                f"PeriodicEarlyStopping checks {self.monitor!r} at epoch {epoch + 1}, but the logs "
                f"hold only {sorted(logs)}; pass validation_data and validation_freq={self.every} to fit."
            )
        value = float(logs[self.monitor])
        if self._is_improvement(value):
            self.best, self.best_epoch = value, epoch
            self.checks_without_improvement = 0
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            return
        self.checks_without_improvement += 1
        if self.checks_without_improvement >= self.patience:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.restore_best_weights and self.best_weights is not None:
            self.model.set_weights(self.best_weights)


def early_stopping(monitor, mode, patience, every=1):
    """The early-stopping callback of a recipe: Keras' own when checking
    every epoch, `PeriodicEarlyStopping` otherwise; best weights restored.

    Args:
        monitor: Key of the logs to watch.
        mode: `"min"` or `"max"`.
        patience: Checks (epochs when `every == 1`) without improvement.
        every: Epochs between validation checks.

    Returns:
        A Keras callback.

    Example:

    >>> early_stopping("val_sequence_error", "min", patience=5, every=10)
    """
    if every == 1:
        return keras.callbacks.EarlyStopping(
            monitor=monitor, mode=mode, patience=patience, restore_best_weights=True
        )
    return PeriodicEarlyStopping(monitor, mode, every=every, patience=patience, restore_best_weights=True)


class TimeBudget(keras.callbacks.Callback):
    """Stops training at the first training step that ends after `seconds`
    of wall time since training began; that epoch's validation still runs.
    `stopped` tells whether the budget, not the epoch limit, ended it.

    Example:

    >>> model.fit(train, epochs=200, callbacks=[TimeBudget(600)])
    """

    def __init__(self, seconds):
        super().__init__()
        if not seconds > 0:
            raise ValueError(f"The time budget must be a positive number of seconds; got {seconds!r}.")
        self.seconds = float(seconds)
        self.stopped = False

    def on_train_begin(self, logs=None):
        self.start = time.perf_counter()
        self.stopped = False

    def on_train_batch_end(self, batch, logs=None):
        if time.perf_counter() - self.start > self.seconds:
            self.model.stop_training = self.stopped = True
