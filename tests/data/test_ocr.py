import numpy as np
import pytest

import keras_seq.data as data
from keras_seq.data import ocr


@pytest.fixture(scope="module")
def words(shared_data_dir):
    return ocr.read_words(shared_data_dir), shared_data_dir


def test_ocr_words_letters_and_folds(words):
    (images, labels, folds), _ = words
    assert len(images) == 6877
    assert sum(len(l) for l in labels) == 52152
    assert tuple(np.bincount(folds)) == ocr.FOLD_SIZES
    assert all(img.shape == (len(lab), 128) for img, lab in zip(images, labels))
    assert set(np.unique(np.concatenate(images))) <= {0.0, 1.0}
    assert np.concatenate(labels).min() == 0 and np.concatenate(labels).max() == 25


def test_cv_protocol_trains_on_nine_folds(words):
    _, path = words
    for fold in (0, 7):
        train = data.load_arrays("ocr_letters", "train", data_dir=path, protocol="cv", fold=fold)
        test = data.load_arrays("ocr_letters", "test", data_dir=path, protocol="cv", fold=fold)
        assert len(test) == ocr.FOLD_SIZES[fold]
        assert len(train) + len(test) == 6877


def test_cv_protocol_holds_out_the_next_fold_for_early_stopping(words):
    (images, _, folds), path = words
    for fold in (0, 9):
        valid_fold = (fold + 1) % 10
        expected = {
            "valid": np.flatnonzero(folds == valid_fold),
            "train_minus_valid": np.flatnonzero((folds != fold) & (folds != valid_fold)),
        }
        for split, indices in expected.items():
            loaded = data.load_arrays("ocr_letters", split, data_dir=path, protocol="cv", fold=fold)
            assert len(loaded) == len(indices), (fold, split)
            for x, i in zip(loaded.inputs, indices):
                np.testing.assert_array_equal(x, images[i])
    info = data.info("ocr_letters")
    assert {s: info.splits[s] for s in ("train_minus_valid", "valid")} == {
        s: len(data.load_arrays("ocr_letters", s, data_dir=path, protocol="cv", fold=0))
        for s in ("train_minus_valid", "valid")
    }


def test_ms_protocol_has_train_valid_test(words):
    _, path = words
    sizes = {
        s: len(data.load_arrays("ocr_letters", s, data_dir=path, protocol="ms", fold=9))
        for s in ("train", "valid", "test")
    }
    assert sizes == {
        "train": ocr.FOLD_SIZES[9],
        "valid": ocr.FOLD_SIZES[0],
        "test": 6877 - ocr.FOLD_SIZES[9] - ocr.FOLD_SIZES[0],
    }


def test_bad_protocol_fold_and_split():
    with pytest.raises(ValueError, match="protocol"):
        ocr.fold_roles("loo", 0)
    with pytest.raises(ValueError, match="fold"):
        ocr.fold_roles("cv", 10)
    with pytest.raises(ValueError, match="has splits"):
        ocr.load("train_minus_valid", protocol="ms")
