"""Multi-device training with the backends' own engines.

`training_strategy()` picks what the current Keras backend offers for the
hardware it finds: a `tf.distribute` strategy on TensorFlow (TPU, several
workers, several GPUs, or the default one-device strategy), a
`keras.distribution.DataParallel` on JAX, nothing on torch. Nothing here is
home-made: the chosen object is TensorFlow's or Keras' own, configured.

TensorFlow is imported inside the functions, so this module imports on a
JAX- or torch-only installation.
"""

import json
import os

import keras
import numpy as np

KINDS = ("auto", "default", "mirrored")


def training_strategy(kind="auto", tpu=None, devices=None):
    """The distribution to train under on the current Keras backend.

    On TensorFlow, with `kind="auto"`, the first that applies of:

    1. `tf.distribute.TPUStrategy` when a TPU is attached (`tpu` names it;
       `None` lets `TPUClusterResolver` find the Colab/Cloud TPU itself);
    2. `tf.distribute.MultiWorkerMirroredStrategy` when the `TF_CONFIG`
       environment variable names a cluster of more than one worker
       (see "Several workers" below: `Model.fit` does not work under it);
    3. `tf.distribute.MirroredStrategy` when more than one GPU is visible,
       or over `devices` when more than one device is given (e.g. the
       logical CPU devices of a test);
    4. the default strategy, `tf.distribute.get_strategy()`.

    `kind="default"` always gives the default strategy; `kind="mirrored"` a
    `MirroredStrategy` over `devices` (default: every GPU, or the CPU when
    there is none).

    On JAX, a `keras.distribution.DataParallel` over `devices` (default:
    `keras.distribution.list_devices()`) when there is more than one device
    (with `kind` "auto" or "mirrored"); it is also made the global
    distribution with `keras.distribution.set_distribution`. Otherwise
    `None`, and the global distribution is left alone. The global batch
    size must then be a multiple of the number of devices.

    On torch, always `None`: Keras 3 has no distribution API for the torch
    backend; training runs on the one device torch picks (use
    `torch.distributed` around Keras yourself for more).

    Args:
        kind: `"auto"`, `"default"` or `"mirrored"` (see above).
        tpu: TPU name or address for `TPUClusterResolver` (TensorFlow only);
            `None` lets the resolver look for one, and no TPU found is not
            an error.
        devices: Device names to replicate over, e.g.
            `["/cpu:0", "/cpu:1"]` on TensorFlow or `["cpu:0", "cpu:1"]` on
            JAX; `None` for every accelerator found.

    Several workers: Keras 3.15.1's TensorFlow trainer cannot `fit` (nor
    `evaluate`) under a `MultiWorkerMirroredStrategy` of more than one
    worker, however the model is compiled, built or fed: its
    `_maybe_symbolic_build` calls `strategy.reduce` on the whole PerReplica
    batch ("Attempt to convert a value (PerReplica...) to a Tensor"), and
    `reduce_per_replica` calls `strategy.reduce("MEAN", logs, axis=0)` on
    scalar logs ("Invalid reduction dimension 0"). TensorFlow's standard
    custom training loop does work, with the model, its compiled loss and
    its Keras optimizer: build the model and `model.optimizer.build(
    model.trainable_variables)` under `strategy.scope()`; split the data
    with `strategy.experimental_distribute_dataset` (global batch size;
    auto-shard policy `DATA` for in-memory data); and in a `tf.function`,
    `strategy.run` a step that computes
    `model.compute_loss(x=x, y=y, y_pred=model(x, training=True))` under a
    `tf.GradientTape` and calls `model.optimizer.apply_gradients`. Keras
    divides each replica's loss by the number of replicas and the optimizer
    sums the gradients across workers, so every worker applies the global
    batch's mean gradient and the weights stay identical (as
    tests/test_distribute.py checks against a one-process `fit`).
    `MirroredStrategy` (one process, several devices) trains with `fit`.

    Returns:
        On TensorFlow a `tf.distribute.Strategy`: build and compile the model
        inside `with strategy.scope():`, then `fit` as usual (the batch size
        of the data is the global one), except under a multi-worker
        `MultiWorkerMirroredStrategy` (custom loop, above). On JAX a
        `keras.distribution.DataParallel` or `None`; on torch `None`.

    Raises:
        ValueError: `kind` is not one of `KINDS`, or `TF_CONFIG` is not
            valid JSON.

    Example:

        strategy = training_strategy()
        if hasattr(strategy, "scope"):  # TensorFlow
            with strategy.scope():
                model = make_and_compile_model()
        else:  # JAX: the distribution is already set; torch: one device
            model = make_and_compile_model()
        model.fit(dataset, epochs=3)
    """
    if kind not in KINDS:
        raise ValueError(f"Unknown strategy kind {kind!r}; expected one of {KINDS}.")
    backend = keras.backend.backend()
    if backend == "tensorflow":
        return _tensorflow_strategy(kind, tpu, devices)
    if backend == "jax":
        return _jax_distribution(kind, devices)
    return None


def tf_config_workers(environ=None):
    """Number of workers the `TF_CONFIG` environment variable names (0 when
    it is unset or names none)."""
    text = (os.environ if environ is None else environ).get("TF_CONFIG")
    if not text:
        return 0
    try:
        config = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"TF_CONFIG is not valid JSON ({error}): {text!r}") from None
    return len(config.get("cluster", {}).get("worker", []))


def connect_tpu(tpu=None):
    """A `tf.distribute.TPUStrategy` for the attached TPU, or `None` when no
    TPU can be found (`tpu` as in `training_strategy`)."""
    import tensorflow as tf

    try:
        resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu=tpu)
    except (ValueError, tf.errors.NotFoundError):  # "Please provide a TPU Name"
        return None
    tf.config.experimental_connect_to_cluster(resolver)
    tf.tpu.experimental.initialize_tpu_system(resolver)
    return tf.distribute.TPUStrategy(resolver)


def _tensorflow_strategy(kind, tpu, devices):
    import tensorflow as tf

    if kind == "default":
        return tf.distribute.get_strategy()
    if kind == "mirrored":
        return tf.distribute.MirroredStrategy(devices)
    strategy = connect_tpu(tpu)
    if strategy is not None:
        return strategy
    if tf_config_workers() > 1:
        return tf.distribute.MultiWorkerMirroredStrategy()
    if devices is not None and len(devices) > 1:
        return tf.distribute.MirroredStrategy(devices)
    if devices is None and len(tf.config.list_logical_devices("GPU")) > 1:
        return tf.distribute.MirroredStrategy()
    return tf.distribute.get_strategy()


def _jax_distribution(kind, devices):
    if kind == "default":
        return None
    devices = keras.distribution.list_devices() if devices is None else list(devices)
    if len(devices) < 2:
        return None
    distribution = keras.distribution.DataParallel(devices=devices)
    keras.distribution.set_distribution(distribution)
    return distribution


class Runtime:
    """What a notebook or script trains on: `accelerator` ("TPU", "GPU" or
    "CPU"), `replicas` (model copies a global batch is split over), `scope`
    (a context-manager factory: build and compile models inside `scope()`)
    and `strategy` (as `training_strategy` returned it)."""

    def __init__(self, strategy, accelerator, replicas, scope):
        self.strategy, self.accelerator, self.replicas, self.scope = strategy, accelerator, replicas, scope

    def __repr__(self):
        return (
            f"Keras {keras.__version__} on {keras.backend.backend()}: {self.accelerator}, "
            f"{type(self.strategy).__name__}, {self.replicas} replica(s)"
        )


def describe(strategy):
    """The `Runtime` of a `training_strategy()` result on the current backend.

    Example:

    >>> runtime = describe(training_strategy("auto"))
    >>> with runtime.scope():
    ...     model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    >>> runtime.replicas >= 1
    True
    """
    import contextlib

    if hasattr(strategy, "device_mesh"):  # JAX: a keras.distribution (DataParallel), set globally
        devices = [str(d) for d in np.ravel(strategy.device_mesh.devices)]
        return Runtime(strategy, devices[0].split(":")[0].upper(), len(devices), strategy.scope)
    if hasattr(strategy, "scope"):  # a tf.distribute strategy
        import tensorflow as tf

        accelerator = (
            "TPU"
            if isinstance(strategy, tf.distribute.TPUStrategy)
            else "GPU"
            if tf.config.list_logical_devices("GPU")
            else "CPU"
        )
        return Runtime(strategy, accelerator, strategy.num_replicas_in_sync, strategy.scope)
    # JAX (a distribution, if any, is set globally) or torch: nothing to enter
    devices = keras.distribution.list_devices() if keras.backend.backend() == "jax" else ["cpu"]
    replicas = len(devices) if strategy is not None else 1
    return Runtime(strategy, devices[0].split(":")[0].upper(), replicas, contextlib.nullcontext)
