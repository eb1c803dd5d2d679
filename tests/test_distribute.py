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
import time

import keras
import numpy as np
import pytest

from keras_seq import distribute

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BACKEND = keras.backend.backend()
ONLY_TENSORFLOW = pytest.mark.skipif(
    BACKEND != "tensorflow", reason="tf.distribute strategies exist on the TensorFlow backend only"
)
ONLY_JAX = pytest.mark.skipif(
    BACKEND != "jax", reason="keras.distribution.DataParallel is exercised on the JAX backend only"
)
ONLY_TORCH = pytest.mark.skipif(BACKEND != "torch", reason="checks the torch backend's answer")


def _environment(backend, **extra):
    environment = dict(os.environ, KERAS_BACKEND=backend, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=REPOSITORY, **extra)
    environment.pop("TF_CONFIG", None)
    return environment


def _run_script(script, backend, timeout=240, **extra):
    """Runs `script` in a fresh interpreter; returns the JSON of its last line."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        env=_environment(backend, **extra),
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        timeout=timeout,
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


# Keras 3.15.1's TensorFlow trainer cannot `fit` (nor evaluate) under a
# MultiWorkerMirroredStrategy of more than one worker, whatever the compile
# options, data form or pre-building: `_maybe_symbolic_build` calls
# `strategy.reduce("MEAN", batch, axis=None)` on the whole PerReplica (x, y)
# batch, which the collective cross-device ops refuse ("Attempt to convert a
# value (PerReplica...) to a Tensor"), and `reduce_per_replica` then calls
# `strategy.reduce("MEAN", logs, axis=0)` on the scalar logs ("Invalid reduction
# dimension 0"); see keras/src/backend/tensorflow/trainer.py. (`fit` under a
# one-process MirroredStrategy works: test above.) What does work is
# TensorFlow's standard custom training loop, which the workers below run: the
# zoo model, its compiled loss and its Keras optimizer built under
# `strategy.scope()`; a dataset split between the workers by
# `experimental_distribute_dataset` (auto-shard policy DATA); a `tf.function`
# step around `strategy.run`, in which `model.compute_loss` divides each
# replica's mean loss by the number of replicas and
# `optimizer.apply_gradients` all-reduces (sums) the gradients across workers.
# Each worker also trains a copy of the model with plain one-process
# `model.fit` on the whole global batches: the distributed weights must equal
# it, which shows the all-reduced gradient is the global batch's mean.
WORKER_SCRIPT = """
    import json
    import sys

    import keras
    import numpy as np
    import tensorflow as tf
    from keras_seq import distribute
    from keras_seq.zoo import builders

    def weights(model):
        return np.concatenate([np.ravel(w) for w in model.get_weights()])

    def piano_roll_model():
        keras.utils.set_random_seed(0)
        model, _ = builders.piano_roll_model("lmn_b", units=4, memory_units=4, keys=8, learning_rate=0.01)
        return model

    strategy = distribute.training_strategy()
    assert isinstance(strategy, tf.distribute.MultiWorkerMirroredStrategy), strategy
    with strategy.scope():
        model = piano_roll_model()
        model.optimizer.build(model.trainable_variables)
    initial = weights(model)

    rolls = np.random.default_rng(0).integers(0, 2, size=(16, 6, 8)).astype("float32")
    x, y = rolls[:, :-1], rolls[:, 1:]  # next-frame prediction
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(8).with_options(options)  # global batch 8
    dataset = strategy.experimental_distribute_dataset(dataset)  # 4 examples a worker a step

    def replica_step(x, y):
        with tf.GradientTape() as tape:
            loss = model.compute_loss(x=x, y=y, y_pred=model(x, training=True), training=True)
        gradients = tape.gradient(loss, model.trainable_variables)
        model.optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss, tf.reduce_sum(x * tf.range(1.0, 9.0))  # which examples this worker saw

    @tf.function
    def train_step(x, y):
        loss, checksum = strategy.run(replica_step, args=(x, y))
        return strategy.reduce("SUM", loss, axis=None), strategy.experimental_local_results(checksum)[0]

    losses, checksums = [], []
    for epoch in range(2):
        for x_batch, y_batch in dataset:
            loss, checksum = train_step(x_batch, y_batch)
            losses.append(float(loss))
            checksums.append(float(checksum))

    reference = piano_roll_model()  # one process, no strategy, whole global batches
    reference.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    np.save(sys.argv[1], np.stack([initial, weights(model), weights(reference)]))
    print(json.dumps({"replicas": strategy.num_replicas_in_sync, "losses": losses, "checksums": checksums}))
"""
WORKERS_TIMEOUT = 240  # seconds for both workers together


def _free_port():
    with socket.socket() as probe:
        probe.bind(("localhost", 0))
        return probe.getsockname()[1]


def _run_workers(script, tmp_path, count=2, timeout=WORKERS_TIMEOUT):
    """Runs `script` as `count` workers of one TF_CONFIG cluster on loopback
    ports, argv[1] naming each worker's .npy file. Kills every worker at the
    deadline, and the others as soon as one fails (they would wait for it in
    their collectives). Returns [(returncode, stdout, stderr)] per worker."""
    workers = [f"localhost:{_free_port()}" for _ in range(count)]
    processes, logs = [], []
    try:
        for index in range(count):
            environment = _environment("tensorflow")
            environment["TF_CONFIG"] = json.dumps(
                {"cluster": {"worker": workers}, "task": {"type": "worker", "index": index}}
            )
            # Files rather than pipes, so that a talkative worker cannot block on a full pipe.
            logs.append((open(tmp_path / f"worker{index}.out", "w+"), open(tmp_path / f"worker{index}.err", "w+")))
            processes.append(
                subprocess.Popen(
                    [sys.executable, "-c", textwrap.dedent(script), str(tmp_path / f"worker{index}.npy")],
                    env=environment,
                    cwd=REPOSITORY,
                    stdout=logs[-1][0],
                    stderr=logs[-1][1],
                    text=True,
                )
            )
        deadline = time.monotonic() + timeout
        while any(process.poll() is None for process in processes):
            if time.monotonic() > deadline or any(process.poll() for process in processes):
                break
            time.sleep(0.2)
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
            process.wait()
    results = []
    for process, (out, err) in zip(processes, logs):
        out.seek(0)
        err.seek(0)
        results.append((process.returncode, out.read(), err.read()))
        out.close()
        err.close()
    return results


@ONLY_TENSORFLOW
def test_multi_worker_mirrored_strategy_keeps_two_workers_in_step(tmp_path):
    results = _run_workers(WORKER_SCRIPT, tmp_path)
    for index, (returncode, _, stderr) in enumerate(results):
        killed = " (killed: past the deadline, or another worker failed)" if returncode == -9 else ""
        assert returncode == 0, f"worker {index} returned {returncode}{killed}:\n{stderr[-4000:]}"
    outputs = [json.loads(stdout.strip().splitlines()[-1]) for _, stdout, _ in results]
    for output in outputs:
        assert output["replicas"] == 2
        assert len(output["losses"]) == 4  # 2 epochs of 2 steps
        assert np.all(np.isfinite(output["losses"]))
    # Each worker trained on its own half of every global batch...
    assert all(a != b for a, b in zip(outputs[0]["checksums"], outputs[1]["checksums"]))
    # ...yet the reduced loss and the weights stayed identical: the gradients were all-reduced.
    assert outputs[0]["losses"] == outputs[1]["losses"]
    (initial0, final0, reference0), (initial1, final1, reference1) = (
        np.load(tmp_path / f"worker{index}.npy") for index in range(2)
    )
    np.testing.assert_array_equal(initial0, initial1)
    np.testing.assert_allclose(final0, final1, rtol=0, atol=1e-6)
    assert np.abs(final0 - initial0).max() > 1e-3  # training moved the weights
    # The mean of the all-reduced gradients is that of the whole global batch.
    np.testing.assert_allclose(final0, reference0, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(final1, reference1, rtol=1e-5, atol=1e-5)


@ONLY_TENSORFLOW
def test_cli_refuses_to_fit_under_several_workers_before_joining_them(monkeypatch):
    from keras_seq.zoo import cli

    workers = ["localhost:1", "localhost:2"]
    monkeypatch.setenv(
        "TF_CONFIG", json.dumps({"cluster": {"worker": workers}, "task": {"type": "worker", "index": 0}})
    )
    with pytest.raises(SystemExit, match="several workers"):
        cli.main(["train", "jsb_chorales_lstm", "--quick", "--strategy", "auto"])


def test_describe_names_the_device_replicas_and_a_scope_that_builds_models():
    strategy = distribute.training_strategy("default")
    runtime = distribute.describe(strategy)
    assert runtime.accelerator == "CPU" and runtime.replicas == 1
    assert runtime.strategy is strategy
    with runtime.scope():
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    assert model.count_params() == 8
    assert f"on {BACKEND}: CPU" in repr(runtime) and "1 replica(s)" in repr(runtime)


@ONLY_TENSORFLOW
def test_train_under_mirrored_strategy_writes_a_model_a_record_and_a_row(shared_data_dir, tmp_path):
    command = [sys.executable, "-m", "keras_seq.zoo.cli", "train", "kinderlieder_lstm", "--quick"]
    command += ["--strategy", "mirrored", "--output", str(tmp_path), "--data-dir", shared_data_dir]
    done = subprocess.run(
        command, env=_environment("tensorflow"), cwd=REPOSITORY, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert "# strategy: MirroredStrategy" in done.stderr
    assert "| kinderlieder_lstm (quick) | kinderlieder |" in done.stdout
    run = tmp_path / "kinderlieder_lstm" / "seed-0-quick"
    record = json.loads((run / "record.json").read_text())
    assert record["updates"]["training"] >= 1 and (run / "model.keras").is_file()


def test_a_failure_after_training_keeps_the_trained_model(shared_data_dir, tmp_path, monkeypatch):
    from keras_seq.zoo import recipes
    from keras_seq.zoo import train

    def broken(*args, **kwargs):
        raise RuntimeError("failed after training")

    monkeypatch.setattr(train, "chance_scores", broken)
    with pytest.raises(RuntimeError, match="failed after training"):
        train.run(recipes.get("kinderlieder_lstm"), data_dir=shared_data_dir, quick=True, output=str(tmp_path))
    runs = list(tmp_path.glob("kinderlieder_lstm/seed-0*"))
    assert len(runs) == 1
    assert (runs[0] / "model.keras").is_file() and not (runs[0] / "record.json").exists()
    keras.saving.load_model(str(runs[0] / "model.keras"))


DATA_PARALLEL_TRAIN_SCRIPT = """
    import json
    import sys

    from keras_seq import distribute
    from keras_seq.zoo import recipes
    from keras_seq.zoo import report
    from keras_seq.zoo import train

    quick = train.quick_sequences
    train.quick_sequences = lambda s: type(s)(quick(s).inputs[:11], quick(s).targets[:11])
    distribution = distribute.training_strategy("auto")  # DataParallel over the two host devices
    record = train.run(recipes.get("kinderlieder_lstm"), data_dir=sys.argv[1], quick=True, output=sys.argv[2])
    print(json.dumps({"devices": distribute.describe(distribution).replicas, "record": record,
                      "table": report.markdown_table([record])}))
"""


@ONLY_JAX
def test_data_parallel_trains_on_partial_batches_and_writes_a_model_a_record_and_a_row(shared_data_dir, tmp_path):
    """11 sequences in a batch of 12 or more over two devices: the batch is padded
    with one row of weight 0 (said in the record), not refused by the sharding."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(DATA_PARALLEL_TRAIN_SCRIPT), shared_data_dir, str(tmp_path)],
        env=_environment("jax", XLA_FLAGS="--xla_force_host_platform_device_count=2"),
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["devices"] == 2
    record = result["record"]
    assert record["execution"]["data_parallel_devices"] == 2
    assert np.isfinite(record["test"]["bits_per_event"])
    assert "| kinderlieder_lstm (quick) |" in result["table"]
    assert os.path.isfile(os.path.join(record["run_directory"], "model.keras"))


def test_padded_rows_have_weight_zero_and_leave_the_real_rows_alone():
    import tensorflow as tf

    from keras_seq.zoo import train

    x = np.arange(11 * 3 * 2, dtype="float32").reshape(11, 3, 2)
    y, w = np.ones((11, 3), "int32"), np.ones((11, 3), "float32")
    padded = next(iter(train.pad_batches_to_multiple(tf.data.Dataset.from_tensors((x, y, w)), 4)))
    px, py, pw = (np.asarray(t) for t in padded)
    assert px.shape == (12, 3, 2) and py.shape == (12, 3) and pw.shape == (12, 3)
    np.testing.assert_array_equal(px[:11], x)
    assert not pw[11].any() and not px[11].any()
    full = next(iter(train.pad_batches_to_multiple(tf.data.Dataset.from_tensors((x[:8], y[:8], w[:8])), 4)))
    assert np.asarray(full[0]).shape == (8, 3, 2)


DESCRIBE_DATA_PARALLEL_SCRIPT = """
    import json
    import keras
    from keras_seq import distribute

    runtime = distribute.describe(distribute.training_strategy("auto"))
    with runtime.scope():
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    print(json.dumps({"replicas": runtime.replicas, "accelerator": runtime.accelerator, "repr": repr(runtime)}))
"""


@ONLY_JAX
def test_describe_names_the_devices_of_a_jax_data_parallel():
    result = _run_script(DESCRIBE_DATA_PARALLEL_SCRIPT, "jax", XLA_FLAGS="--xla_force_host_platform_device_count=2")
    assert result["replicas"] == 2 and result["accelerator"] == "CPU"
    assert "DataParallel, 2 replica(s)" in result["repr"]
