"""Runs a recipe: data -> pipeline -> builder -> fit -> metrics -> report."""

import dataclasses
import os
import time

import keras
import numpy as np

import keras_seq.data as data
from keras_seq import saving
from keras_seq.layers import validation
from keras_seq.zoo import callbacks as zoo_callbacks
from keras_seq.zoo import chance
from keras_seq.zoo import optimizers
from keras_seq.zoo import records
from keras_seq.zoo import registry
from keras_seq.zoo import report
from keras_seq.zoo import runs
from keras_seq.zoo import tasks
from keras_seq.zoo.recipes import QUICK_SEQUENCES  # noqa: F401  (train.QUICK_SEQUENCES for users)

QUICK_STREAM_TOKENS = 5000  # a language-model stream (PTB) is one sequence: cut it
QUICK_PRETRAINING_STEPS = 200


def quick_sequences(sequences):
    """The --quick subset: the first QUICK_SEQUENCES sequences, or the first
    QUICK_STREAM_TOKENS tokens of a one-sequence stream."""
    if len(sequences) == 1:
        return data.Sequences([sequences.inputs[0][:QUICK_STREAM_TOKENS]], [sequences.targets[0][:QUICK_STREAM_TOKENS]])
    return data.Sequences(sequences.inputs[:QUICK_SEQUENCES], sequences.targets[:QUICK_SEQUENCES])


def recipe_dataset(
    recipe, split, data_dir=None, quick=False, shuffle=False, seed=0, fixed_shapes=False, batch_size=None, epoch=None
):
    """The recipe's batches of one split, a `tf.data.Dataset` of `(x, y, w)`
    (`((x, y), y, w)` for teacher forcing); `quick`: `quick_sequences` of
    it; `batch_size`: the global batch (default: the recipe's; under a
    distribution strategy, the per-replica batch times the replicas);
    `epoch`: the variable of a `zoo.callbacks.ShuffleEpoch` in the same
    `fit`, which makes each epoch's order a function of (seed, epoch).
    `fixed_shapes` (for XLA on TPUs):
    every batch padded to the split's longest sequence, and the training
    split (`shuffle=True`) drops its last partial batch, a different one
    each epoch; evaluation splits keep every sequence."""
    from keras_seq.data import pipeline

    sequences = data.load_arrays(recipe.dataset, split, data_dir=data_dir, **recipe.data_options)
    if quick:
        sequences = quick_sequences(sequences)
    batch_size = batch_size or recipe.batch_size
    fixed = {}
    if fixed_shapes:
        if shuffle and 1 < len(sequences) < batch_size:
            raise ValueError(
                f"{recipe.name}: fixed shapes drop the last partial training batch, and the {split} "
                f"split has fewer sequences than one batch ({len(sequences)} < {batch_size}); "
                "train without fixed shapes (e.g. --quick runs)."
            )
        fixed = dict(drop_remainder=shuffle, max_length=int(sequences.lengths().max()))
    dataset = pipeline.make_dataset(
        sequences,
        recipe.dataset_info,
        batch_size=batch_size,
        shuffle=shuffle,
        seed=seed,
        epoch=epoch,
        **fixed,
    )
    replicas = data_parallel_replicas()
    if replicas > 1:
        dataset = pad_batches_to_multiple(dataset, replicas)
    if recipe.teacher_forcing:  # the trainer reads the true labels too (eq. 12)
        dataset = dataset.map(lambda x, y, w: ((x, y), y, w))
    return dataset


def data_parallel_replicas():
    """The devices a JAX `keras.distribution.DataParallel` set globally
    splits each batch over (1 without one, and on the other backends)."""
    if keras.backend.backend() != "jax" or keras.distribution.distribution() is None:
        return 1
    return int(np.size(keras.distribution.distribution().device_mesh.devices))


def pad_batches_to_multiple(dataset, multiple):
    """`dataset`'s `(x, y, w)` batches with rows of zeros (weight 0) added
    to a multiple of `multiple` rows: a data-parallel batch is split evenly
    over the devices, and a row of weight 0 counts in no metric."""
    import tensorflow as tf

    def pad(x, y, w):
        extra = (multiple - tf.shape(w)[0] % multiple) % multiple

        def rows(t):
            return tf.pad(t, tf.concat([[[0, extra]], tf.zeros([tf.rank(t) - 1, 2], tf.int32)], 0))

        return tf.nest.map_structure(rows, (x, y, w))

    return dataset.map(pad)


def configure_execution(model, jit_compile="auto", steps_per_execution=1):
    """Sets how a compiled model runs its steps: `jit_compile` (True: XLA on
    TensorFlow and JAX, `torch.compile` on torch; "auto": what the model was
    compiled with, which Keras resolves to XLA on accelerators) and
    `steps_per_execution` (batches per compiled call: fewer host round
    trips on TPUs). Returns the model."""
    validation.positive_int("steps_per_execution", steps_per_execution)
    if jit_compile not in ("auto", True, False):
        raise ValueError(f"`jit_compile` must be True, False or 'auto'; got {jit_compile!r}.")
    if steps_per_execution > 1 and keras.backend.backend() == "torch":
        raise ValueError(
            "`steps_per_execution` > 1 needs the TensorFlow or JAX backend; Keras runs "
            f"one step per call on torch (got {steps_per_execution})."
        )
    if jit_compile != "auto":
        model.jit_compile = jit_compile
    model.steps_per_execution = steps_per_execution
    model.train_function = model.test_function = model.predict_function = None  # rebuilt as configured
    return model


def build(recipe, quick=False, data_dir=None, jit_compile="auto", steps_per_execution=1):
    """The recipe's `Built` (compiled trainer and predictor, see
    zoo.registry; it unpacks as `(trainer, predictor)`) and the builder's
    arguments; see `configure_execution` for the last two arguments."""
    family = registry.family(recipe.builder)
    if not family.saves_keras_model:
        raise ValueError(
            f"Recipe {recipe.name!r}: the {recipe.builder} family is not a Keras model (zoo.train.run runs it)."
        )
    arguments = dict(recipe.model)
    if quick:
        arguments.update(recipe.quick_model)
    if family.data_arguments:
        arguments.update(family.data_arguments(recipe.dataset_info, recipe))
    training = {"train": _pretraining_sequences(recipe, quick, data_dir)} if family.needs_training_data else {}
    built = family.build(**training, **arguments)
    for model in {id(m): m for m in built}.values():
        configure_execution(model, jit_compile, steps_per_execution)
    return built, arguments


def _pretraining_sequences(recipe, quick, data_dir):
    """The training `Sequences` a pretraining builder reads (--quick: 12
    sequences cut short, since Piano-midi pieces run to thousands of frames)."""
    train = data.load_arrays(recipe.dataset, recipe.train_split, data_dir=data_dir, **recipe.data_options)
    if quick:
        train = quick_sequences(train)
        train = data.Sequences(
            [x[:QUICK_PRETRAINING_STEPS] for x in train.inputs], [y[:QUICK_PRETRAINING_STEPS] for y in train.targets]
        )
    return train


def evaluate(recipe, model_path, data_dir=None, quick=False, split="test", teacher_forced=False):
    """Test metrics of a saved predictor (`keras-seq train` writes
    `<output>/<recipe>/seed-<seed>/model.keras`) on one split of the
    recipe's dataset. `teacher_forced`: score the SCRBM's trainer, fed the
    true previous labels (eq. 12), with the predictor's weights, instead of
    Algorithm 1, which feeds its own predictions: the difference is what
    Algorithm 1's errors cost downstream."""
    check_saves_keras_model(recipe)
    model = saving.load_model(model_path)
    dataset = recipe_dataset(recipe, split, data_dir, quick)
    if teacher_forced:
        model = teacher_forced_model(recipe, model, _run_model_arguments(model_path), quick, data_dir)
    else:
        dataset = predictor_inputs(recipe, dataset)
    return {k: float(v) for k, v in model.evaluate(dataset, return_dict=True, verbose=0).items()}


def teacher_forced_model(recipe, predictor, arguments=None, quick=False, data_dir=None):
    """The teacher-forcing trainer of an SCRBM recipe, compiled, holding the
    weights of `predictor` (a saved Algorithm 1 model); `arguments`: the
    builder arguments the predictor was built with (default: the recipe's)."""
    check_teacher_forcing(recipe)
    if arguments is None:
        built, _ = build(recipe, quick, data_dir)
    else:
        built = registry.family(recipe.builder).build(**arguments)
    expected = [tuple(w.shape) for w in built.predictor.weights]
    found = [tuple(w.shape) for w in predictor.weights]
    if expected != found:
        where = "the recipe's defaults" if arguments is None else "the run record's arguments"
        raise ValueError(
            f"the saved {recipe.name} model does not have the weights of {where} "
            f"(weight shapes {found} against {expected}); keep the run's {runs.RECORD} "
            "beside its model.keras, which names the arguments it was built with."
        )
    built.predictor.set_weights(predictor.get_weights())
    return built.trainer


def check_teacher_forcing(recipe):
    """Raises a ValueError naming the recipe when it has no teacher-forcing
    trainer (only the SCRBM recipes have one)."""
    if not recipe.teacher_forcing:
        raise ValueError(
            f"{recipe.name} has no teacher-forcing trainer: scoring with the true previous "
            "labels applies to the SCRBM recipes."
        )


def _run_model_arguments(model_path):
    """The builder arguments in the run record beside `model_path`, if any."""
    path = os.path.join(os.path.dirname(os.path.abspath(model_path)), runs.RECORD)
    if not os.path.exists(path):
        return None
    import json

    with open(path) as f:
        model = json.load(f)["model"]
    return {k: tuple(v) if isinstance(v, list) else v for k, v in model.items() if k != "builder"}


def check_saves_keras_model(recipe):
    """Raises a ValueError naming the recipe when its family leaves no Keras
    model to evaluate (counts: `keras-seq train` refits them)."""
    if not registry.family(recipe.builder).saves_keras_model:
        raise ValueError(
            f"{recipe.name} ({recipe.builder}) has no saved Keras model to evaluate; "
            f"`keras-seq train {recipe.name}` refits it and writes its test metrics."
        )


def predictor_inputs(recipe, dataset):
    """The batches as the predictor reads them: without the true labels
    that a teacher-forcing trainer is fed."""
    return dataset.map(lambda x, y, w: (x[0], y, w)) if recipe.teacher_forcing else dataset


def selection_callbacks(recipe, built, valid, every=None, patience=None, log_as=None):
    """The callbacks that select the model on validation as the recipe says:
    the predictor's scores replace a teacher-forcing trainer's (Algorithm 1
    is what is tested), then `PeriodicEarlyStopping` on `recipe.monitor`
    (a predictor metric, read from the trainer's logs under
    `built.trainer_metric_prefix`), after the recipe's learning-rate
    annealing at plateaus of that metric if it has one,
    every `every` epochs (default: the recipe's `check_every`) with
    `patience` checks (default: the recipe's), the recipe's `min_delta` and
    its `progress` metrics; `log_as` also writes the monitored score into the logs of every
    epoch under that name (a KerasTuner objective).

    Args:
        recipe: The `Recipe`.
        built: The builder's `Built`.
        valid: The recipe's validation pipeline (`recipe_dataset`).

    Returns:
        `(callbacks, stopper)`: the list to pass to `fit`, in order, and its
        early-stopping callback.
    """
    callbacks = []
    prefix = built.trainer_metric_prefix
    if recipe.teacher_forcing:
        callbacks.append(zoo_callbacks.PredictorValidation(built.predictor, predictor_inputs(recipe, valid)))
        prefix = ""

    def trainer_key(key):  # the predictor's `val_m` as the trainer logs it
        return "val_" + prefix + key[len("val_") :] if key.startswith("val_") else key

    if recipe.anneal is not None:
        callbacks.append(
            zoo_callbacks.PlateauAnnealing(
                trainer_key(recipe.monitor),
                recipe.monitor_mode,
                patience=recipe.anneal.patience,
                factor=recipe.anneal.factor,
                min_delta=recipe.anneal.min_delta,
                min_learning_rate=recipe.anneal.min_learning_rate,
                every=every or recipe.check_every,
            )
        )
    stopper = zoo_callbacks.PeriodicEarlyStopping(
        trainer_key(recipe.monitor),
        recipe.monitor_mode,
        every=every or recipe.check_every,
        patience=recipe.patience if patience is None else patience,
        progress=[(trainer_key(key), mode) for key, mode in recipe.progress],
        log_as=log_as,
        min_delta=recipe.min_delta,
    )
    return callbacks + [stopper], stopper


def fit(built, train, valid, epochs, every=1, callbacks=(), verbose=2, initial_epoch=0):
    """Fits `built.trainer` on the pipelines (through the builder's
    `dataset_map`), validating every `every` epochs, with the builder's own
    callbacks first; returns the history dict. The one training loop of
    `run` and of the KerasTuner trials (keras_seq.tuning). The pipelines
    shuffle themselves (`recipe_dataset`), so `fit` is told not to: Keras
    would ignore the flag for a tf.data.Dataset, with a warning."""
    if built.dataset_map:  # e.g. deep supervision: targets per output
        train = train.map(built.dataset_map)
        valid = None if valid is None else valid.map(built.dataset_map)
    return built.trainer.fit(
        train,
        validation_data=valid,
        validation_freq=every,
        epochs=epochs,
        shuffle=False,
        callbacks=[*built.callbacks, *callbacks],
        verbose=verbose,
        initial_epoch=initial_epoch,
    ).history


def run(
    recipe,
    data_dir=None,
    epochs=None,
    quick=False,
    output=None,
    seed=0,
    verbose=2,
    max_seconds=None,
    jit_compile="auto",
    steps_per_execution=1,
    fixed_shapes=False,
    restart=False,
    run_name=None,
):
    """Trains and evaluates one recipe; returns its result record.

    Training ends at early stopping, after `epochs` (default: the recipe's),
    or at the first training step past `max_seconds` of training time; the
    record's `stopping` says which. `jit_compile`, `steps_per_execution`
    (see `configure_execution`) and `fixed_shapes` (see `recipe_dataset`)
    set up XLA runs; on a TPU use `jit_compile=True, fixed_shapes=True` and
    `steps_per_execution` of tens of batches.

    With `output`, the run writes into its own directory (see zoo.runs:
    `<output>/<recipe>/seed-<seed>/`, never over a finished run) and keeps a
    checkpoint of every epoch: the same call after a crash resumes from the
    last finished epoch, `restart=True` starts over. `run_name` (default:
    the recipe's name) names that directory: runs of one recipe with other
    model arguments (a grid point) need their own."""
    family = registry.family(recipe.builder)
    if family.run is not None:  # e.g. counts, not a Keras model
        return family.run(recipe, data_dir=data_dir, quick=quick, output=output, seed=seed, run_name=run_name)
    epochs = (1 if quick else recipe.epochs) if epochs is None else epochs
    validation.positive_int("epochs", epochs)
    claimed = runs.claim(output, run_name or recipe.name, seed, quick) if output else None
    try:
        record = _run(
            recipe,
            data_dir,
            epochs,
            quick,
            claimed,
            seed,
            verbose,
            max_seconds,
            jit_compile,
            steps_per_execution,
            fixed_shapes,
            restart,
        )
    finally:
        if claimed is not None:
            claimed.release(finished=os.path.exists(os.path.join(claimed.path, runs.RECORD)))
    return record


def _run(
    recipe,
    data_dir,
    epochs,
    quick,
    claimed,
    seed,
    verbose,
    max_seconds,
    jit_compile,
    steps_per_execution,
    fixed_shapes,
    restart,
):
    """`run` of a Keras recipe, into the run directory `claimed` (or none)."""
    keras.utils.set_random_seed(seed)
    start = time.perf_counter()
    order = zoo_callbacks.ShuffleEpoch()
    train = recipe_dataset(
        recipe,
        recipe.train_split,
        data_dir,
        quick,
        shuffle=True,
        seed=seed,
        fixed_shapes=fixed_shapes,
        epoch=order.epoch,
    )
    valid = None
    if recipe.valid_split:
        valid = recipe_dataset(recipe, recipe.valid_split, data_dir, quick, fixed_shapes=fixed_shapes)
    test = recipe_dataset(recipe, "test", data_dir, quick, fixed_shapes=fixed_shapes)
    built, arguments = build(recipe, quick, data_dir, jit_compile, steps_per_execution)
    trainer, predictor = built
    stopper = None
    callbacks = [order, zoo_callbacks.SeedEpoch(seed)]
    if valid is not None:
        selecting, stopper = selection_callbacks(recipe, built, valid)
        callbacks += selecting
    annealing = next((c for c in callbacks if isinstance(c, zoo_callbacks.PlateauAnnealing)), None)
    budget = zoo_callbacks.TimeBudget(max_seconds) if max_seconds else None
    if budget is not None:
        callbacks.append(budget)
    pretraining = built.pretraining_report
    directory = checkpoint = None
    initial_epoch = 0
    if claimed is not None:
        directory = claimed.path
        checkpoint = runs.RunCheckpoint(
            os.path.join(directory, runs.CHECKPOINT),
            [stopper, annealing, budget],
            configuration=checkpoint_configuration(recipe, arguments, seed, quick),
        )
        if restart:
            checkpoint.discard()
        initial_epoch = checkpoint.restore(trainer)
        if initial_epoch > epochs and not checkpoint.extra.get("finished"):
            raise ValueError(
                f"The training checkpoint in {directory} holds {initial_epoch} epochs, more than "
                f"--epochs {epochs}: rerun with --epochs {initial_epoch} or more to resume it, or with "
                "--restart to start over."
            )
        if initial_epoch:
            print(f"# {recipe.name}: resuming {directory} after epoch {initial_epoch}", flush=True)
            pretraining = checkpoint.extra.get("pretraining", pretraining)
        checkpoint.extra["pretraining"] = pretraining
        callbacks.append(checkpoint)
    if not (checkpoint and checkpoint.extra.get("finished")):
        history = fit(built, train, valid, epochs, recipe.check_every, callbacks, verbose, initial_epoch)
    history = checkpoint.history if checkpoint else history
    if directory:  # first, so that a failure in what follows never loses the trained model
        runs.replace_atomically(os.path.join(directory, "model.keras"), predictor.save)
    scores = predictor.evaluate(
        predictor_inputs(recipe, test), return_dict=True, verbose=0, callbacks=list(built.callbacks)
    )
    task = recipe.dataset_info.task
    chance_level = chance_scores(recipe, data_dir, quick)
    epochs_run = len(history["loss"])
    updates = optimizers.optimizer_steps(trainer.optimizer)
    pretraining_updates = int((pretraining or {}).get("updates", 0))
    validated = [key for key in history if key.startswith("val_")]
    record = records.run_record(
        recipe,
        task,
        {"builder": recipe.builder, **arguments},
        quick,
        seed,
        scores,
        trainer.count_params(),
        time.perf_counter() - start + (checkpoint.wall_before if checkpoint else 0.0),
        f"backend {keras.backend.backend()}",
        epochs_run=epochs_run,
        stopping=zoo_callbacks.stopping_record(epochs_run, epochs, stopper, budget, annealing),
        resumed_after_epoch=initial_epoch or None,
        updates={"training": updates, "pretraining": pretraining_updates, "total": updates + pretraining_updates},
        max_seconds=max_seconds,
        stopped_by_time_budget=bool(budget and budget.stopped),
        execution={
            "jit_compile": bool(trainer.jit_compile),
            "steps_per_execution": steps_per_execution,
            "fixed_shapes": fixed_shapes,
            # partial batches padded with rows of weight 0 to a multiple of the devices
            "data_parallel_devices": data_parallel_replicas(),
        },
        pretraining=pretraining,
        history={k: [float(x) for x in v] for k, v in history.items()},
        # Keras validates at epochs check_every, 2 * check_every, ... (1-based).
        validation_epochs=[recipe.check_every * (i + 1) for i in range(len(history[validated[0]]) if validated else 0)],
        run_directory=directory,
        chance=chance_level,
    )
    if directory:
        _write_run(directory, record, predictor, test, task)
        checkpoint.discard()
    return record


def checkpoint_configuration(recipe, arguments, seed, quick):
    """What a resumed run must share with the run that saved its checkpoint:
    the model and optimizer arguments, the data, the batches, the stopping
    rule. (The epoch limit and time budget may change between the two.)"""
    return {
        "model": {"builder": recipe.builder, **arguments},
        "dataset": recipe.dataset,
        "data_options": recipe.data_options,
        "splits": [recipe.train_split, recipe.valid_split],
        "batch_size": recipe.batch_size,
        "seed": seed,
        "quick": quick,
        "stopping": {
            "monitor": recipe.monitor,
            "mode": recipe.monitor_mode,
            "patience": recipe.patience,
            "check_every": recipe.check_every,
            "min_delta": recipe.min_delta,
            **({} if recipe.anneal is None else {"anneal": dataclasses.asdict(recipe.anneal)}),
        },
    }


def chance_scores(recipe, data_dir=None, quick=False):
    """The test scores of the recipe's chance predictor (zoo.chance: the
    training targets' frequencies, whatever the input)."""
    info = recipe.dataset_info
    # From unshuffled batches: another pass over the shuffled ones would move
    # a run's shuffle order along.
    return chance.chance_scores(
        info.task,
        tasks.task(info.task).outputs(info),
        recipe_dataset(recipe, recipe.train_split, data_dir, quick),
        predictor_inputs(recipe, recipe_dataset(recipe, "test", data_dir, quick)),
    )


def _write_run(directory, record, predictor, test, task):
    """The run's files beside its model (saved when training ended), each
    renamed into place; the record last, since its presence marks the run
    finished (zoo.runs)."""
    runs.replace_atomically(os.path.join(directory, "curve.png"), lambda path: report.learning_curve(record, path))
    if task == "next_frame":
        x, y, w = next(iter(test))
        # A direct call, not `predict`: one more traced predict function per run
        # set off TensorFlow's "excessive retracing" warning after each run.
        predicted = keras.ops.convert_to_numpy(predictor(np.asarray(x), training=False))[0]
        length = int(np.asarray(w)[0].sum())  # the weights are 1 on real frames
        runs.replace_atomically(
            os.path.join(directory, "roll.png"),
            lambda path: report.piano_roll(np.asarray(y)[0], predicted, path, length),
        )
    runs.write_json(record, os.path.join(directory, runs.RECORD))
