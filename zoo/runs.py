"""Run directories and training checkpoints: runs that survive a crash.

A run of recipe R with seed S writes into `<output>/R/seed-S/` (`-quick`
for --quick runs): `model.keras`, `record.json`, `curve.png` and, for music,
`roll.png`. Every file is written to a temporary name and renamed into
place, so a crash leaves the previous file or none, never half of one. A
directory with a `record.json` holds a finished run and is never written
again: a rerun of the same command goes to `seed-S-2/`, `seed-S-3/`, ...
A directory is owned by one process at a time (`claim`: an OS lock on its
`.lock` file); a second run of the same command started meanwhile takes
the next directory instead of writing into the first one's.

While training, `checkpoint/` holds the last finished epoch: the weights
(optimizer state included), the random states (dropout's seed generators;
each epoch's batch order and process-wide generators are keyed by (seed,
epoch): zoo.callbacks.ShuffleEpoch, SeedEpoch), the epochs' logs, and
the state of the callbacks that decide when to stop (early stopping's best scores and best
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


LOCK = ".lock"


class RunDirectory:
    """A run directory owned by this process (`claim`): an OS lock on its
    `.lock` file, which the OS releases if the process dies. `release()`
    (or leaving the `with` block) gives it up."""

    def __init__(self, path, handle):
        self.path, self._handle = path, handle

    def release(self, finished=False):
        if self._handle is None:
            return
        if finished:  # a later claimant re-checks for the record after locking
            try:
                os.remove(os.path.join(self.path, LOCK))
            except FileNotFoundError:
                pass
        _unlock(self._handle)
        self._handle.close()
        self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()


def _try_lock(handle):
    try:
        import fcntl
    except ImportError:  # Windows
        import msvcrt

        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


def _unlock(handle):
    try:
        import fcntl
    except ImportError:
        import msvcrt

        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        return
    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def claim(output, name, seed, quick=False, announce=print):
    """The `RunDirectory` this run owns: the first of `seed-S`, `seed-S-2`,
    ... that holds no finished run and no other live process (an unfinished
    one nobody holds is resumed). A directory another process holds is
    passed over, with a line naming its pid; an output folder that cannot
    be written raises a ValueError naming it, before any training."""
    base = os.path.join(output, name, f"seed-{seed}{'-quick' if quick else ''}")
    candidate, count = base, 1
    while True:
        if not os.path.exists(os.path.join(candidate, RECORD)):
            try:
                os.makedirs(candidate, exist_ok=True)
                handle = open(os.path.join(candidate, LOCK), "a+")
            except OSError as error:
                raise ValueError(
                    f"--output {output}: cannot write the run directory {candidate} "
                    f"({type(error).__name__}: {error.strerror or error})."
                ) from None
            if _try_lock(handle):
                if not os.path.exists(os.path.join(candidate, RECORD)):  # not finished while we waited
                    handle.seek(0)
                    handle.truncate()
                    handle.write(f"{os.getpid()}\n")
                    handle.flush()
                    return RunDirectory(candidate, handle)
                _unlock(handle)
            else:
                handle.seek(0)
                owner = handle.read().strip() or "unknown"
                announce(
                    f"# {candidate} is in use by process {owner} (a run of the same command); "
                    "this run takes the next directory",
                    flush=True,
                )
            handle.close()
        count += 1
        candidate = f"{base}-{count}"


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


def random_states(model):
    """The model's random-number states: the seed generators of its layers
    (dropout masks), which `save_weights` does not keep. Their order is
    the model's, the same in every process that builds it."""
    weights = {id(v) for v in model.weights}
    return [v for v in model.non_trainable_variables if id(v) not in weights]


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
        saved_states = self._load(_read_arrays, state["random_states"]) if state.get("random_states") else None
        if saved_states is not None and len(saved_states) != len(random_states(model)):
            raise self._damaged(
                self._state_path, f"it holds {len(saved_states)} random states, the model {len(random_states(model))}"
            )
        # Put back when the first resumed epoch begins: `fit` may draw random
        # numbers while it sets up (a first symbolic call of the model).
        self._pending_random = saved_states
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
        changes = [
            f"{key.rstrip('.')}: {before.get(key)!r} -> {now.get(key)!r}"
            for key in sorted(set(before) | set(now))
            if before.get(key) != now.get(key)
        ]
        raise ValueError(
            f"The training checkpoint in {self.directory} was saved by a run with other settings "
            f"({'; '.join(changes)}); resuming would continue another model. Rerun with --restart to "
            f"start over, or give this run another --output."
        )

    def on_epoch_begin(self, epoch, logs=None):
        saved_states, self._pending_random = getattr(self, "_pending_random", None), None
        if saved_states is not None:
            for variable, value in zip(random_states(self.model), saved_states):
                variable.assign(value)

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
        randoms = f"random-{'final' if self.extra.get('finished') else self.epoch}.npz"

        def write_randoms(path):
            with open(path, "wb") as f:
                np.savez(f, *[keras.ops.convert_to_numpy(v.value) for v in random_states(self.model)])

        replace_atomically(os.path.join(self.directory, randoms), write_randoms)
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
        write_json(
            {
                "epoch": self.epoch,
                "weights": weights,
                "random_states": randoms,
                "callbacks": callback_states,
                "callback_weights": callback_weights,
                "history": self.history,
                "extra": self.extra,
            },
            self._state_path,
        )
        for old in os.listdir(self.directory):  # files of earlier epochs, now unreferenced
            if old not in (weights, randoms, "state.json", *callback_weights) and not old.startswith("."):
                os.remove(os.path.join(self.directory, old))

    def discard(self):
        shutil.rmtree(self.directory, ignore_errors=True)
