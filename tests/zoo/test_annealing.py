"""PlateauAnnealing: the learning rate falls at validation plateaus, on the
zoo's validation schedule, and a resumed run continues where it stopped."""

import dataclasses

import keras
import numpy as np
import pytest

from keras_seq.zoo.callbacks import PlateauAnnealing


def _model(rate=1e-2):
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.Adam(rate), loss="mse")
    return model


def _rate(model):
    return float(keras.ops.convert_to_numpy(model.optimizer.learning_rate))


def _epochs(callback, values, every=1, start=0):
    """Epoch ends with `values` of val_loss at the checks; returns each epoch's logged rate."""
    logged = []
    for epoch, value in enumerate(values, start):
        logs = {"loss": 1.0, **({"val_loss": value} if (epoch + 1) % every == 0 else {})}
        callback.on_epoch_end(epoch, logs)
        logged.append(logs["learning_rate"])
    return logged


def test_the_rate_falls_after_patience_checks_without_enough_improvement():
    model = _model()
    annealing = PlateauAnnealing("val_loss", "min", patience=2, factor=0.1, min_delta=0.01, min_learning_rate=1e-4)
    annealing.set_model(model)
    annealing.on_train_begin()
    # 1.0, then two checks better by less than min_delta: the rate falls after the third epoch.
    logged = _epochs(annealing, [1.0, 0.995, 0.992, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5])
    np.testing.assert_allclose(logged[:3], 1e-2, rtol=1e-6)  # the rate each epoch trained with
    np.testing.assert_allclose(logged[3:6], 1e-3, rtol=1e-6)  # 0.5 counts; two flat checks follow
    np.testing.assert_allclose(logged[6:], 1e-4, rtol=1e-6)  # fallen once more; then the floor holds
    assert annealing.annealed_at == [3, 6]
    np.testing.assert_allclose(_rate(model), 1e-4, rtol=1e-6)


def test_only_checks_count_on_a_sparse_validation_schedule():
    model = _model()
    annealing = PlateauAnnealing("val_loss", "min", patience=1, every=10)
    annealing.set_model(model)
    annealing.on_train_begin()
    _epochs(annealing, [1.0] * 10 + [2.0] * 10, every=10)  # checks at epochs 10 (1.0) and 20 (2.0)
    assert annealing.annealed_at == [20]


def test_a_resumed_run_restores_the_rate_and_the_count():
    first, annealing = _model(), PlateauAnnealing("val_loss", "max", patience=2, factor=0.5)
    annealing.set_model(first)
    annealing.on_train_begin()
    _epochs(annealing, [0.2, 0.1, 0.1, 0.1])  # falls after epoch 3, then one check without improvement
    state = annealing.get_state()
    assert state["annealed_at"] == [3] and state["checks_without_improvement"] == 1
    np.testing.assert_allclose(state["learning_rate"], 5e-3, rtol=1e-6)

    second, resumed = _model(), PlateauAnnealing("val_loss", "max", patience=2, factor=0.5)
    resumed.set_state(state)
    resumed.set_model(second)
    resumed.on_train_begin()
    np.testing.assert_allclose(_rate(second), 5e-3, rtol=1e-6)
    _epochs(resumed, [0.1], start=4)  # the second check without improvement: falls again
    assert resumed.annealed_at == [3, 5]
    np.testing.assert_allclose(_rate(second), 2.5e-3, rtol=1e-6)


@pytest.mark.parametrize(
    "arguments", [{"factor": 1.0}, {"factor": 0.0}, {"patience": 0}, {"min_delta": -1.0}, {"mode": "up"}]
)
def test_bad_arguments_are_named(arguments):
    with pytest.raises(ValueError, match="factor|patience|mode"):
        PlateauAnnealing("val_loss", **{"mode": "min", **arguments})


def test_a_recipe_with_annealing_records_when_its_rate_fell(shared_data_dir, tmp_path):
    from keras_seq.zoo import recipes
    from keras_seq.zoo import train

    # Every check after the first (which sets the reference) counts as a plateau here: min_delta is far
    # above any change of frame accuracy.
    recipe = dataclasses.replace(
        recipes.get("jsb_chorales_lstm"),
        name="annealed",
        anneal=recipes.Annealing(patience=1, factor=0.5, min_delta=1e3, min_learning_rate=1e-9),
    )
    record = train.run(recipe, data_dir=shared_data_dir, quick=True, epochs=4, output=str(tmp_path), verbose=0)
    assert record["stopping"]["annealed_at"] == [2, 3, 4]
    rate = recipe.model["learning_rate"]
    np.testing.assert_allclose(record["history"]["learning_rate"], [rate, rate, rate / 2, rate / 4], rtol=1e-6)
