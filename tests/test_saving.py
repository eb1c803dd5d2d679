"""`keras_seq.saving.load_model` names the file that is missing or is no
`.keras` archive, in one line."""

import zipfile

import pytest

from keras_seq import saving


def test_a_file_that_is_not_a_zip_is_named(tmp_path):
    path = tmp_path / "corrupt.keras"
    path.write_text("x")
    with pytest.raises(ValueError, match=r"corrupt\.keras: not a \.keras model archive \(File is not a zip"):
        saving.load_model(str(path))


def test_a_zip_without_config_json_is_named(tmp_path):
    path = tmp_path / "other.keras"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("notes.txt", "not a model")
    with pytest.raises(ValueError, match=r"other\.keras: not a \.keras model archive \(a zip without config\.json\)"):
        saving.load_model(str(path))


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"no \.keras file at .*absent\.keras"):
        saving.load_model(str(tmp_path / "absent.keras"))
