"""MIT OCR handwritten words (Kassel; Taskar et al. 2004): one 16x8 binary
letter image per step, 26 classes, 6877 words in 10 folds.

Protocols (`protocol=`, with `fold=0..9`):

- `"cv"` (cross-validation): train on the 9 other folds, test on `fold`.
  The paper does no model selection here and gives no epoch count; to end
  training by early stopping, `"valid"` is fold k + 1 (mod 10) and
  `"train_minus_valid"` the 8 remaining training folds (as CoNLL-2000's
  splits of the same names).
- `"ms"` (model selection): the SCRBM paper's "10 groups, each a training,
  validation and test set". Group k trains on fold k, validates on fold
  k + 1 (mod 10) and tests on the 8 others: the small-training-set
  partition used in the structured-prediction literature (our reading of the
  paper's reference [15]; the exact original grouping is not published).
"""

import os

import numpy as np

from keras_seq.data import files
from keras_seq.data import registry
from keras_seq.data import safe_pickle

RELATIVE_PATH = os.path.join("ocr_letters", "ocrletters.pickle.gz")
SHA256 = "f58f791c56b394c46c994e843d8d5475ad5d4bfd88732b5c429115d1c18eae1f"
URL = (
    "https://raw.githubusercontent.com/a-ro/preimage/"
    "5489e8ab34bdd5f1f1f2eb18718425373ede44bb/preimage/datasets/ocrletters.pickle.gz"
)
PIXELS = 16 * 8
MAX_LETTERS = 14
NUM_FOLDS = 10
# Words per fold, as counted in the file (and the original letter.data).
FOLD_SIZES = (626, 704, 684, 698, 693, 651, 739, 717, 690, 675)


def read_words(data_dir=None):
    """(images, labels, folds): lists of (T, 128) float32 and (T,) int32
    arrays, and the fold of each word."""
    path = files.find(RELATIVE_PATH, data_dir, url=URL, sha256_hex=SHA256)
    data = safe_pickle.load(path, safe_pickle.NUMPY_ARRAY_GLOBALS, encoding="latin1")
    try:
        pixels, words, folds = data["X"], data["y"], data["fold_ids"]
    except (KeyError, TypeError, IndexError):
        raise ValueError(f"{path}: expected a dict with 'X', 'y' and 'fold_ids'.") from None
    if pixels.shape[1:] != (MAX_LETTERS * PIXELS,):
        raise ValueError(f"{path}: 'X' has shape {pixels.shape}, expected (words, {MAX_LETTERS * PIXELS}).")
    images, labels = [], []
    for row, word in zip(pixels, words):
        word = word.decode("ascii") if isinstance(word, bytes) else str(word)
        ids = np.frombuffer(word.encode("ascii"), dtype="uint8").astype("int32") - ord("a")
        if not 0 < len(ids) <= MAX_LETTERS or ids.min() < 0 or ids.max() > 25:
            raise ValueError(f"{path}: invalid word {word!r}.")
        images.append(row[: len(ids) * PIXELS].reshape(len(ids), PIXELS).astype("float32"))
        labels.append(ids)
    return images, labels, np.asarray(folds, dtype="int64")


def fold_roles(protocol, fold):
    """{split name: list of folds} of one protocol and fold."""
    if not isinstance(fold, int) or not 0 <= fold < NUM_FOLDS:
        raise ValueError(f"`fold` must be an integer in [0, 9]; got {fold!r}.")
    others = [f for f in range(NUM_FOLDS) if f != fold]
    valid = (fold + 1) % NUM_FOLDS
    if protocol == "cv":
        return {
            "train": others,
            "test": [fold],
            "valid": [valid],
            "train_minus_valid": [f for f in others if f != valid],
        }
    if protocol == "ms":
        return {"train": [fold], "valid": [valid], "test": [f for f in others if f != valid]}
    raise ValueError(f"`protocol` must be 'cv' or 'ms'; got {protocol!r}.")


def load(split, data_dir=None, protocol="cv", fold=0):
    roles = fold_roles(protocol, fold)
    if split not in roles:
        raise ValueError(f"The {protocol!r} protocol has splits {sorted(roles)}; got {split!r}.")
    images, labels, folds = read_words(data_dir)
    keep = np.flatnonzero(np.isin(folds, roles[split]))
    return registry.Sequences([images[i] for i in keep], [labels[i] for i in keep])


registry.register(
    registry.DatasetInfo(
        name="ocr_letters",
        description=(
            "MIT OCR handwritten words: a 16x8 binary image per letter, label the "
            "letters (26 classes). 10 folds; protocol='cv' or 'ms', fold=0..9."
        ),
        task="labelling",
        splits={  # protocol="cv", fold=0
            "train": sum(FOLD_SIZES) - FOLD_SIZES[0],
            "test": FOLD_SIZES[0],
            "train_minus_valid": sum(FOLD_SIZES) - FOLD_SIZES[0] - FOLD_SIZES[1],
            "valid": FOLD_SIZES[1],
        },
        input_shape=(PIXELS,),
        input_dtype="float32",
        num_classes=26,
        source="Taskar et al. 2004 (ai.stanford.edu/~btaskar/ocr); word-level pickle from a-ro/preimage",
        files=(RELATIVE_PATH,),
    ),
    load,
)
