"""The preset format: one directory per trained model, with keras-hub's
file names where they fit.

    config.json           the Task's Keras config (backbone included)
    model.weights.h5      its weights
    preprocessor.json     the preprocessor's config, less its assets
    assets/<field>.json   the preprocessor's long lists (vocabularies, tag names)
    metadata.json         versions, recipe, data, seed, test metrics beside the
                          paper's, provenance, parameters, date, and the
                          SHA-256 of every other file
    README.md             the model card, generated from metadata.json

`write` makes one (into a temporary directory renamed into place, so that a
reader never sees half a preset); `read_metadata` checks one and `read`
loads it in Keras' safe mode.
"""

import hashlib
import json
import os
import shutil

import keras

FORMAT_VERSION = 1
CONFIG = "config.json"
WEIGHTS = "model.weights.h5"
PREPROCESSOR = "preprocessor.json"
METADATA = "metadata.json"
CARD = "README.md"
ASSETS = "assets"


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _files(directory):
    """Every file of a preset directory but its metadata, as relative paths, sorted."""
    found = []
    for folder, _, names in os.walk(directory):
        for name in names:
            relative = os.path.relpath(os.path.join(folder, name), directory)
            if relative != METADATA:
                found.append(relative.replace(os.sep, "/"))
    return sorted(found)


def _write_json(value, path):
    with open(path, "w") as f:
        json.dump(value, f, indent=2)
        f.write("\n")


def write(task, directory, metadata, card=None):
    """Writes `task` (a `keras_seq.models.Task`) as a preset at `directory`,
    which must not exist; `metadata` (JSON-able) gains the format and
    library versions, the task's class, its parameter count and the files'
    SHA-256; `card(metadata)` returns the model card's Markdown. Returns the
    metadata written."""
    import keras_seq

    if os.path.exists(directory):
        raise FileExistsError(f"{directory} exists; a preset is written into a new directory.")
    parent = os.path.dirname(os.path.abspath(directory))
    os.makedirs(parent, exist_ok=True)
    temporary = os.path.join(parent, f".{os.path.basename(directory)}.tmp-{os.getpid()}")
    shutil.rmtree(temporary, ignore_errors=True)
    os.makedirs(os.path.join(temporary, ASSETS))
    try:
        config = keras.saving.serialize_keras_object(task)
        config["config"].pop("preprocessor", None)
        _write_json(config, os.path.join(temporary, CONFIG))
        task.save_weights(os.path.join(temporary, WEIGHTS))
        if task.preprocessor is not None:
            preprocessor = keras.saving.serialize_keras_object(task.preprocessor)
            for field in type(task.preprocessor).ASSETS:
                _write_json(preprocessor["config"].pop(field), os.path.join(temporary, ASSETS, f"{field}.json"))
            _write_json(preprocessor, os.path.join(temporary, PREPROCESSOR))
        metadata = {
            **metadata,
            "format_version": FORMAT_VERSION,
            "keras_seq_version": keras_seq.__version__,
            "keras_version": keras.__version__,
            "task_class": type(task).__name__,
            "parameters": int(task.count_params()),
        }
        if card is not None:  # before the hashes: the card is one of the files
            with open(os.path.join(temporary, CARD), "w") as f:
                f.write(card(metadata))
        metadata["files"] = {name: sha256(os.path.join(temporary, name)) for name in _files(temporary)}
        metadata["size_bytes"] = sum(os.path.getsize(os.path.join(temporary, n)) for n in metadata["files"])
        _write_json(metadata, os.path.join(temporary, METADATA))
        os.replace(temporary, directory)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    return metadata


def _version(text):
    try:
        return tuple(int(part) for part in str(text).split(".")[:3])
    except ValueError:
        return None


def read_metadata(directory, verify=True):
    """The metadata of the preset at `directory`, checked: a format and
    library version this keras-seq reads, every file listed there present
    with its SHA-256 (`verify`), and no file left unlisted. A ValueError
    (FileNotFoundError for a missing file) names the preset and the fault."""
    import keras_seq

    path = os.path.join(directory, METADATA)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{directory}: not a keras-seq preset (no {METADATA}).")
    try:
        with open(path) as f:
            metadata = json.load(f)
    except ValueError as error:
        raise ValueError(f"{path}: not a preset's metadata (not JSON: {error}).") from None
    if not isinstance(metadata, dict) or not isinstance(metadata.get("files"), dict):
        raise ValueError(f"{path}: not a preset's metadata (no files listed).")
    newer = metadata.get("format_version", 0) > FORMAT_VERSION
    made_by = _version(metadata.get("keras_seq_version"))
    if newer or made_by is None or made_by > _version(keras_seq.__version__):
        raise ValueError(
            f"{directory}: made by keras-seq {metadata.get('keras_seq_version')} (preset format "
            f"{metadata.get('format_version')}), newer than this keras-seq "
            f"{keras_seq.__version__} (format {FORMAT_VERSION}); upgrade keras-seq to load it."
        )
    if verify:
        for name, digest in metadata["files"].items():
            file = os.path.join(directory, name)
            if not os.path.isfile(file):
                raise FileNotFoundError(f"{directory}: the preset's file {name} is missing.")
            if sha256(file) != digest:
                raise ValueError(
                    f"{directory}: {name} does not match its SHA-256 in {METADATA} "
                    "(corrupted or changed); fetch the preset again."
                )
        unlisted = sorted(set(_files(directory)) - set(metadata["files"]))
        if unlisted:
            raise ValueError(
                f"{directory}: files not in its {METADATA}: {', '.join(unlisted)} (a changed preset); fetch it again."
            )
    return metadata


def _read_json(directory, name):
    path = os.path.join(directory, name)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{directory}: the preset's file {name} is missing.")
    with open(path) as f:
        return json.load(f)


def read(directory, verify=True):
    """`(task, metadata)` of the preset at `directory`: its config
    deserialised in Keras' safe mode (no Python code in a preset runs), its
    weights loaded, its preprocessor rebuilt from its config and assets."""
    import keras_seq.layers  # noqa: F401  (registers the classes a config names)
    import keras_seq.metrics  # noqa: F401
    import keras_seq.models  # noqa: F401

    metadata = read_metadata(directory, verify)
    config = _read_json(directory, CONFIG)
    preprocessor = None
    if os.path.exists(os.path.join(directory, PREPROCESSOR)):
        preprocessor = _read_json(directory, PREPROCESSOR)
        cls = keras.saving.get_registered_object(preprocessor.get("registered_name"))
        for field in getattr(cls, "ASSETS", ()):
            preprocessor["config"][field] = _read_json(directory, f"{ASSETS}/{field}.json")
        preprocessor = keras.saving.deserialize_keras_object(preprocessor, safe_mode=True)
    try:
        task = keras.saving.deserialize_keras_object(config, safe_mode=True)
        task.load_weights(os.path.join(directory, WEIGHTS))
    except (TypeError, ValueError, KeyError) as error:
        raise ValueError(f"{directory}: its model could not be rebuilt ({type(error).__name__}: {error}).") from error
    task.preprocessor = preprocessor
    return task, metadata
