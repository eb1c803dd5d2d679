"""keras_seq.distribute: strategy selection, and real multi-device training
on each backend's own engine (two logical CPU devices, two host devices,
two worker processes). The training checks run in subprocesses with a
timeout, so that device configuration cannot leak into other tests."""

import json
import os
import socket
import subprocess
import sys
import textwrap

import keras
import numpy as np
import pytest

from keras_seq import distribute

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BACKEND = keras.backend.backend()
ONLY_TENSORFLOW = pytest.mark.skipif(
    BACKEND != "tensorflow", reason="tf.distribute strategies exist on the TensorFlow backend only")
ONLY_JAX = pytest.mark.skipif(
    BACKEND != "jax", reason="keras.distribution.DataParallel is exercised on the JAX backend only")
ONLY_TORCH = pytest.mark.skipif(BACKEND != "torch", reason="checks the torch backend's answer")


def _environment(backend, **extra):
    environment = dict(os.environ, KERAS_BACKEND=backend, TF_CPP_MIN_LOG_LEVEL="3",
                       PYTHONPATH=REPOSITORY, **extra)
    environment.pop("TF_CONFIG", None)
    return environment


def _run_script(script, backend, timeout=240, **extra):
    """Runs `script` in a fresh interpreter; returns the JSON of its last line."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], env=_environment(backend, **extra),
        cwd=REPOSITORY, capture_output=True, text=True, timeout=timeout,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="Unknown strategy kind"):
        distribute.training_strategy("pipeline")


def test_tf_config_workers_counts_the_cluster():
    cluster = {"cluster": {"worker": ["a:1", "b:2"]}, "task": {"type": "worker", "index": 0}}
    two = {"TF_CONFIG": json.dumps(cluster)}
    assert distribute.tf_config_workers(two) == 2
    assert distribute.tf_config_workers({}) == 0
    with pytest.raises(ValueError, match="TF_CONFIG is not valid JSON"):
        distribute.tf_config_workers({"TF_CONFIG": "{cluster"})


NO_TENSORFLOW_SCRIPT = """
    import json
    import sys

    sys.modules["tensorflow"] = None  # as if TensorFlow were not installed
    from keras_seq import distribute

    print(json.dumps({"distribution": repr(distribute.training_strategy())}))
"""


@ONLY_JAX
def test_imports_and_selects_without_tensorflow():
    assert _run_script(NO_TENSORFLOW_SCRIPT, "jax", timeout=120) == {"distribution": "None"}


@ONLY_TENSORFLOW
def test_default_strategy_without_tpu_cluster_or_gpus(monkeypatch):
    import tensorflow as tf

    monkeypatch.delenv("TF_CONFIG", raising=False)
    if len(tf.config.list_logical_devices("GPU")) > 1:
        pytest.skip("several GPUs: auto picks MirroredStrategy")
    assert distribute.training_strategy() is tf.distribute.get_strategy()
    assert distribute.training_strategy("default") is tf.distribute.get_strategy()


@ONLY_JAX
def test_jax_one_device_gives_no_distribution():
    if len(keras.distribution.list_devices()) > 1:
        pytest.skip("several devices: auto picks DataParallel")
    assert distribute.training_strategy() is None


@ONLY_TORCH
def test_torch_gives_no_distribution():
    assert distribute.training_strategy() is None
    assert distribute.training_strategy("mirrored") is None


MIRRORED_SCRIPT = """
    import json
    import tensorflow as tf

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)

    import keras
    import numpy as np
    from keras_seq import distribute
    from keras_seq.zoo import builders

    keras.utils.set_random_seed(0)
    strategy = distribute.training_strategy(devices=["/cpu:0", "/cpu:1"])
    with strategy.scope():
        model, _ = builders.piano_roll_model("lmn_b", units=4, memory_units=4, keys=8)
    rolls = np.random.default_rng(0).integers(0, 2, size=(8, 5, 8)).astype("float32")
    history = model.fit(rolls, rolls, batch_size=4, epochs=1, verbose=0)  # 2 steps
    print(json.dumps({"strategy": type(strategy).__name__, "replicas": strategy.num_replicas_in_sync,
                      "loss": history.history["loss"][-1]}))
"""


@ONLY_TENSORFLOW
def test_mirrored_strategy_trains_a_zoo_model_on_two_logical_cpus():
    result = _run_script(MIRRORED_SCRIPT, "tensorflow")
    assert result["strategy"] == "MirroredStrategy"
    assert result["replicas"] == 2
    assert np.isfinite(result["loss"])


DATA_PARALLEL_SCRIPT = """
    import json
    import keras
    import numpy as np
    from keras_seq import distribute
    from keras_seq.layers import LMN

    keras.utils.set_random_seed(0)
    distribution = distribute.training_strategy()
    model = keras.Sequential([keras.Input((5, 3)), LMN(4, 4), keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 5, 3)).astype("float32")
    y = rng.normal(size=(8, 1)).astype("float32")
    history = model.fit(x, y, batch_size=4, epochs=1, verbose=0)  # 2 steps
    print(json.dumps({"distribution": type(distribution).__name__,
                      "devices": int(distribution.device_mesh.devices.size),
                      "global": keras.distribution.distribution() is distribution,
                      "loss": history.history["loss"][-1]}))
"""


@ONLY_JAX
def test_data_parallel_trains_an_lmn_on_two_host_devices():
    result = _run_script(DATA_PARALLEL_SCRIPT, "jax", XLA_FLAGS="--xla_force_host_platform_device_count=2")
    assert result["distribution"] == "DataParallel"
    assert result["devices"] == 2
    assert result["global"]
    assert np.isfinite(result["loss"])


WORKER_SCRIPT = """
    import json
    import sys
    import keras
    import numpy as np
    import tensorflow as tf
    from keras_seq import distribute
    from keras_seq.layers import LMN

    strategy = distribute.training_strategy()
    assert isinstance(strategy, tf.distribute.MultiWorkerMirroredStrategy), strategy
    keras.utils.set_random_seed(0)
    with strategy.scope():
        model = keras.Sequential([keras.Input((5, 3)), LMN(4, 4), keras.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 5, 3)).astype("float32")
    y = rng.normal(size=(16, 1)).astype("float32")
    history = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    np.save(sys.argv[1], np.concatenate([np.ravel(w) for w in model.get_weights()]))
    print(json.dumps({"replicas": strategy.num_replicas_in_sync, "loss": history.history["loss"][-1]}))
"""


def _free_port():
    with socket.socket() as probe:
        probe.bind(("localhost", 0))
        return probe.getsockname()[1]


# Keras 3.15.1's TensorFlow trainer cannot `fit` under a MultiWorkerMirroredStrategy
# of more than one worker: `_maybe_symbolic_build` calls `strategy.reduce` on the
# whole (x, y) batch, which the collective cross-device ops refuse ("Attempt to
# convert a value (PerReplica...) to a Tensor"), and `reduce_per_replica` then
# calls `strategy.reduce("MEAN", loss, axis=0)` on scalar logs ("Invalid reduction
# dimension 0"); see keras/src/backend/tensorflow/trainer.py. The test is excused
# (xfail) only when a worker fails with one of these messages; once a Keras
# release fixes both, it runs to the identical-weights assertion.
KERAS_MULTI_WORKER_FIT_BUG = ("PerReplica", "Invalid reduction dimension")


@ONLY_TENSORFLOW
def test_multi_worker_mirrored_strategy_keeps_two_workers_in_step(tmp_path):
    workers = [f"localhost:{_free_port()}" for _ in range(2)]
    processes = []
    for index in range(2):
        tf_config = json.dumps({"cluster": {"worker": workers}, "task": {"type": "worker", "index": index}})
        environment = _environment("tensorflow")
        environment["TF_CONFIG"] = tf_config
        processes.append(subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(WORKER_SCRIPT), str(tmp_path / f"worker{index}.npy")],
            env=environment, cwd=REPOSITORY, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        ))
    outputs = []
    try:
        for process in processes:
            outputs.append(process.communicate(timeout=240))
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.communicate()
    for process, (stdout, stderr) in zip(processes, outputs):
        if process.returncode != 0 and any(sign in stderr for sign in KERAS_MULTI_WORKER_FIT_BUG):
            # Only this known Keras failure is excused; any other error fails the test.
            pytest.xfail("Keras 3 TF trainer: model.fit under a 2-worker MultiWorkerMirroredStrategy "
                         "fails in strategy.reduce (_maybe_symbolic_build, reduce_per_replica)")
        assert process.returncode == 0, stderr[-4000:]
        result = json.loads(stdout.strip().splitlines()[-1])
        assert result["replicas"] == 2
        assert np.isfinite(result["loss"])
    np.testing.assert_allclose(np.load(tmp_path / "worker0.npy"), np.load(tmp_path / "worker1.npy"))
