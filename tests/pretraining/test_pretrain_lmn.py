import keras
import numpy as np
import pytest

from keras_seq.layers.linear_memory import LMN
from keras_seq.pretraining.lmn import frame_scores
from keras_seq.pretraining.lmn import predict_sequences
from keras_seq.pretraining.lmn import predict_unrolled
from keras_seq.pretraining.lmn import pretrain_lmn
from keras_seq.pretraining.lmn import windows


def piano_rolls(rng, lengths=(6, 9, 7, 4, 8), notes=5):
    """Binary frames; the target is the next frame (zeros after the end)."""
    rolls = [(rng.random((t, notes)) < 0.4).astype("float32") for t in lengths]
    targets = [np.concatenate([r[1:], np.zeros((1, notes), "float32")]) for r in rolls]
    return rolls, targets


def max_difference(a, b):
    return max(np.abs(x - y).max() for x, y in zip(a, b))


@pytest.mark.parametrize("activation,epochs", [("selu", 1), ("tanh", 0)])
def test_pretrained_lmn_reproduces_the_unrolled_network(rng, activation, epochs):
    """Spec step 4: same activation + full-rank autoencoder => same outputs."""
    rolls, targets = piano_rolls(rng)
    units, window = 3, 4
    model, report = pretrain_lmn(
        rolls,
        targets,
        units=units,
        memory_units=units * window,
        window=window,
        activation=activation,
        epochs=epochs,
        batch_size=8,
        validation_data=(rolls[:2], targets[:2]),
    )
    assert report["n_components"] == units * window
    assert report["reconstruction_error"] < 1e-10
    unrolled = predict_unrolled(report["unrolled_model"], rolls, window)
    pretrained = predict_sequences(model, rolls)
    assert max_difference(unrolled, pretrained) < 1e-5
    for split in ("train", "validation"):
        for score in ("frame_accuracy", "nll"):
            assert np.isclose(report["unrolled"][split][score], report["pretrained"][split][score], rtol=1e-4)

    # Step 4's weights, as the spec writes them (row-vector convention).
    lmn = model.get_layer("lmn")
    assert isinstance(lmn, LMN) and lmn.output_mode == "memory"
    ae = report["autoencoder"]
    cell = lmn.cell
    np.testing.assert_allclose(keras.ops.convert_to_numpy(cell.memory_kernel), ae.A.T, atol=1e-6)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(cell.memory_recurrent_kernel), ae.B.T, atol=1e-6)
    assert np.all(keras.ops.convert_to_numpy(cell.recurrent_kernel) == 0)
    functional = report["unrolled_model"].get_layer("functional")
    np.testing.assert_allclose(keras.ops.convert_to_numpy(cell.kernel), keras.ops.convert_to_numpy(functional.kernel))
    assert cell.activation.__name__ == activation


def test_truncated_memory_is_close_and_fine_tunes(rng):
    rolls, targets = piano_rolls(rng, lengths=(10, 12, 9, 11))
    model, report = pretrain_lmn(
        rolls,
        targets,
        units=3,
        memory_units=6,
        window=4,
        epochs=1,
        batch_size=16,
    )
    assert 0 < report["svd_error"] <= report["reconstruction_error"]
    unrolled = predict_unrolled(report["unrolled_model"], rolls, 4)
    pretrained = predict_sequences(model, rolls)
    assert max_difference(unrolled, pretrained) < 0.5

    # Step 5: fine-tuning is model.fit.
    x = np.stack(rolls[1:2])
    y = np.stack(targets[1:2])
    model.compile(optimizer=keras.optimizers.Adam(1e-2), loss="binary_crossentropy")
    before = model.evaluate(x, y, verbose=0)
    model.fit(x, y, epochs=3, verbose=0)
    assert model.evaluate(x, y, verbose=0) < before


def test_memory_units_beyond_the_rank_get_zero_weights(rng):
    rolls, targets = piano_rolls(rng, lengths=(3, 2))  # 5 rows of Xi
    with pytest.warns(UserWarning, match="memory_units=8"):
        model, report = pretrain_lmn(rolls, targets, units=2, memory_units=8, window=4, epochs=0)
    assert report["n_components"] == 5
    cell = model.get_layer("lmn").cell
    assert np.all(keras.ops.convert_to_numpy(cell.memory_kernel)[:, 5:] == 0)
    unrolled = predict_unrolled(report["unrolled_model"], rolls, 4)
    assert max_difference(unrolled, predict_sequences(model, rolls)) < 1e-5


def test_windows_are_most_recent_first():
    x = np.arange(1, 7, dtype="float64").reshape(1, 3, 2)
    out = windows(x, np.array([3]), 2)
    np.testing.assert_array_equal(out["window"][2], [[5, 6], [3, 4]])
    np.testing.assert_array_equal(out["window"][0], [[1, 2], [0, 0]])
    np.testing.assert_array_equal(out["valid"][:, :, 0], [[1, 0], [1, 1], [1, 1]])


def test_frame_scores():
    predictions = [np.array([[0.9, 0.2, 0.7], [0.1, 0.6, 0.4]])]
    targets = [np.array([[1, 0, 0], [0, 1, 1]])]
    scores = frame_scores(predictions, targets)
    assert np.isclose(scores["frame_accuracy"], 2 / 4)  # TP 2, FP 1, FN 1


def test_misaligned_targets(rng):
    rolls, targets = piano_rolls(rng)
    with pytest.raises(ValueError, match="same lengths"):
        pretrain_lmn(rolls, targets[::-1], units=2, memory_units=4, window=2, epochs=0)


@pytest.mark.parametrize(
    "bad,message",
    [
        (
            lambda rolls, targets: (rolls, [t[:-1] for t in targets]),
            r"The validation targets must have one .*same lengths",
        ),
        (
            lambda rolls, targets: ([r[:, :4] for r in rolls], [t[:, :4] for t in targets]),
            r"The validation sequences have 4 features per step; the training sequences have 5",
        ),
        (
            lambda rolls, targets: (rolls, [2 * t for t in targets]),
            r"The validation targets must lie in \[0, 1\].*\[0, 2\]",
        ),
        (
            lambda rolls, targets: (rolls, [t * np.nan for t in targets]),
            r"The validation targets: Sequences contain NaN",
        ),
        (lambda rolls, targets: rolls, r"`validation_data` must be a pair"),
    ],
)
def test_bad_validation_data_is_refused_before_the_pretraining(rng, monkeypatch, bad, message):
    import keras_seq.pretraining.lmn as lmn

    rolls, targets = piano_rolls(rng)
    monkeypatch.setattr(lmn, "unrolled_network", lambda *a, **k: pytest.fail("pretraining started"))
    with pytest.raises(ValueError, match=message):
        pretrain_lmn(rolls, targets, units=2, memory_units=4, window=2, validation_data=bad(rolls, targets))


def test_training_targets_outside_0_1_are_refused(rng):
    rolls, targets = piano_rolls(rng)
    with pytest.raises(
        ValueError, match=r"The train targets must lie in \[0, 1\] \(binary frames\); got values in \[-1, 1\]"
    ):
        pretrain_lmn(rolls, [2 * t - 1 for t in targets], units=2, memory_units=4, window=2, epochs=0)


def test_fine_tune_reports_and_plots_fig4(tmp_path):
    from keras_seq.pretraining import fine_tune
    from keras_seq.pretraining import plot_report
    from keras_seq.pretraining import pretrain_lmn

    rng = np.random.default_rng(0)
    rolls = [(rng.random((n, 6)) < 0.3).astype("float32") for n in (9, 7, 12, 5)]
    inputs, targets = [r[:-1] for r in rolls], [r[1:] for r in rolls]
    model, report = pretrain_lmn(
        inputs, targets, units=4, memory_units=8, window=3, epochs=1, validation_data=(inputs[:2], targets[:2])
    )
    history = fine_tune(model, report, inputs, targets, validation_data=(inputs[:2], targets[:2]), epochs=3)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert set(report["fine_tuned"]) == {"train", "validation"}
    assert 0.0 <= report["fine_tuned"]["train"]["frame_accuracy"] <= 1.0
    plot_report(report, str(tmp_path / "fig4.png"))
    assert (tmp_path / "fig4.png").stat().st_size > 0


def test_the_same_seed_gives_the_same_pretrained_model(rng):
    """Every randomized step is seeded: the unrolled network's weights and
    shuffling (Keras' seed) and the randomized SVD (drawn from NumPy's
    generator, which `keras.utils.set_random_seed` seeds)."""
    rolls, targets = piano_rolls(rng, lengths=(12, 15, 9, 14), notes=6)

    def pretrained(seed):
        keras.utils.set_random_seed(seed)
        model, report = pretrain_lmn(
            rolls,
            targets,
            units=4,
            memory_units=5,
            window=3,
            epochs=2,
            batch_size=8,
            autoencoder_options={"solver": "randomized"},
        )
        return [np.asarray(w) for w in model.get_weights()], report["reconstruction_error"]

    first, error = pretrained(7)
    again, error_again = pretrained(7)
    other, _ = pretrained(8)
    assert error == error_again
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert any(not np.array_equal(a, b) for a, b in zip(first, other))
