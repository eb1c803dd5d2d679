"""`load_model`: `keras.saving.load_model` with errors that name the file
and the class a `.keras` file needs but this installation does not have."""

import importlib
import json
import os
import zipfile

import keras

# The modules whose import registers keras-seq's serializable classes: a
# saved zoo model names layers, models' layers and losses, and metrics.
_REGISTERING_MODULES = ("keras_seq.layers", "keras_seq.models", "keras_seq.metrics")


def load_model(path, **kwargs):
    """Loads a `.keras` model (every keyword goes to
    `keras.saving.load_model`, whose safety checks stay on).

    Raises:
        FileNotFoundError: no file at `path` (a directory is named as one).
        ValueError: the file is not a `.keras` archive (not a zip, or a zip
            without config.json); or it names classes that are not registered here
            (saved by a newer keras-seq, or by code defining its own
            layers): the error lists them, with the keras-seq classes this
            version has.
    """
    for module in _REGISTERING_MODULES:
        importlib.import_module(module)
    if os.path.isdir(path):
        raise IsADirectoryError(f"{path} is a directory; load_model needs a .keras file")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no .keras file at {path}")
    try:
        return keras.saving.load_model(path, **kwargs)
    except Exception as error:
        missing = unknown_classes(path, kwargs.get("custom_objects"))
        if not missing:
            raise
        known = sorted(name for name in keras.saving.get_custom_objects() if name.startswith("keras_seq>"))
        raise ValueError(
            f"{path} needs classes this installation does not have: {', '.join(missing)} "
            f"(a newer keras-seq, or layers defined in the code that saved it; pass them as "
            f"custom_objects). This keras-seq has: {', '.join(known)}."
        ) from error


def unknown_classes(path, custom_objects=None):
    """The registered names (`package>Class`) in the file's config that
    neither Keras' registry nor `custom_objects` resolves, sorted."""
    config = _config(path)
    registered = set(keras.saving.get_custom_objects()) | set(custom_objects or ())
    names = set()
    _collect(config, names)
    return sorted(
        name
        for name in names
        if name not in registered
        and name.split(">")[-1] not in registered
        and keras.saving.get_registered_object(name, custom_objects) is None
    )


def _config(path):
    """The model config of the `.keras` archive at `path`; a ValueError
    naming the file where it is not one."""
    try:
        with zipfile.ZipFile(path) as archive:
            text = archive.read("config.json")
    except zipfile.BadZipFile as error:
        raise ValueError(f"{path}: not a .keras model archive ({error})") from error
    except KeyError as error:
        raise ValueError(f"{path}: not a .keras model archive (a zip without config.json)") from error
    try:
        return json.loads(text)
    except ValueError as error:  # json.JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"{path}: not a .keras model archive (its config.json is not JSON: {error})") from error


def _collect(node, names):
    if isinstance(node, dict):
        name = node.get("registered_name")
        if isinstance(name, str) and ">" in name:
            names.add(name)
        for value in node.values():
            _collect(value, names)
    elif isinstance(node, list):
        for value in node:
            _collect(value, names)
