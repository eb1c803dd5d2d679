"""Prints the spectral radius (largest |eigenvalue|) and spectral norm
(largest singular value) of the linear memory's own weight W_mm
(`memory_recurrent_kernel`) in saved LMN models: above 1, the memory
grows geometrically along a sequence (the Nottingham note in RESULTS.md).

    python scripts/memory_spectrum.py runs/nottingham_lmn_b_pretrained/seed-0/model.keras [...]

A model is a `model.keras` that `keras-seq train RECIPE` writes.
"""

import argparse

import keras
import numpy as np

from keras_seq import saving


def memory_recurrent_kernels(model):
    """{layer path: W_mm as numpy} of every LMN cell in `model`."""
    found = {}
    for layer in model.layers:
        cell = getattr(layer, "cell", None)
        if cell is not None and hasattr(cell, "memory_recurrent_kernel"):
            found[layer.name] = np.asarray(keras.ops.convert_to_numpy(cell.memory_recurrent_kernel), "float64")
    return found


def spectrum(w):
    """(spectral radius, spectral norm) of the square matrix `w`."""
    return float(np.max(np.abs(np.linalg.eigvals(w)))), float(np.linalg.svd(w, compute_uv=False)[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", help="model.keras files written by keras-seq train")
    args = parser.parse_args()
    for path in args.models:
        kernels = memory_recurrent_kernels(saving.load_model(path))
        if not kernels:
            raise SystemExit(f"{path}: no LMN layer (no memory_recurrent_kernel) in this model.")
        for name, w in kernels.items():
            radius, norm = spectrum(w)
            print(f"{path} {name}: W_mm {w.shape[0]}x{w.shape[1]}, spectral radius {radius:.3f}, spectral norm {norm:.3f}")


if __name__ == "__main__":
    main()
