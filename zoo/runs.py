"""Run directories and training checkpoints: runs that survive a crash.

A run of recipe R with seed S writes into `<output>/R/seed-S/` (`-quick`
for --quick runs): `model.keras`, `record.json`, `curve.png` and, for music,
`roll.png`. Every file is written to a temporary name and renamed into
place, so a crash leaves the previous file or none, never half of one. A
directory with a `record.json` holds a finished run and is never written
again: a rerun of the same command goes to `seed-S-2/`, `seed-S-3/`, ...

While training, `checkpoint/` holds the last finished epoch: the weights
(optimizer state included), the epochs' logs, and the state of the
callbacks that decide when to stop (early stopping's best scores and best
weights, the time budget's elapsed seconds). Rerunning a killed run with
the same arguments resumes from there; `restart=True` starts over.
"""

import json
import os
import shutil
import time
import zipfile

import keras
import numpy as np

from keras_seq.zoo import records

RECORD = "record.json"
CHECKPOINT = "checkpoint"


def replace_atomically(path, write):
    """Calls `write(temporary_path)`, then renames the file onto `path`."""
    folder, name = os.path.split(path)
    temporary = os.path.join(folder, f".tmp-{os.getpid()}-{name}")  # keeps .keras / .weights.h5 / .png
    try:
        write(temporary)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def write_json(data, path):
    def write(temporary):
        with open(temporary, "w") as f:
            json.dump(data, f, indent=2)
            f.write("\n")

    replace_atomically(path, write)


def run_directory(output, name, seed, quick=False):
    """The directory this run writes to: the first of `seed-S`, `seed-S-2`,
    ... that holds no finished run (an unfinished one is resumed)."""
    base = os.path.join(output, name, f"seed-{seed}{'-quick' if quick else ''}")
    candidate, count = base, 1
    while os.path.exists(os.path.join(candidate, RECORD)):
        count += 1
        candidate = f"{base}-{count}"
    return candidate


def finished_run(output, name, seed=0, quick=False):
    """The newest finished run directory of (recipe, seed), or None."""
    base = os.path.join(output, name, f"seed-{seed}{'-quick' if quick else ''}")
    finished, candidate, count = None, base, 1
    while os.path.exists(os.path.join(candidate, RECORD)):
        finished = candidate
        count += 1
        candidate = f"{base}-{count}"
    return finished


def _read_arrays(path):
    with np.load(path) as f:
        return [f[f"arr_{i}"] for i in range(len(f.files))]


def _flatten(tree, prefix=""):
    """`{"a.b": leaf}` of a nested dict."""
    if not isinstance(tree, dict) or not tree:
        return {prefix: tree}
    return {path: leaf for key, value in tree.items() for path, leaf in _flatten(value, f"{prefix}{key}.").items()}


class RunCheckpoint(keras.callbacks.Callback):
    """Saves the training state at the end of every epoch into `directory`
    and restores it (`restore`) before `fit` resumes.

    `stateful` callbacks have `get_state()` (a JSON-able dict, plus
    optionally `"weights"`: a list of arrays) and `set_state(state)`.
    `configuration` (JSON-able: the model arguments, data, batch size) is
    saved with every epoch; `restore` refuses a checkpoint saved under
    another one, e.g. after a recipe's defaults changed, rather than resume
    a different model from its weights.

    Example:

    >>> checkpoint = RunCheckpoint("runs/r/seed-0/checkpoint", [stopper, budget])
    >>> start = checkpoint.restore(model)  # 0 for a fresh run
    >>> model.fit(..., initial_epoch=start, callbacks=[stopper, budget, checkpoint])
    """

    def __init__(self, directory, stateful=(), configuration=None):
        super().__init__()
        self.directory = directory
        self.stateful = [c for c in stateful if c is not None]
        self.configuration = None if configuration is None else json.loads(json.dumps(configuration))
        self.history = {}
        self.epoch = 0
        self.extra = {} if configuration is None else {"configuration": self.configuration}
        self.wall_before = 0.0  # wall seconds of the runs this one resumes
        self._started = time.perf_counter()

    @property
    def _state_path(self):
        return os.path.join(self.directory, "state.json")

    def restore(self, model):
        """Loads the last saved epoch into `model` and the stateful
        callbacks; returns the number of finished epochs (0 if none)."""
        if not os.path.exists(self._state_path):
            return 0
        state = self._read_state()
        self._check_configuration(state.get("extra", {}).get("configuration"))
        if model.optimizer is not None and not model.optimizer.built:
            model.optimizer.build(model.trainable_variables)
        self._load(model.load_weights, state["weights"])
        for callback, saved in zip(self.stateful, state["callbacks"]):
            arrays_file = saved.pop("weights_file", None)
            if arrays_file:
                saved["weights"] = self._load(_read_arrays, arrays_file)
            callback.set_state(saved)
        self.history = state["history"]
        self.epoch = state["epoch"]
        self.extra = state.get("extra", {})
        if self.configuration is not None:
            self.extra["configuration"] = self.configuration
        self.wall_before = float(self.extra.get("wall_seconds", 0.0))
        self._started = time.perf_counter()
        return self.epoch

    def _damaged(self, path, reason):
        return ValueError(
            f"The training checkpoint file {path} is damaged ({reason}); rerun with --restart to start over."
        )

    def _read_state(self):
        """state.json, checked for the fields `restore` reads."""
        try:
            with open(self._state_path) as f:
                state = json.load(f)
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise self._damaged(self._state_path, f"not JSON: {error}") from None
        fields = {"epoch": int, "weights": str, "callbacks": list, "history": dict}
        problem = None
        if not isinstance(state, dict):
            problem = f"a JSON {type(state).__name__}, not an object"
        else:
            problem = records.json_field_problem(state, fields)
            if problem is None and not all(isinstance(saved, dict) for saved in state["callbacks"]):
                problem = '"callbacks" holds something other than JSON objects'
            if problem is None and not isinstance(state.get("extra", {}), dict):
                problem = '"extra" is not a JSON object'
        if problem:
            raise self._damaged(self._state_path, problem)
        return state

    def _load(self, read, name):
        """`read(path)` of a file the checkpoint names, a damaged or missing
        file named."""
        path = os.path.join(self.directory, name)
        if not os.path.isfile(path):
            raise self._damaged(self._state_path, f"the file it names, {name}, is missing")
        try:
            return read(path)
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
            raise self._damaged(path, f"{type(error).__name__}: {error}") from None

    def _check_configuration(self, saved):
        """Checkpoints written before configurations were saved (None) resume as before."""
        if saved is None or self.configuration is None or saved == self.configuration:
            return
        before, now = _flatten(saved), _flatten(self.configuration)
        changes = [f"{key.rstrip('.')}: {before.get(key)!r} -> {now.get(key)!r}"
                   for key in sorted(set(before) | set(now)) if before.get(key) != now.get(key)]
        raise ValueError(
            f"The training checkpoint in {self.directory} was saved by a run with other settings "
            f"({'; '.join(changes)}); resuming would continue another model. Rerun with --restart to "
            f"start over, or give this run another --output."
        )

    def on_epoch_end(self, epoch, logs=None):
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(float(value))
        self.epoch = epoch + 1
        self._save()

    def on_train_end(self, logs=None):
        """Training ended (early stopping, which runs before this callback,
        has put the best weights back): saved as finished, so that a crash
        while the run's files are written does not train again."""
        self.extra["finished"] = True
        self._save()

    def _save(self):
        os.makedirs(self.directory, exist_ok=True)
        weights = "weights-final.weights.h5" if self.extra.get("finished") else f"weights-{self.epoch}.weights.h5"
        replace_atomically(os.path.join(self.directory, weights), lambda path: self.model.save_weights(path))
        callback_states, callback_weights = [], []
        for index, callback in enumerate(self.stateful):
            state = dict(callback.get_state())
            arrays = state.pop("weights", None)
            if arrays is not None:
                # Named by the epoch they come from (best weights change only at
                # an improvement), so unchanged arrays are not written again.
                name = f"callback-{index}-{state.get('best_epoch', self.epoch)}.npz"

                def write(path, arrays=arrays):
                    with open(path, "wb") as f:
                        np.savez(f, *arrays)

                if not os.path.exists(os.path.join(self.directory, name)):
                    replace_atomically(os.path.join(self.directory, name), write)
                state["weights_file"] = name
                callback_weights.append(name)
            callback_states.append(state)
        self.extra["wall_seconds"] = self.wall_before + time.perf_counter() - self._started
        write_json({"epoch": self.epoch, "weights": weights, "callbacks": callback_states,
                    "callback_weights": callback_weights, "history": self.history, "extra": self.extra},
                   self._state_path)
        for old in os.listdir(self.directory):  # files of earlier epochs, now unreferenced
            if old not in (weights, "state.json", *callback_weights) and not old.startswith("."):
                os.remove(os.path.join(self.directory, old))

    def discard(self):
        shutil.rmtree(self.directory, ignore_errors=True)
