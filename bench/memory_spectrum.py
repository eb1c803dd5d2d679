"""Prints the spectral radius (largest |eigenvalue|) and spectral norm
(largest singular value) of the linear memory's own weight W_mm
(`memory_recurrent_kernel`) in saved LMN models, and with `--dataset`
how the memory responds, along the longest training sequence, to a start
`m_0` of growing size along W_mm's leading eigenvector: whether it returns
to its usual range or runs away (the Nottingham note in RESULTS.md).

    python -m bench.memory_spectrum runs/nottingham_lmn_b_pretrained/seed-0/model.keras [...] \
        --dataset nottingham --data-dir ../shared/data

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


_SELU_SCALE, _SELU_ALPHA = 1.0507009873554805, 1.6732632423543772
ACTIVATIONS = {
    "tanh": np.tanh,
    "selu": lambda a: _SELU_SCALE * np.where(a > 0, a, _SELU_ALPHA * np.expm1(np.minimum(a, 0.0))),
}


def memory_response(cell, x, starts=(0.0, 1.0, 10.0, 100.0)):
    """{|m_0|: (largest |m_t|, |m_T|)} of the LMN `cell` run in float64 over
    the input steps `x` (T, features) from `m_0` along W_mm's leading
    eigenvector (real part); inf where the memory overflows."""
    weights = {w.name: np.asarray(keras.ops.convert_to_numpy(w), "float64") for w in cell.weights}
    name = cell.activation.__name__
    if name not in ACTIVATIONS:
        raise SystemExit(f"memory_response runs {sorted(ACTIVATIONS)} activations in float64; this LMN uses {name!r}.")
    activation = ACTIVATIONS[name]
    eigenvalues, vectors = np.linalg.eig(weights["memory_recurrent_kernel"].T)
    direction = np.real(vectors[:, np.argmax(np.abs(eigenvalues))])
    direction /= np.linalg.norm(direction)
    response = {}
    for start in starts:
        m, peak = start * direction, 0.0
        with np.errstate(over="ignore", invalid="ignore"):
            for step in np.asarray(x, "float64"):
                pre = step @ weights["kernel"] + m @ weights["recurrent_kernel"] + weights["bias"]
                h = activation(pre)
                m = h @ weights["memory_kernel"] + m @ weights["memory_recurrent_kernel"]
                peak = max(peak, float(np.linalg.norm(m)))
        final = float(np.linalg.norm(m))
        response[start] = tuple(v if np.isfinite(v) else float("inf") for v in (peak, final))
    return response


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", help="model.keras files written by keras-seq train")
    parser.add_argument("--dataset", default=None, help="also run the memory over this set's longest training sequence")
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args()
    longest = None
    if args.dataset:
        import keras_seq.data as data

        inputs = data.load_arrays(args.dataset, "train", data_dir=args.data_dir).inputs
        longest = inputs[int(np.argmax([len(x) for x in inputs]))]
    for path in args.models:
        model = saving.load_model(path)
        kernels = memory_recurrent_kernels(model)
        if not kernels:
            raise SystemExit(f"{path}: no LMN layer (no memory_recurrent_kernel) in this model.")
        for name, w in kernels.items():
            radius, norm = spectrum(w)
            print(
                f"{path} {name}: W_mm {w.shape[0]}x{w.shape[1]}, spectral radius {radius:.3f}, spectral norm {norm:.3f}"
            )
            if longest is not None:
                response = memory_response(model.get_layer(name).cell, longest)
                print(
                    f"  {model.get_layer(name).cell.activation.__name__}, {len(longest)} steps: "
                    + "; ".join(
                        f"|m_0| {start:g} -> largest |m_t| {peak:.3g}, last {final:.3g}"
                        for start, (peak, final) in response.items()
                    )
                )


if __name__ == "__main__":
    main()
