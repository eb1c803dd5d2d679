"""Backend-specific helpers the tests need and Keras has no public op for."""

import contextlib
import importlib.util
import os

import keras
import numpy as np


def gradients(layer, loss_fn, *args, **kwargs):
    """Autodiff gradients of `loss_fn(layer(*args, **kwargs))` for every
    trainable weight of `layer`, as numpy arrays in weight order."""
    args = [keras.ops.convert_to_tensor(a) for a in args]
    kwargs = {k: keras.ops.convert_to_tensor(v) for k, v in kwargs.items()}
    trainable = [v.value for v in layer.trainable_variables]
    non_trainable = [v.value for v in layer.non_trainable_variables]

    def loss_of(values):
        outputs, _ = layer.stateless_call(values, non_trainable, *args, **kwargs)
        return loss_fn(outputs)

    backend = keras.backend.backend()
    if backend == "jax":
        import jax

        grads = jax.grad(loss_of)(trainable)
    elif backend == "tensorflow":
        import tensorflow as tf

        values = [tf.convert_to_tensor(v) for v in trainable]
        with tf.GradientTape() as tape:
            tape.watch(values)
            loss = loss_of(values)
        grads = tape.gradient(loss, values)
    elif backend == "torch":
        values = [v.detach().clone().requires_grad_(True) for v in trainable]
        loss_of(values).backward()
        grads = [v.grad for v in values]
    else:
        raise NotImplementedError(backend)
    return [keras.ops.convert_to_numpy(g) for g in grads]


def finite_differences(fn, arrays, eps=1e-6):
    """Central differences of the scalar `fn(arrays)` wrt each array."""
    grads = []
    for array in arrays:
        grad = np.zeros_like(array)
        for index in np.ndindex(array.shape):
            saved = array[index]
            array[index] = saved + eps
            up = fn(arrays)
            array[index] = saved - eps
            down = fn(arrays)
            array[index] = saved
            grad[index] = (up - down) / (2 * eps)
        grads.append(grad)
    return grads


def assert_gradients_match_finite_differences(layer, autodiff, numpy_loss, weights, names):
    """`autodiff` (from `gradients(layer, ...)`) against central differences
    of `numpy_loss(arrays)`, the arrays in `names` order taken from the dict
    `weights`: every trainable weight of `layer`, matched by name."""
    numeric = finite_differences(numpy_loss, [weights[n].copy() for n in names])
    order = [v.path.split("/")[-1] for v in layer.trainable_variables]
    assert sorted(order) == sorted(names)
    for name, grad in zip(order, autodiff):
        np.testing.assert_allclose(grad, numeric[names.index(name)], rtol=1e-5, atol=1e-7, err_msg=name)


def backend_has_xla():
    return keras.backend.backend() in ("tensorflow", "jax")


def float64():
    """A context in which float64 is really float64 (JAX defaults to 32 bits)."""
    if keras.backend.backend() == "jax":
        import jax

        return jax.enable_x64(True)
    return contextlib.nullcontext()


def tiny_mnist(folder, monkeypatch, train=12, test=5):
    """A random stand-in for mnist.npz in `folder` (no download in tests),
    with the checksum the loader verifies patched to match it."""
    from keras_seq.data import files
    from keras_seq.data import mnist

    rng = np.random.default_rng(0)
    path = os.path.join(str(folder), "mnist.npz")
    np.savez(
        path,
        x_train=rng.integers(0, 256, (train, 28, 28), dtype="uint8"),
        y_train=rng.integers(0, 10, train, dtype="uint8"),
        x_test=rng.integers(0, 256, (test, 28, 28), dtype="uint8"),
        y_test=rng.integers(0, 10, test, dtype="uint8"),
    )
    monkeypatch.setattr(mnist, "SHA256", files.sha256(path))
    return str(folder)


SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts")


def load_script(name):
    """The module of `scripts/<name>.py`, which is not a package."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(SCRIPTS, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
