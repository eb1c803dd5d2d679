"""Trained models loadable by name: `keras_seq.presets.load(handle)`.

A handle is a built-in preset's name (`list_presets()`; they ship inside
the package), a local preset directory, an https URL of a preset archive
(`keras.utils.get_file`, with its SHA-256 as `file_hash=` or a
`#sha256=<hex>` fragment; cached under `KERAS_HOME`) or
`hf://owner/repo[/folder]` (needs `huggingface_hub`). Loading checks every
file against the SHA-256 in the preset's metadata and rebuilds the model in
Keras' safe mode; it returns a `keras_seq.models.Task` (a `keras.Model`
with its preprocessor) whose `preset` attribute holds that metadata.

`load`'s docstring shows one tagging a sentence (the tests run it).

The format (`keras_seq.presets.files`) and how the built-ins are made
(`keras-seq export`, `keras_seq.zoo.presets`) are in the docs.
"""

import difflib
import json
import os

from keras_seq.presets import files
from keras_seq.presets import remote

BUILTIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "builtin")


def builtin_names():
    """The names of the presets that ship inside the package, sorted.

    Example:

    >>> keras_seq.presets.builtin_names()
    ['bach_chorales_lmn_b_pretrained', ..., 'ocr_ms_scrbm', 'wsj_pos_2000_lexical_scrbm']
    """
    if not os.path.isdir(BUILTIN):
        return []
    return sorted(n for n in os.listdir(BUILTIN) if os.path.isfile(os.path.join(BUILTIN, n, files.METADATA)))


def resolve(handle, file_hash=None):
    """The local directory of the preset `handle` (fetched into the cache if
    remote); a ValueError with the closest names for an unknown one.

    Example:

    >>> directory = keras_seq.presets.resolve("ocr_ms_scrbm")
    >>> sorted(os.listdir(directory))
    ['README.md', 'assets', 'config.json', 'metadata.json', 'model.weights.h5', 'preprocessor.json']
    >>> keras_seq.presets.resolve("ocr_ms_scrb")
    Traceback (most recent call last):
    ...
    ValueError: unknown preset 'ocr_ms_scrb'; did you mean ocr_ms_scrbm?
    """
    if not isinstance(handle, (str, os.PathLike)):
        raise ValueError(f"a preset handle is a name, a directory, a URL or hf://...; got {type(handle).__name__}.")
    handle = os.fspath(handle)
    if handle.startswith(("https://", "http://")):
        return remote.fetch_url(handle, file_hash)
    if handle.startswith("hf://"):
        return remote.fetch_hugging_face(handle)
    if handle in builtin_names():
        return os.path.join(BUILTIN, handle)
    if os.path.isdir(handle):
        return handle
    if os.sep in handle or handle.startswith("."):
        raise FileNotFoundError(f"no preset directory at {handle}")
    close = difflib.get_close_matches(handle, builtin_names(), n=3, cutoff=0.5)
    hint = f"; did you mean {' or '.join(close)}?" if close else "; `keras-seq presets` lists them"
    raise ValueError(f"unknown preset {handle!r}{hint}")


def load(handle, file_hash=None, verify=True):
    """The `keras_seq.models.Task` of the preset `handle` (see the module
    docstring), with its metadata as `.preset`. `file_hash`: the SHA-256
    of an https archive; `verify=False` skips the files' SHA-256 check.

    Example:

    >>> tagger = keras_seq.presets.load("wsj_pos_2000_lexical_scrbm")
    >>> type(tagger).__name__, tagger.preset["dataset"]
    ('SequenceTagger', 'wsj_pos')
    >>> tagger.label([["The", "market", "fell", "sharply", "."]])
    [['DT', 'NN', 'VBD', 'RB', '.']]
    """
    task, metadata = files.read(resolve(handle, file_hash), verify=verify)
    task.preset = metadata
    return task


def metadata(handle, file_hash=None):
    """The checked metadata of the preset `handle`, without building its model.

    Example:

    >>> meta = keras_seq.presets.metadata("ocr_ms_scrbm")
    >>> meta["task_class"], meta["dataset"], meta["data_options"]
    ('SequenceTagger', 'ocr_letters', {'protocol': 'ms', 'fold': 0})
    >>> meta["headline"]["metric"], round(meta["headline"]["value"], 3), meta["paper"]["value"]
    ('sequence_error', 0.123, 0.1481)
    """
    return files.read_metadata(resolve(handle, file_hash))


def list_presets():
    """One dict per built-in preset, by name: its task class, dataset, test
    metric (`metric`, `value`) with the paper's number beside it, parameters
    and size on disk (read from the metadata; nothing is loaded).

    Example:

    >>> rows = {row["name"]: row for row in keras_seq.presets.list_presets()}
    >>> ocr = rows["ocr_ms_scrbm"]
    >>> ocr["task_class"], ocr["dataset"], ocr["metric"], ocr["paper"], ocr["parameters"]
    ('SequenceTagger', 'ocr_letters', 'sequence_error', 0.1481, 101276)
    """
    rows = []
    for name in builtin_names():
        with open(os.path.join(BUILTIN, name, files.METADATA)) as f:
            meta = json.load(f)
        headline = meta.get("headline") or {}
        rows.append(
            {
                "name": name,
                "task_class": meta.get("task_class"),
                "dataset": meta.get("dataset"),
                "metric": headline.get("metric"),
                "value": headline.get("value"),
                "paper": (meta.get("paper") or {}).get("value"),
                "parameters": meta.get("parameters"),
                "size_bytes": meta.get("size_bytes"),
                "description": meta.get("description", ""),
            }
        )
    return rows


def save(task, directory, metadata, card=None):
    """Writes `task` as a preset directory (see `keras_seq.presets.files.write`).

    Example:

    >>> task = keras_seq.presets.load("ocr_ms_scrbm")
    >>> written = keras_seq.presets.save(task, "my_tagger", {"name": "my_tagger", "description": "a copy"})
    >>> written["task_class"], written["parameters"], sorted(written["files"])
    ('SequenceTagger', 101276, ['assets/class_names.json', 'config.json', 'model.weights.h5', 'preprocessor.json'])
    >>> keras_seq.presets.load("my_tagger").preset["name"]
    'my_tagger'
    """
    return files.write(task, directory, metadata, card)


__all__ = ["builtin_names", "list_presets", "load", "metadata", "resolve", "save"]
