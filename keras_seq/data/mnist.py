"""Sequential and permuted MNIST: a digit image read one pixel per step
(784 steps), classified at the end. The permutation is fixed by a seed."""

import numpy as np

from keras_seq.data import files
from keras_seq.data import registry

URL = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz"
SHA256 = "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1"
SPLITS = {"train": 60000, "test": 10000}


def read_mnist(split, data_dir=None):
    path = files.find("mnist.npz", data_dir, url=URL, sha256_hex=SHA256)
    prefix = {"train": "train", "test": "test"}[split]
    with np.load(path, allow_pickle=False) as data:
        return data[f"x_{prefix}"], data[f"y_{prefix}"]


def pixel_sequences(split, data_dir=None, permutation_seed=None):
    images, labels = read_mnist(split, data_dir)
    pixels = images.reshape(len(images), 784).astype("float32") / 255.0
    if permutation_seed is not None:
        pixels = pixels[:, np.random.default_rng(permutation_seed).permutation(784)]
    return registry.Sequences(list(pixels[..., None]), list(labels.astype("int32")))


def _register(name, description, permuted):
    def load(split, data_dir=None, permutation_seed=0):
        if split not in SPLITS:
            raise ValueError(f"{name} has splits {sorted(SPLITS)}; got {split!r}.")
        return pixel_sequences(split, data_dir, permutation_seed if permuted else None)

    registry.register(
        registry.DatasetInfo(
            name=name,
            description=description,
            task="classification",
            splits=dict(SPLITS),
            input_shape=(1,),
            input_dtype="float32",
            num_classes=10,
            source="LeCun et al. 1998, via keras.datasets' mnist.npz",
            files=("mnist.npz",),
        ),
        load,
    )


_register("seq_mnist", "Sequential MNIST: 784 pixels in raster order, 10 classes.", False)
_register(
    "permuted_mnist",
    "Permuted MNIST: the 784 pixels in a fixed random order (permutation_seed=0), 10 classes.",
    True,
)
