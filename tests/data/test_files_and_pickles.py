import os
import pickle

import numpy as np
import pytest

import keras_seq.data as data
from keras_seq.data import files
from keras_seq.data import safe_pickle


def test_unknown_dataset_lists_the_known_ones():
    with pytest.raises(ValueError, match="Known datasets: adding, bach_chorales"):
        data.info("timit")
    assert len(data.names()) == 16


def test_search_order_explicit_then_environment_then_cache(tmp_path, monkeypatch):
    explicit, env, home = tmp_path / "explicit", tmp_path / "env", tmp_path / "home"
    for folder in (explicit, env, home / "datasets" / "keras_seq"):
        os.makedirs(folder / "set")
        (folder / "set" / "f.txt").write_text(str(folder))
    monkeypatch.setenv(files.ENV_VAR, str(env))
    monkeypatch.setenv("KERAS_HOME", str(home))
    assert files.find("set/f.txt", str(explicit)) == str(explicit / "set" / "f.txt")
    assert files.find("set/f.txt") == str(env / "set" / "f.txt")
    monkeypatch.delenv(files.ENV_VAR)
    assert files.find("set/f.txt") == str(home / "datasets" / "keras_seq" / "set" / "f.txt")


def test_missing_file_without_url_says_where_to_put_it(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    monkeypatch.delenv(files.ENV_VAR, raising=False)
    os.makedirs(tmp_path / "d")
    with pytest.raises(FileNotFoundError, match=r"nottingham/Nottingham.pickle.*Place it there"):
        files.find("nottingham/Nottingham.pickle", str(tmp_path / "d"))


def test_download_checks_the_checksum(tmp_path, monkeypatch):
    import urllib.request

    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "home"))
    payload = b"hello data"

    class Response:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def read(self):
            return payload

    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout: Response())
    import hashlib

    good = hashlib.sha256(payload).hexdigest()
    os.makedirs(tmp_path / "none")
    with pytest.raises(ValueError, match="Checksum mismatch"):
        files.find("x/a.bin", str(tmp_path / "none"), url="http://example/a.bin", sha256_hex="0" * 64)
    assert not os.path.exists(tmp_path / "home" / "datasets" / "keras_seq" / "x" / "a.bin")
    path = files.find("x/a.bin", str(tmp_path / "none"), url="http://example/a.bin", sha256_hex=good)
    assert open(path, "rb").read() == payload


class _Exploit:
    def __reduce__(self):
        return (os.system, ("touch pwned_by_pickle",))


def test_restricted_unpickler_refuses_code(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "evil.pickle"
    path.write_bytes(pickle.dumps({"train": [_Exploit()]}))
    with pytest.raises(safe_pickle.UnsafePickleError, match="system"):
        safe_pickle.load(str(path))
    assert not os.path.exists(tmp_path / "pwned_by_pickle")


def test_restricted_unpickler_reads_plain_data_and_numpy(tmp_path):
    plain = {"train": [[[60, 64], [62]]], "n": 1.5}
    (tmp_path / "plain.pickle").write_bytes(pickle.dumps(plain))
    assert safe_pickle.load(str(tmp_path / "plain.pickle")) == plain
    array = np.arange(6).reshape(2, 3)
    (tmp_path / "array.pickle").write_bytes(pickle.dumps({"X": array}, protocol=2))
    with pytest.raises(safe_pickle.UnsafePickleError):
        safe_pickle.load(str(tmp_path / "array.pickle"))
    loaded = safe_pickle.load(str(tmp_path / "array.pickle"), safe_pickle.NUMPY_ARRAY_GLOBALS)
    np.testing.assert_array_equal(loaded["X"], array)


def test_truncated_pickle_is_a_clear_error(tmp_path):
    blob = pickle.dumps({"train": list(range(1000))})
    (tmp_path / "cut.pickle").write_bytes(blob[: len(blob) // 2])
    with pytest.raises(ValueError, match="corrupt or truncated"):
        safe_pickle.load(str(tmp_path / "cut.pickle"))


def test_a_directory_where_the_file_belongs_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "home"))
    monkeypatch.delenv(files.ENV_VAR, raising=False)
    os.makedirs(tmp_path / "d" / "set" / "f.txt")
    with pytest.raises(IsADirectoryError, match=r"d/set/f.txt' is a directory, not the file"):
        files.find("set/f.txt", str(tmp_path / "d"), url="https://example.invalid/f.txt")


def test_an_explicit_data_dir_must_be_an_existing_folder(tmp_path, monkeypatch):
    env = tmp_path / "env"
    os.makedirs(env / "set")
    (env / "set" / "f.txt").write_text("found by the fallback")
    monkeypatch.setenv(files.ENV_VAR, str(env))
    with pytest.raises(ValueError, match=r"data_dir '.*/missing' does not exist"):
        files.find("set/f.txt", str(tmp_path / "missing"))
    (tmp_path / "a_file").write_text("")
    with pytest.raises(ValueError, match=r"data_dir '.*/a_file' is not a folder"):
        files.find("set/f.txt", str(tmp_path / "a_file"))
    with pytest.raises(ValueError, match=r"data_dir '' does not exist"):
        files.find("set/f.txt", "")
    with pytest.raises(ValueError, match=r"data_dir '.*/missing' does not exist"):
        data.load_arrays("ptb_char", "valid", data_dir=str(tmp_path / "missing"))
