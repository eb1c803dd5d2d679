import pytest

from keras_seq.zoo import recipes


def test_quickstart_trains_and_prints_the_table(capsys):
    from keras_seq.zoo import cli

    cli.main(["quickstart", "--epochs", "1", "--units", "8"])
    out = capsys.readouterr().out
    assert "| SCRBM (teacher forcing -> Algorithm 1) |" in out
    assert "| LSTM + Dense |" in out


def test_cli_lists_the_datasets(capsys):
    from keras_seq.zoo import cli

    cli.main(["datasets"])
    out = capsys.readouterr().out
    assert "| jsb_chorales | next_frame |" in out and "| wsj_pos | labelling |" in out


@pytest.mark.filterwarnings("error::UserWarning")  # a user's run prints none (SCRBM's saved optimizer, fit's shuffle)
def test_train_a_recipe_quickly_writes_the_report(shared_data_dir, tmp_path, capsys):
    import json
    import os

    from keras_seq.zoo import cli

    cli.main(
        [
            "train",
            "jsb_chorales_lstm",
            "ocr_ms_scrbm",
            "jsb_chorales_lmn_b_pretrained",
            "--quick",
            "--data-dir",
            shared_data_dir,
            "--output",
            str(tmp_path),
            "--markdown",
            str(tmp_path / "table.md"),
        ]
    )
    out = capsys.readouterr().out
    assert "| jsb_chorales_lstm (quick) | jsb_chorales | frame_accuracy |" in out
    assert "| ocr_ms_scrbm (quick) |" in out and "14.81 %" in out
    record = json.load(open(tmp_path / "ocr_ms_scrbm" / "seed-0-quick" / "record.json"))
    assert 0.0 <= record["test"]["sequence_error"] <= 1.0 and record["model"]["kind"] == "scrbm"
    assert 0.5 < record["chance"]["sequence_error"] <= 1.0 and record["chance"]["bits_per_event"] > 0  # 26 letters
    for name in ("model.keras", "curve.png", "roll.png", "record.json"):
        assert os.path.getsize(tmp_path / "jsb_chorales_lstm" / "seed-0-quick" / name) > 0
    assert os.path.getsize(tmp_path / "table.md") > 0
    assert not os.path.exists(tmp_path / "jsb_chorales_lstm" / "seed-0-quick" / "checkpoint")  # discarded when done

    cli.main(["evaluate", "ocr_ms_scrbm", "--quick", "--data-dir", shared_data_dir, "--output", str(tmp_path)])
    evaluated = json.loads(capsys.readouterr().out)
    assert abs(evaluated["sequence_error"] - record["test"]["sequence_error"]) < 1e-6

    # The trainer fed the true previous labels, holding the saved predictor's weights.
    cli.main(
        [
            "evaluate",
            "ocr_ms_scrbm",
            "--quick",
            "--teacher-forced",
            "--data-dir",
            shared_data_dir,
            "--output",
            str(tmp_path),
        ]
    )
    forced = json.loads(capsys.readouterr().out)
    assert forced["scoring"] == "teacher-forced" and 0.0 <= forced["sequence_error"] <= 1.0
    import numpy as np

    from keras_seq import saving
    from keras_seq.zoo import train

    predictor = saving.load_model(tmp_path / "ocr_ms_scrbm" / "seed-0-quick" / "model.keras")
    trainer = train.teacher_forced_model(recipes.get("ocr_ms_scrbm"), predictor, quick=True, data_dir=shared_data_dir)
    assert len(trainer.inputs) == 2
    for saved, loaded in zip(predictor.get_weights(), trainer.get_weights()):
        np.testing.assert_array_equal(saved, loaded)
    # A --quick model (8 units) scored without its run record: the full recipe's
    # defaults do not fit its weights, and the error says what to keep.
    with pytest.raises(ValueError, match="does not have the weights of the recipe's defaults.*record.json"):
        train.teacher_forced_model(recipes.get("ocr_ms_scrbm"), predictor, quick=False, data_dir=shared_data_dir)


def test_training_passes_fit_no_flag_it_ignores(shared_data_dir, tmp_path):
    """The pipelines shuffle themselves; `fit(shuffle=True)` (Keras' default)
    on a tf.data.Dataset would only print a warning to every user."""
    import warnings

    from keras_seq.zoo import train

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        train.run(
            recipes.get("jsb_chorales_lstm"), data_dir=shared_data_dir, quick=True, output=str(tmp_path), verbose=0
        )
    assert not [w for w in caught if "will be ignored" in str(w.message)]


XLA_BACKENDS = ("tensorflow", "jax")  # torch has no XLA (jit_compile means torch.compile there)
TINY_STEPS = 8


def _structure(recipe):
    """What decides the ops of a recipe's program (not their sizes): the
    builder, the layer kind, token or vector input, the task where the
    builder's head depends on it, and the options that add ops
    (statefulness, auxiliary outputs, mixture of softmaxes). Steps of
    several id columns add one op (their summed embedding) to any layer
    kind, so one recipe per builder covers them."""
    info = recipe.dataset_info
    if info.column_vocabulary_sizes is not None:
        return (recipe.builder, "id columns")
    task = info.task if recipe.builder in ("trellisnet_model", "conv_text_model") else None
    options = tuple(sorted(k for k in ("stateful", "aux_frequency", "num_experts") if recipe.model.get(k)))
    return (recipe.builder, recipe.model.get("kind"), info.vocabulary_size is not None, task, options)


STRUCTURES = {}
for _recipe in sorted(recipes.RECIPES.values(), key=lambda r: r.name):
    if _recipe.builder != "ngram_model":
        STRUCTURES.setdefault(_structure(_recipe), _recipe.name)


def _first_batch(recipe, data_dir):
    """The first batch of the recipe's --quick training pipeline, cut to
    TINY_STEPS steps (per-step tasks) as numpy arrays."""
    import numpy as np

    import keras_seq.data as data
    from keras_seq.zoo import train

    x, y, *weights = (
        np.asarray(t) if not isinstance(t, tuple) else tuple(np.asarray(u) for u in t)
        for t in next(iter(train.recipe_dataset(recipe, "train", data_dir, quick=True)))
    )
    per_sequence = data.info(recipe.dataset).task in ("classification", "regression")
    if recipe.teacher_forcing:
        x = x[0]
    if not per_sequence:
        x, y = x[:, :TINY_STEPS], y[:, :TINY_STEPS]
        weights = [w[:, :TINY_STEPS] for w in weights]
    return x, y, (weights[0] if weights else None)


MNIST = ("seq_mnist", "permuted_mnist")  # mnist.npz is downloaded, not in the shared data


@pytest.mark.skipif(
    __import__("keras").backend.backend() == "jax",
    reason="eager JAX dispatches op by op (10x slower than TensorFlow or torch here); "
    "on JAX every recipe program is compiled and stepped by the XLA test below",
)
@pytest.mark.parametrize("name", sorted(recipes.RECIPES))
def test_every_recipe_trains_in_quick_mode_on_its_own_data(name, shared_data_dir, tmp_path, monkeypatch):
    """Each recipe in --quick sizes takes a training step on the first batch
    of its own --quick data (cut short, run eagerly), and its predictor
    gives outputs of the right shape."""
    import numpy as np

    import keras_seq.data as data
    from keras_seq.zoo import train
    from tests.support import tiny_mnist

    recipe = recipes.get(name)
    data_dir = tiny_mnist(tmp_path, monkeypatch) if recipe.dataset in MNIST else shared_data_dir
    from keras_seq.zoo import registry

    if not registry.family(recipe.builder).saves_keras_model:  # counts: its whole --quick run
        record = train.run(recipe, data_dir=data_dir, quick=True)
        assert 0.0 < record["test"]["bits_per_event"] < 16.0
        return
    info = data.info(recipe.dataset)
    built, _ = train.build(recipe, quick=True, data_dir=data_dir)
    trainer, predictor = built
    x, y, weights = _first_batch(recipe, data_dir)
    batch = trainer.inputs[0].shape[0]
    if batch is not None:  # stateful: the static batch of the recipe
        assert x.shape[0] == batch, f"{name}: pipeline batch {x.shape[0]} != model batch {batch}"
    if built.dataset_map:  # deep supervision: {"output": y, "aux": y}
        _, y = built.dataset_map(x, y)
    trainer.run_eagerly = predictor.run_eagerly = True
    before = [np.array(w) for w in trainer.trainable_weights]
    loss = trainer.train_on_batch([x, y] if recipe.teacher_forcing else x, y, sample_weight=weights)
    assert np.all(np.isfinite(loss)), name
    assert any(not np.allclose(a, b) for a, b in zip(before, trainer.trainable_weights)), f"{name}: no update"
    predicted = np.asarray(predictor.predict_on_batch(x))
    if info.task in ("classification", "regression"):  # one output per sequence
        assert predicted.shape == (x.shape[0], info.num_classes or 1), name
    else:
        assert predicted.shape[:2] == x.shape[:2], name
    assert np.all(np.isfinite(predicted)), name


def _two_tiny_batches(info, trainer, rng, steps=4):
    """Random inputs and targets of a task's shapes: two batches."""
    import numpy as np

    batch = trainer.inputs[0].shape[0] or 2  # stateful models have a static batch
    n = 2 * batch
    if info.column_vocabulary_sizes:
        x = np.stack([rng.integers(1, size, size=(n, steps)) for size in info.column_vocabulary_sizes], axis=-1).astype(
            "int32"
        )
    elif info.vocabulary_size:
        x = rng.integers(1, info.vocabulary_size, size=(n, steps)).astype("int32")
    else:
        x = rng.uniform(size=(n, steps) + tuple(info.input_shape)).astype("float32")
    weights = None
    if info.task == "classification":
        y = rng.integers(0, info.num_classes, size=(n,)).astype("int32")
    elif info.task == "regression":
        y = rng.uniform(size=(n, 1)).astype("float32")
    elif info.task == "next_frame":
        y = (rng.uniform(size=(n, steps, 88)) < 0.1).astype("float32")
        weights = np.ones((n, steps), "float32")
    else:
        y = rng.integers(0, info.num_classes, size=(n, steps)).astype("int32")
        weights = np.ones((n, steps), "float32")
    return x, y, weights, batch


@pytest.mark.skipif(
    __import__("keras").backend.backend() not in XLA_BACKENDS,
    reason="XLA runs on TensorFlow and JAX; torch steps run eagerly above",
)
@pytest.mark.parametrize("name", sorted(STRUCTURES.values()))
def test_each_recipe_program_compiles_with_xla_and_steps_per_execution(name, shared_data_dir, rng):
    """One recipe of each program structure (`_structure`: recipes that share
    it differ in sizes and data only, which the test above covers):
    `jit_compile=True` and two training steps in one compiled call
    (`steps_per_execution=2`), then an XLA-compiled prediction."""
    import keras
    import numpy as np

    from keras_seq.zoo import train

    recipe = recipes.get(name)
    info = recipe.dataset_info
    built, _ = train.build(recipe, quick=True, data_dir=shared_data_dir, jit_compile=True, steps_per_execution=2)
    trainer, predictor = built
    assert trainer.jit_compile and predictor.jit_compile and trainer.steps_per_execution == 2
    x, y, weights, batch = _two_tiny_batches(info, trainer, rng)
    if built.dataset_map:
        _, y = built.dataset_map(x, y)
        weights = None
    before = [np.array(w) for w in trainer.trainable_weights]
    history = trainer.fit(
        [x, y] if recipe.teacher_forcing else x,
        y,
        sample_weight=weights,
        batch_size=batch,
        epochs=1,
        shuffle=False,
        verbose=0,
    )
    assert int(keras.ops.convert_to_numpy(trainer.optimizer.iterations)) == 2, name
    assert np.isfinite(history.history["loss"][-1]), name
    assert any(not np.allclose(a, b) for a, b in zip(before, trainer.trainable_weights)), f"{name}: no update"
    predicted = np.asarray(predictor.predict(x, batch_size=batch, verbose=0))
    assert predicted.shape[0] == 2 * batch and np.all(np.isfinite(predicted)), name


def test_fixed_shapes_pad_every_batch_to_one_shape(shared_data_dir):
    """--fixed-shapes: one padded length per split and no partial training
    batch, so XLA compiles once; evaluation splits keep every sequence."""
    import numpy as np

    import keras_seq.data as data
    from keras_seq.zoo import train

    recipe = recipes.get("jsb_chorales_lstm")
    longest = int(data.load_arrays("jsb_chorales", "train", data_dir=shared_data_dir).lengths().max())
    training = train.recipe_dataset(recipe, "train", shared_data_dir, quick=False, shuffle=True, fixed_shapes=True)
    assert tuple(training.element_spec[0].shape) == (recipe.batch_size, longest, 88)
    with pytest.raises(ValueError, match="fewer sequences than one batch"):
        train.recipe_dataset(recipe, "train", shared_data_dir, quick=True, shuffle=True, fixed_shapes=True)
    test = train.recipe_dataset(recipe, "test", shared_data_dir, quick=True, fixed_shapes=True)
    shapes = {tuple(x.shape[1:]) for x, _, _ in test}
    assert len(shapes) == 1, shapes
    sequences = train.quick_sequences(data.load_arrays("jsb_chorales", "test", data_dir=shared_data_dir))
    assert sum(int(np.sum(w)) for _, _, w in test) == int(sequences.lengths().sum())


def test_recipes_with_model_selection_carry_the_papers_grid():
    from keras_seq.zoo import recipes

    for name in (
        "ocr_ms_scrbm",
        "conll2000_scrbm",
        "wsj_pos_2000_scrbm",  # SCRBM paper Sec. 4.2
        "bach_melodies_scrbm",
        "kinderlieder_scrbm",
    ):  # and Sec. 4.1
        assert recipes.get(name).grid == {
            "units": (100, 250, 500),
            "learning_rate": (1e-3, 3e-3),
            "dropout": (0.0, 0.5),
        }, name
    cv = recipes.get("ocr_cv_scrbm")  # the cv protocol fixes 1000 units, Adam 1e-3; it stops on a held-out fold
    assert cv.grid == {"dropout": (0.0, 0.5)} and cv.model["units"] == 1000
    assert (cv.train_split, cv.valid_split, cv.data_options["protocol"]) == ("train_minus_valid", "valid", "cv")
    assert recipes.get("jsb_chorales_lstm").grid["units"] == (50, 100, 250, 500, 750)  # LMN paper
    lmn_grid = {
        "units,memory_units": ((50, 50), (50, 100), (100, 100), (100, 250), (250, 250), (250, 500)),
        "l2": (1e-4, 1e-5, 1e-6, 1e-7, 0.0),
    }  # LMN paper: functional/memory pairs and L2
    for name in ("jsb_chorales_lmn_a", "jsb_chorales_lmn_b", "jsb_chorales_lmn_b_pretrained", "nottingham_lmn_b"):
        assert recipes.get(name).grid == lmn_grid, name
    # Every labelling baseline, convolutional too, chooses its regularisation on validation.
    for stem, kinds in (
        ("ocr_ms", ("lstm", "gru", "simple_rnn", "conv")),
        ("ocr_cv", ("lstm", "gru", "simple_rnn", "conv")),
        ("conll2000", ("lstm", "gru", "simple_rnn", "conv")),
        ("wsj_pos_2000", ("lstm", "gru", "simple_rnn", "conv")),
        ("bach_melodies", ("lstm", "simple_rnn")),
        ("kinderlieder", ("lstm", "simple_rnn")),
    ):
        for kind in kinds:
            assert recipes.get(f"{stem}_{kind}").grid == {"dropout": (0.0, 0.2, 0.5), "l2": (0.0, 1e-5, 1e-4)}, kind
    for name, recipe in recipes.RECIPES.items():
        if recipe.grid:
            assert recipe.valid_split is not None, f"{name}: a grid needs a validation split to choose on"


def test_no_recipe_selects_on_its_training_data(shared_data_dir):
    """Validation sequences are not training sequences (CoNLL-2000's `valid`
    is cut from its `train`: the recipes train on the rest). A few natural
    duplicates (short sentences, recurring tunes) stay below 5 %."""
    import numpy as np

    import keras_seq.data as data
    from keras_seq.zoo import recipes

    checked = set()
    for recipe in recipes.RECIPES.values():
        key = (recipe.dataset, recipe.train_split, recipe.valid_split, str(sorted(recipe.data_options.items())))
        if recipe.valid_split is None or key in checked or recipe.dataset in ("ptb_char", "ptb_word"):
            continue  # PTB: one running text per split
        checked.add(key)
        train = data.load_arrays(recipe.dataset, recipe.train_split, data_dir=shared_data_dir, **recipe.data_options)
        valid = data.load_arrays(recipe.dataset, recipe.valid_split, data_dir=shared_data_dir, **recipe.data_options)
        training = {np.asarray(x).tobytes() for x in train.inputs}
        shared = np.mean([np.asarray(x).tobytes() in training for x in valid.inputs])
        assert shared < 0.05, f"{recipe.name}: {shared:.0%} of {recipe.valid_split} is in {recipe.train_split}"
    assert any(key[0] == "conll2000_chunking" for key in checked)


def test_every_recipes_data_options_are_options_its_dataset_takes():
    from keras_seq.data import registry
    from keras_seq.zoo import recipes

    for name, recipe in recipes.RECIPES.items():
        assert set(recipe.data_options) <= set(registry.options(recipe.dataset)), name
