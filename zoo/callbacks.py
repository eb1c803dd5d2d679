"""Training callbacks of the zoo: early stopping on a validation schedule
sparser than every epoch, validation of the predicting model, a wall-time
budget, the record of why a run stopped, and training time per epoch.

The SCRBM paper (Sec. 4.2) checks the validation metric every 10 epochs and
stops once 5 consecutive checks have not beaten the best one. Train with
`model.fit(..., validation_freq=every)` so validation runs only at checks.
"""

import time

import keras
import numpy as np


class PeriodicEarlyStopping(keras.callbacks.Callback):
    """Stops training after `patience` checks in which no watched metric
    improved, checking at the end of every `every`-th epoch (epochs `every`,
    `2 * every`, ... counted from 1).

    `monitor` selects the model: the weights of its best check are put back
    when training ends (stopped or not), as `keras.callbacks.EarlyStopping`
    does. `progress` names further metrics that count as improvement for
    patience only: e.g. the validation NLL, which keeps falling while frame
    accuracy sits at zero on the all-notes-off plateau of polyphonic music.
    Improvement means strictly better than the best check so far; with
    `min_delta`, patience counts checks in which the monitored metric has
    not beaten the last reference by more than `min_delta` (as
    `keras.callbacks.EarlyStopping` does): a loss that creeps towards zero
    by ever smaller steps (the adding problem's MSE) ends the run instead of
    resetting patience forever. The weights kept are still the best check's.

    An epoch whose training loss is not finite (NaN or infinite) ends
    training at once: the run diverged, and more epochs would train on NaN
    until patience ran out and look like convergence.

    After training, `stopped_epoch` (1-based) is the epoch at which patience
    ran out, or None when something else (the epoch limit, a time budget,
    divergence) ended training; `diverged_epoch` (1-based) is the epoch whose
    loss was not finite, or None; `best_epoch` (1-based) is the best check's
    epoch.

    Args:
        monitor: A key of the epoch logs, e.g. `"val_sequence_error"`.
        mode: `"min"` or `"max"`: which direction is better.
        every: Check every this many epochs (pass the same number as
            `validation_freq` to `fit`).
        patience: Checks without improvement before stopping.
        restore_best_weights: Restore the weights of the best check.
        progress: `(key, mode)` pairs watched for patience only.
        min_delta: The smallest change of `monitor` that counts as an
            improvement for patience (absolute, >= 0; not applied to
            `progress`).
        log_as: If given, every epoch's logs get this key: the monitored
            value at a check, the best check's value between checks (NaN
            before the first). KerasTuner reads its objective from every
            epoch's logs.

    Example:

    >>> stopper = PeriodicEarlyStopping("val_sequence_error", "min", every=10, patience=5)
    >>> model.fit(train, validation_data=valid, validation_freq=10, epochs=200, callbacks=[stopper])
    """

    def __init__(
        self,
        monitor="val_loss",
        mode="min",
        every=1,
        patience=0,
        restore_best_weights=True,
        progress=(),
        log_as=None,
        min_delta=0.0,
    ):
        super().__init__()
        for key, direction in ((monitor, mode), *progress):
            if direction not in ("min", "max"):
                raise ValueError(f"The mode of {key!r} must be 'min' or 'max'; got {direction!r}.")
        if int(every) < 1 or int(patience) < 0:
            raise ValueError(f"`every` must be >= 1 and `patience` >= 0; got {every} and {patience}.")
        if not float(min_delta) >= 0:
            raise ValueError(f"`min_delta` must be >= 0; got {min_delta}.")
        self.monitor = monitor
        self.mode = mode
        self.every = int(every)
        self.patience = int(patience)
        self.restore_best_weights = restore_best_weights
        self.progress = tuple((key, direction) for key, direction in progress if key != monitor)
        self.log_as = log_as
        self.min_delta = float(min_delta)
        self._resumed = None

    def on_train_begin(self, logs=None):
        watched = ((self.monitor, self.mode), *self.progress)
        self.best = {key: np.inf if direction == "min" else -np.inf for key, direction in watched}
        self.best_value = self.best[self.monitor]
        self.best_epoch = None
        self.best_weights = None
        self.checks_without_improvement = 0
        self.stopped_epoch = None
        self.diverged_epoch = None
        if self._resumed is not None:  # a run resumed from a checkpoint (zoo.runs)
            state, self._resumed = self._resumed, None
            self._apply(state)
            self.stopped_epoch = None  # it is training on

    def get_state(self):
        """What a checkpoint keeps to resume this callback (see zoo.runs)."""
        state = {
            "best": {k: float(v) for k, v in self.best.items()},
            "best_value": float(self.best_value),
            "best_epoch": self.best_epoch,
            "checks_without_improvement": self.checks_without_improvement,
            "stopped_epoch": self.stopped_epoch,
            "diverged_epoch": self.diverged_epoch,
        }
        if self.best_weights is not None:
            state["weights"] = self.best_weights
        return state

    def set_state(self, state):
        """Takes `get_state()`'s dict: at once (a finished run's record), and
        again at the next `on_train_begin` (a resumed run)."""
        self._resumed = dict(state)
        self._apply(state)

    def _apply(self, state):
        self.best = dict(state["best"])
        self.best_value = state.get("best_value", self.best[self.monitor])
        self.best_epoch = state["best_epoch"]
        self.checks_without_improvement = state["checks_without_improvement"]
        self.stopped_epoch = state.get("stopped_epoch")
        self.diverged_epoch = state.get("diverged_epoch")
        self.best_weights = state.get("weights")

    def _improved(self, direction, value, reference, delta=0.0):
        return value < reference - delta if direction == "min" else value > reference + delta

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        diverged = "loss" in logs and not np.isfinite(float(logs["loss"]))
        if diverged:
            self.diverged_epoch = epoch + 1
            self.model.stop_training = True
        if diverged or (epoch + 1) % self.every:
            if self.log_as:
                logs[self.log_as] = self.best_value if self.best_epoch is not None else np.nan
            return
        if self.log_as and self.monitor in logs:
            logs[self.log_as] = float(logs[self.monitor])
        improved = False
        for key, direction in ((self.monitor, self.mode), *self.progress):
            if key not in logs:
                raise ValueError(
                    f"Early stopping checks {key!r} at epoch {epoch + 1}, but the logs hold only "
                    f"{sorted(logs)}; pass validation_data and validation_freq={self.every} to fit."
                )
            value = float(logs[key])
            if key == self.monitor and self._improved(direction, value, self.best_value):
                self.best_value = value
                self.best_epoch = epoch + 1
                if self.restore_best_weights:
                    self.best_weights = self.model.get_weights()
            delta = self.min_delta if key == self.monitor else 0.0
            if self._improved(direction, value, self.best[key], delta):
                improved = True
                self.best[key] = value
        if improved:
            self.checks_without_improvement = 0
            return
        self.checks_without_improvement += 1
        if self.checks_without_improvement >= self.patience:
            self.stopped_epoch = epoch + 1
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.restore_best_weights and self.best_weights is not None:
            self.model.set_weights(self.best_weights)


class PlateauAnnealing(keras.callbacks.Callback):
    """Multiplies the optimizer's learning rate by `factor` after `patience`
    validation checks in which `monitor` has not beaten the last reference
    by more than `min_delta`, down to `min_learning_rate`: Keras'
    `ReduceLROnPlateau`, on the zoo's validation schedule (epochs `every`,
    `2 * every`, ...) and with a state a resumed run restores (zoo.runs).
    The reference TrellisNet divides its rate by 10 twice in a run.

    Every epoch's logs get the rate it trained with as `learning_rate`; after
    training, `annealed_at` lists the (1-based) epochs after which the rate
    fell.

    Args:
        monitor: A key of the epoch logs, e.g. `"val_bits_per_event"`.
        mode: `"min"` or `"max"`.
        patience: Checks without enough improvement before the rate falls.
        factor: The rate's multiplier at a plateau, in (0, 1).
        min_delta: The improvement that counts (absolute, >= 0).
        min_learning_rate: The rate does not fall below this.
        every: Check every this many epochs (the `validation_freq` of `fit`).

    Example:

    >>> annealing = PlateauAnnealing("val_bits_per_event", "min", patience=2, factor=0.1, min_delta=0.005)
    >>> model.fit(train, validation_data=valid, epochs=100, callbacks=[annealing, stopper])
    """

    def __init__(
        self, monitor="val_loss", mode="min", patience=2, factor=0.1, min_delta=0.0, min_learning_rate=1e-5, every=1
    ):
        super().__init__()
        if mode not in ("min", "max"):
            raise ValueError(f"The mode of {monitor!r} must be 'min' or 'max'; got {mode!r}.")
        if not 0.0 < float(factor) < 1.0:
            raise ValueError(f"The annealing `factor` must lie in (0, 1); got {factor}.")
        if int(patience) < 1 or int(every) < 1 or not float(min_delta) >= 0:
            raise ValueError(
                f"Annealing needs `patience` >= 1, `every` >= 1 and `min_delta` >= 0; "
                f"got {patience}, {every} and {min_delta}."
            )
        self.monitor, self.mode = monitor, mode
        self.patience, self.factor, self.min_delta = int(patience), float(factor), float(min_delta)
        self.min_learning_rate, self.every = float(min_learning_rate), int(every)
        self.reference = np.inf if mode == "min" else -np.inf
        self.checks_without_improvement = 0
        self.annealed_at = []
        self._rate = None  # a restored state's rate, put into the optimizer when training begins

    def get_state(self):
        """What a checkpoint keeps to resume this callback (see zoo.runs)."""
        return {
            "reference": float(self.reference),
            "checks_without_improvement": self.checks_without_improvement,
            "annealed_at": list(self.annealed_at),
            "learning_rate": self._learning_rate(),
        }

    def set_state(self, state):
        self.reference = float(state["reference"])
        self.checks_without_improvement = int(state["checks_without_improvement"])
        self.annealed_at = list(state["annealed_at"])
        self._rate = state.get("learning_rate")

    def _learning_rate(self):
        if self.model is None or self.model.optimizer is None:
            return self._rate
        return float(keras.ops.convert_to_numpy(self.model.optimizer.learning_rate))

    def on_train_begin(self, logs=None):
        if self._rate is not None:
            self.model.optimizer.learning_rate = self._rate
            self._rate = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        rate = self._learning_rate()
        logs["learning_rate"] = rate
        if (epoch + 1) % self.every or self.monitor not in logs:
            return
        value = float(logs[self.monitor])
        better = (
            value < self.reference - self.min_delta if self.mode == "min" else value > self.reference + self.min_delta
        )
        if better:
            self.reference, self.checks_without_improvement = value, 0
            return
        self.checks_without_improvement += 1
        if self.checks_without_improvement >= self.patience and rate * self.factor >= self.min_learning_rate * (
            1 - 1e-6
        ):
            self.model.optimizer.learning_rate = rate * self.factor
            self.annealed_at.append(epoch + 1)
            self.checks_without_improvement = 0


class PredictorValidation(keras.callbacks.Callback):
    """Scores the model that is tested, not the one that is trained, at each
    validation check: where the trainer is a different model (the SCRBM's
    teacher-forcing trainer reads the true previous labels, paper eq. 12;
    Algorithm 1 predicts without them), the epoch's `val_*` metrics are
    replaced by the predictor's on `validation_data`, and the trainer's are
    kept as `val_teacher_forced_*`. Put it before the callbacks that read
    `val_*` (early stopping).

    Example:

    >>> checks = PredictorValidation(predictor, valid.map(lambda x, y, w: (x[0], y, w)))
    >>> trainer.fit(train_with_labels, validation_data=valid, callbacks=[checks, stopper])
    """

    def __init__(self, predictor, validation_data):
        super().__init__()
        self.predictor = predictor
        self.validation_data = validation_data

    def on_epoch_end(self, epoch, logs=None):
        if logs is None or not any(key.startswith("val_") for key in logs):
            return  # not a validation epoch
        for key in [key for key in logs if key.startswith("val_")]:
            logs["val_teacher_forced_" + key[len("val_") :]] = logs.pop(key)
        scores = self.predictor.evaluate(self.validation_data, return_dict=True, verbose=0)
        logs.update({f"val_{key}": float(value) for key, value in scores.items()})


def stopping_record(epochs_run, epoch_limit, stopper=None, budget=None, annealing=None):
    """Why a run ended, as its record keeps it: `reason` is
    `"early_stopping"` (patience ran out: the run converged),
    `"time_budget"` or `"epoch_limit"` (both cut a run that was still
    improving on validation), `"diverged"` (a training loss that was not
    finite ended it; not converged, its best check's weights are kept), or
    `"fixed_epochs"` (no validation split: the
    protocol trains a set number of epochs, so convergence is not judged).

    Returns:
        `{"reason", "converged", "best_epoch", "best_value" (of the
        monitored validation metric), "last_epoch", "epoch_limit",
        "monitor", "patience", "min_delta", "check_every", "diverged_epoch"}`;
        `converged` is None for fixed epochs. With a `PlateauAnnealing`,
        also `"annealed_at"`: the epochs after which the learning rate fell.

    Example:

    >>> stopping_record(120, 2000, stopper)["converged"]
    True
    """
    if stopper is None:
        reason = "fixed_epochs"
    elif stopper.diverged_epoch is not None:
        reason = "diverged"
    elif stopper.stopped_epoch is not None:
        reason = "early_stopping"
    elif budget is not None and budget.stopped:
        reason = "time_budget"
    else:
        reason = "epoch_limit"
    return {
        "reason": reason,
        "converged": None if stopper is None else reason == "early_stopping",
        "best_epoch": None if stopper is None else stopper.best_epoch,
        "best_value": None if stopper is None or stopper.best_epoch is None else stopper.best_value,
        "last_epoch": epochs_run,
        "epoch_limit": epoch_limit,
        "monitor": None if stopper is None else stopper.monitor,
        "patience": None if stopper is None else stopper.patience,
        "min_delta": None if stopper is None else stopper.min_delta,
        "check_every": None if stopper is None else stopper.every,
        "diverged_epoch": None if stopper is None else stopper.diverged_epoch,
        **({} if annealing is None else {"annealed_at": list(annealing.annealed_at)}),
    }


class ShuffleEpoch(keras.callbacks.Callback):
    """Sets `epoch`, the variable a pipeline made with
    `keras_seq.data.pipeline.make_dataset(..., shuffle=True, epoch=...)`
    keys its order by, to the epoch number as each epoch begins: epoch k's
    batches are the same in a run resumed before it as in one that was
    not, and in every trial of a search."""

    def __init__(self):
        super().__init__()
        import tensorflow as tf

        self.epoch = tf.Variable(0, dtype="int64", trainable=False, name="shuffle_epoch")

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch.assign(epoch)


class SeedEpoch(keras.callbacks.Callback):
    """Seeds the process-wide generators (Python's, NumPy's, torch's) from
    `(seed, epoch)` as each epoch begins, so that what draws from them
    (PyTorch's dropout in a layer given no seed; a first call of a model
    that `fit` makes while it sets up) draws the same numbers in epoch k of
    a resumed run as of one never stopped. The layers' own seed generators
    are kept in the run's checkpoint (zoo.runs)."""

    def __init__(self, seed):
        super().__init__()
        self.seed = int(seed)

    def on_epoch_begin(self, epoch, logs=None):
        import random

        key = int(np.random.SeedSequence([self.seed, epoch]).generate_state(1)[0])
        random.seed(key)
        np.random.seed(key)
        if keras.backend.backend() == "torch":
            import torch

            torch.manual_seed(key)


class TimeBudget(keras.callbacks.Callback):
    """Stops training at the first training step that ends after `seconds`
    of wall time since training began; that epoch's validation still runs.
    `stopped` tells whether the budget, not the epoch limit, ended it.

    Args:
        seconds: The wall-time budget.
        start: A `time.perf_counter()` reading to count from instead of the
            start of each `fit`: one budget over several `fit` calls (e.g.
            the stages of a curriculum).

    Example:

    >>> model.fit(train, epochs=200, callbacks=[TimeBudget(600)])
    """

    def __init__(self, seconds, start=None):
        super().__init__()
        if not seconds > 0:
            raise ValueError(f"The time budget must be a positive number of seconds; got {seconds!r}.")
        self.seconds = float(seconds)
        self.stopped = False
        self._clock = start
        self._elapsed_before = 0.0

    def on_train_begin(self, logs=None):
        if self._clock is not None:
            self.start = self._clock
        else:
            self.start = time.perf_counter() - self._elapsed_before  # a resumed run keeps its spent time
        self._elapsed_before = 0.0
        self.stopped = False

    def get_state(self):
        return {"elapsed": time.perf_counter() - self.start, "stopped": self.stopped}

    def set_state(self, state):
        self._elapsed_before = float(state["elapsed"])
        self.stopped = bool(state["stopped"])

    def on_train_batch_end(self, batch, logs=None):
        if time.perf_counter() - self.start > self.seconds:
            self.model.stop_training = self.stopped = True


class EpochTimes(keras.callbacks.Callback):
    """Training seconds of each epoch, its validation pass excluded, in
    `seconds` (the first epoch includes tracing and XLA compilation).

    Example:

    >>> times = EpochTimes()
    >>> model.fit(train, validation_data=valid, epochs=5, callbacks=[times])
    >>> times.steady_seconds()  # the median epoch after the first
    """

    def __init__(self):
        super().__init__()
        self.seconds = []

    def on_epoch_begin(self, epoch, logs=None):
        self._start, self._stop = time.perf_counter(), None

    def on_test_begin(self, logs=None):
        if self._stop is None:
            self._stop = time.perf_counter()

    def on_epoch_end(self, epoch, logs=None):
        self.seconds.append((self._stop or time.perf_counter()) - self._start)

    def steady_seconds(self):
        """The median training time of the epochs after the first (the first's
        when there is only one)."""
        later = sorted(self.seconds[1:]) or self.seconds[:1]
        if not later:
            raise ValueError("No epoch has been timed yet.")
        return later[len(later) // 2]
