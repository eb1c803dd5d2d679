"""The preset format and loading: a preset reloads identically, files are
checked against their SHA-256, and names, directories, https archives
(served here by a local HTTP server) and hf:// handles resolve, cached
under KERAS_HOME and reused offline; bad presets are one clear error."""

import functools
import hashlib
import http.server
import json
import os
import shutil
import sys
import tarfile
import threading
import types

import keras
import numpy as np
import pytest

import keras_seq
from keras_seq import presets
from keras_seq.models import SequenceTagger
from keras_seq.models import WordPreprocessor
from keras_seq.presets import files
from keras_seq.presets import remote


def _tagger():
    x = keras.Input((None,), dtype="int32")
    hidden = keras.layers.GRU(4, return_sequences=True)(keras.layers.Embedding(5, 3)(x))
    backbone = keras.Model(x, keras.layers.Dense(2)(hidden))
    return SequenceTagger(backbone, WordPreprocessor(["<pad>", "<oov>", "a", "b", "c"], ["X", "Y"]), name="toy")


SENTENCES = [["a", "b", "c", "zzz"], ["c", "a"]]


@pytest.fixture
def preset(tmp_path):
    task = _tagger()
    directory = str(tmp_path / "toy")
    presets.save(
        task,
        directory,
        {"name": "toy", "headline": {"metric": "sequence_error", "value": 0.5}},
        card=lambda m: f"# {m['name']}\n",
    )
    return task, directory


def test_a_saved_preset_loads_identically(preset):
    task, directory = preset
    loaded = presets.load(directory)
    assert type(loaded) is SequenceTagger and loaded.preprocessor == task.preprocessor
    for mine, theirs in zip(task.get_weights(), loaded.get_weights()):
        np.testing.assert_array_equal(mine, theirs)
    ids, _ = task.preprocessor(SENTENCES)
    np.testing.assert_allclose(loaded.predict_steps(ids), task.predict_steps(ids), atol=1e-6)
    assert loaded.label(SENTENCES) == task.label(SENTENCES)
    meta = loaded.preset
    assert meta["keras_seq_version"] == keras_seq.__version__ and meta["task_class"] == "SequenceTagger"
    assert meta["parameters"] == task.count_params()
    assert set(meta["files"]) == {
        "config.json",
        "model.weights.h5",
        "preprocessor.json",
        "README.md",
        "assets/words.json",
        "assets/class_names.json",
        "assets/suffixes.json",
    }
    for name, digest in meta["files"].items():
        assert hashlib.sha256(open(os.path.join(directory, name), "rb").read()).hexdigest() == digest


def test_a_preset_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    task = _tagger()

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(task, "save_weights", fail)
    with pytest.raises(OSError, match="disk full"):
        presets.save(task, str(tmp_path / "p"), {"name": "p"})
    assert os.listdir(tmp_path) == []
    with pytest.raises(FileExistsError):
        presets.save(_tagger(), str(tmp_path), {"name": "p"})


def test_tampered_missing_and_extra_files_are_named(preset):
    _, directory = preset
    weights = os.path.join(directory, files.WEIGHTS)
    data = bytearray(open(weights, "rb").read())
    data[-8] ^= 1
    open(weights, "wb").write(bytes(data))
    with pytest.raises(ValueError, match="model.weights.h5 does not match its SHA-256"):
        presets.load(directory)
    os.remove(weights)
    with pytest.raises(FileNotFoundError, match="model.weights.h5 is missing"):
        presets.load(directory)


def test_a_missing_asset_and_an_unlisted_file_are_named(preset):
    _, directory = preset
    open(os.path.join(directory, "extra.py"), "w").write("print('hi')\n")
    with pytest.raises(ValueError, match="files not in its metadata.json: extra.py"):
        presets.load(directory)
    os.remove(os.path.join(directory, "extra.py"))
    os.remove(os.path.join(directory, "assets", "words.json"))
    with pytest.raises(FileNotFoundError, match="assets/words.json is missing"):
        presets.load(directory)


def test_a_preset_newer_than_the_library_is_refused(preset):
    _, directory = preset
    path = os.path.join(directory, files.METADATA)
    meta = json.load(open(path))
    meta["keras_seq_version"] = "99.0.0"
    json.dump(meta, open(path, "w"))
    with pytest.raises(ValueError, match="newer than this keras-seq"):
        presets.load(directory)


def test_code_in_a_preset_config_is_refused(tmp_path):
    backbone = keras.Sequential([keras.Input((None,), dtype="int32"), keras.layers.Lambda(lambda z: z * 2)])
    directory = str(tmp_path / "bad")
    presets.save(keras_seq.models.Task(backbone), directory, {"name": "bad"})
    with pytest.raises(ValueError, match="could not be rebuilt.*Lambda"):
        presets.load(directory)


def test_an_unknown_name_gets_the_closest_names():
    names = presets.builtin_names()
    assert "wsj_pos_2000_lexical_scrbm" in names
    with pytest.raises(
        ValueError, match="unknown preset 'wsj_pos_lexical_scrbm'; did you mean wsj_pos_2000_lexical_scrbm"
    ):
        presets.resolve("wsj_pos_lexical_scrbm")
    with pytest.raises(FileNotFoundError, match="no preset directory"):
        presets.resolve("./nowhere/preset")


@pytest.fixture
def server(tmp_path):
    """A local HTTP server over tmp_path/www; yields (root folder, base URL, stop)."""
    root = tmp_path / "www"
    root.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *args: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    stopped = []

    def stop():
        if not stopped:
            httpd.shutdown()
            httpd.server_close()
            stopped.append(True)

    yield root, f"http://127.0.0.1:{httpd.server_address[1]}", stop
    stop()


def _archive(directory, path):
    with tarfile.open(path, "w:gz") as tar:
        tar.add(directory, arcname="toy")
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def test_an_archive_url_downloads_checks_caches_and_works_offline(preset, server, tmp_path, monkeypatch):
    task, directory = preset
    root, base, stop = server
    digest = _archive(directory, root / "toy.tar.gz")
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "home"))
    loaded = presets.load(f"{base}/toy.tar.gz", file_hash=digest)
    assert loaded.label(SENTENCES) == task.label(SENTENCES)
    cached = remote.cache_root()
    assert sorted(os.listdir(cached)) == ["downloads", f"toy-{digest[:16]}"]
    stop()  # offline: the cache serves it, with the hash in the URL this time
    again = presets.load(f"{base}/toy.tar.gz#sha256={digest}")
    assert again.label(SENTENCES) == task.label(SENTENCES)


def test_a_tampered_archive_is_refused_and_leaves_nothing(preset, server, tmp_path, monkeypatch):
    _, directory = preset
    root, base, _ = server
    digest = _archive(directory, root / "toy.tar.gz")
    with open(root / "toy.tar.gz", "ab") as f:
        f.write(b"tampered")
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "home"))
    with pytest.raises(ValueError, match="does not match its SHA-256.*nothing was kept"):
        presets.load(f"{base}/toy.tar.gz", file_hash=digest)
    assert os.listdir(os.path.join(remote.cache_root(), "downloads")) == []
    assert [n for n in os.listdir(remote.cache_root()) if n != "downloads"] == []


def test_an_archive_with_a_changed_file_is_refused_and_leaves_nothing(preset, server, tmp_path, monkeypatch):
    _, directory = preset
    root, base, _ = server
    with open(os.path.join(directory, "README.md"), "a") as f:
        f.write("changed\n")
    _archive(directory, root / "toy.tar.gz")  # no hash given: the files' own hashes catch it
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "home"))
    with pytest.raises(ValueError, match="README.md does not match its SHA-256"):
        presets.load(f"{base}/toy.tar.gz")
    assert [n for n in os.listdir(remote.cache_root()) if n != "downloads"] == []
    assert os.listdir(os.path.join(remote.cache_root(), "downloads")) == []


def test_a_missing_url_is_one_error(server, tmp_path, monkeypatch):
    _, base, _ = server
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "home"))
    with pytest.raises(ValueError, match="could not be downloaded"):
        presets.load(f"{base}/nothing.tar.gz")
    with pytest.raises(ValueError, match="#sha256=<64 hex digits>"):
        presets.load(f"{base}/toy.tar.gz#md5=abc")


def test_hugging_face_handles_go_through_snapshot_download(preset, tmp_path, monkeypatch):
    task, directory = preset
    calls = []

    def snapshot_download(repo_id, revision=None, cache_dir=None, allow_patterns=None, local_files_only=False):
        calls.append((repo_id, revision, allow_patterns, cache_dir))
        local = tmp_path / "snapshot"
        if not local.exists():
            shutil.copytree(os.path.dirname(directory), local)
        return str(local)

    monkeypatch.setitem(sys.modules, "huggingface_hub", types.SimpleNamespace(snapshot_download=snapshot_download))
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "home"))
    loaded = presets.load("hf://keras-seq/presets/toy@v1")
    assert loaded.label(SENTENCES) == task.label(SENTENCES)
    assert calls[0][:3] == ("keras-seq/presets", "v1", ["toy/*"])
    assert calls[0][3].startswith(str(tmp_path / "home"))
    with pytest.raises(ValueError, match="hf://owner/repo"):
        presets.load("hf://justone")
