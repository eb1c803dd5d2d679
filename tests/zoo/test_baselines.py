"""The zoo's baselines: the convolutional text model (masked n-gram
convolutions), the count-based n-gram melody model, and the SCRBM paper's
periodic early stopping; plus `keras-seq train --quick` for each kind."""

import json
import math

import keras
import numpy as np
import pytest

from keras_seq.layers import MaskedGlobalMaxPooling1D
from keras_seq.layers import NgramConvolution
from keras_seq.zoo import builders
from keras_seq.zoo import ngram
from keras_seq.zoo.callbacks import PeriodicEarlyStopping


def _numpy(x):
    return keras.ops.convert_to_numpy(x)


# --- convolutional text model ---------------------------------------------


def test_ngram_convolution_ignores_whatever_fills_padded_steps(rng):
    layer = NgramConvolution(3, widths=(2, 3, 4))
    x = rng.normal(size=(2, 9, 5)).astype("float32")
    mask = np.arange(9)[None, :] < np.array([[6], [9]])
    garbage = np.where(mask[..., None], x, rng.normal(scale=100.0, size=x.shape)).astype("float32")
    zeros = np.where(mask[..., None], x, 0.0).astype("float32")
    out_garbage = _numpy(layer(garbage, mask=mask))
    out_zeros = _numpy(layer(zeros, mask=mask))
    np.testing.assert_allclose(out_garbage, out_zeros, atol=1e-5)
    assert out_garbage.shape == (2, 9, 9)
    assert np.all(out_garbage[0, 6:] == 0.0)


def test_conv_labeller_real_steps_do_not_see_padding():
    model, _ = builders.conv_text_model("labelling", num_classes=4, vocabulary_size=20, filters=3, widths=(2, 3, 5))
    sentence = np.array([[3, 7, 2, 9, 4]], "int32")
    padded = np.concatenate([sentence, np.zeros((1, 4), "int32")], axis=1)
    np.testing.assert_allclose(_numpy(model(padded))[:, :5], _numpy(model(sentence)), atol=1e-5)

    vectors, _ = builders.conv_text_model("labelling", num_classes=4, input_shape=(6,), filters=3)
    letters = np.random.default_rng(1).uniform(0.1, 1.0, (1, 5, 6)).astype("float32")
    padded_letters = np.concatenate([letters, np.zeros((1, 3, 6), "float32")], axis=1)
    np.testing.assert_allclose(_numpy(vectors(padded_letters))[:, :5], _numpy(vectors(letters)), atol=1e-5)


def test_conv_dropout_acts_in_training_only():
    model, _ = builders.conv_text_model("labelling", num_classes=4, vocabulary_size=20, filters=3, dropout=0.5)
    assert [layer.name for layer in model.layers if "dropout" in layer.name] == ["input_dropout", "ngram_dropout"]
    sentence = np.array([[3, 7, 2, 9, 4]], "int32")
    np.testing.assert_allclose(_numpy(model(sentence)), _numpy(model(sentence)), atol=1e-6)  # inference: deterministic
    assert not np.allclose(_numpy(model(sentence, training=True)), _numpy(model(sentence)), atol=1e-6)


def test_max_over_time_ignores_padded_steps(rng):
    x = rng.normal(size=(3, 6, 4)).astype("float32")
    lengths = np.array([2, 6, 0])
    mask = np.arange(6)[None, :] < lengths[:, None]
    x[0, 2:] = 1e6  # huge values on padded steps must not win the max
    pooled = _numpy(MaskedGlobalMaxPooling1D()(x, mask=mask))
    np.testing.assert_allclose(pooled[0], x[0, :2].max(axis=0))
    np.testing.assert_allclose(pooled[1], x[1].max(axis=0))
    np.testing.assert_array_equal(pooled[2], np.zeros(4))  # no real step

    classifier, _ = builders.conv_text_model("classification", num_classes=3, vocabulary_size=20, filters=3)
    sentence = np.array([[3, 7, 2, 9]], "int32")
    padded = np.concatenate([sentence, np.zeros((1, 5), "int32")], axis=1)
    assert _numpy(classifier(padded)).shape == (1, 3)
    np.testing.assert_allclose(_numpy(classifier(padded)), _numpy(classifier(sentence)), atol=1e-5)


# --- n-gram model ------------------------------------------------------------


@pytest.mark.parametrize("smoothing", ["witten_bell", "add_k"])
def test_ngram_probabilities_sum_to_one(smoothing, rng):
    inputs = [rng.integers(1, 6, size=n) for n in (5, 9, 14)]
    targets = [rng.integers(0, 5, size=len(x)) for x in inputs]
    counts = ngram.NgramModel(5, order=4).fit(inputs, targets)
    for order in (1, 2, 3, 4):
        model = counts.with_smoothing(order, smoothing, 0.3)
        for _ in range(20):  # random contexts: seen, unseen, with START
            context = tuple(rng.choice([ngram.START, 1, 2, 3, 4, 5, 7], size=3))
            p = model.distribution(context)
            assert p.shape == (5,) and np.all(p > 0)
            assert math.isclose(p.sum(), 1.0, rel_tol=1e-12)


def test_ngram_bits_per_event_by_hand():
    # One training melody 0 1 0 1 as next-step pairs: inputs 0 1 0, targets 1 0 1.
    model = ngram.NgramModel(3, order=2, smoothing="witten_bell").fit([np.array([0, 1, 0])], [np.array([1, 0, 1])])
    V = 3
    # Unigram level: counts of the targets, c = [1, 2, 0], 3 events, 2 distinct.
    unigram = (np.array([1, 2, 0]) + 2 * np.full(V, 1 / V)) / (3 + 2)
    # After input 0 the targets were 1, 1 (2 events, 1 distinct); after 1: 0.
    after_0 = (np.array([0, 2, 0]) + 1 * unigram) / (2 + 1)
    after_1 = (np.array([1, 0, 0]) + 1 * unigram) / (1 + 1)
    np.testing.assert_allclose(model.distribution((0,)), after_0)
    np.testing.assert_allclose(model.distribution((1,)), after_1)
    # Test melody 0 1 2 0: input 2 was never seen, so P(. | 2) backs off.
    scores = ngram.evaluate(model, [np.array([0, 1, 2])], [np.array([1, 0, 0])])
    expected_bits = -(np.log2(after_0[1]) + np.log2(after_1[0]) + np.log2(unigram[0])) / 3
    assert math.isclose(scores["bits_per_event"], expected_bits, rel_tol=1e-12)
    # argmax predictions 1, 0, 1 against 1, 0, 0: one wrong step in three.
    assert math.isclose(scores["sequence_error"], 1 / 3) and math.isclose(scores["token_error"], 1 / 3)

    add_k = model.with_smoothing(1, "add_k", 0.5)  # plain add-k: (c + k) / (N + k V)
    np.testing.assert_allclose(add_k.distribution(()), (np.array([1, 2, 0]) + 0.5) / (3 + 0.5 * V))


def test_ngram_unseen_contexts_back_off(rng):
    inputs = [rng.integers(1, 4, size=12)]
    targets = [rng.integers(0, 3, size=12)]
    counts = ngram.NgramModel(3, order=3).fit(inputs, targets)
    trigram, unigram = counts.with_smoothing(3, "witten_bell"), counts.with_smoothing(1, "witten_bell")
    np.testing.assert_allclose(trigram.distribution((9, 9)), unigram.distribution(()))  # 9 never seen
    bigram = counts.with_smoothing(2, "witten_bell")
    np.testing.assert_allclose(trigram.distribution((9, int(inputs[0][0]))), bigram.distribution((int(inputs[0][0]),)))
    assert counts.count_entries() == sum(np.count_nonzero(r) for t in counts.counts for r in t.values())


def test_ngram_selection_prefers_the_order_the_data_has():
    from keras_seq.data import Sequences

    melody = np.tile([0, 2, 4, 2], 30)  # deterministic given the last symbol
    train = Sequences([melody[:-1] + 1], [melody[1:]])
    model, table = ngram.select(train, train, num_classes=5, max_order=3, add_k=(0.1,))
    assert model.order >= 2 and len(table) == 3 * 2


# --- periodic early stopping ---------------------------------------------------


def _marker_model():
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1, use_bias=False)])
    model.compile(optimizer="sgd", loss="mse")
    return model


def test_periodic_early_stopping_on_a_scripted_schedule():
    model = _marker_model()
    stopper = PeriodicEarlyStopping("val_error", "min", every=10, patience=5)
    stopper.set_model(model)
    # One value per check (epochs 10, 20, ...): best at the 2nd check; the
    # 3rd to 7th do not improve (equal is no improvement): stop at epoch 70.
    checks = [5.0, 3.0, 4.0, 3.0, 3.5, 3.2, 3.1, 1.0, 0.5]
    stopper.on_train_begin()
    last_epoch = None
    for epoch in range(200):
        model.set_weights([np.full((1, 1), float(epoch), "float32")])  # weights mark the epoch
        logs = {"loss": 1.0}
        if (epoch + 1) % 10 == 0:
            logs["val_error"] = checks[(epoch + 1) // 10 - 1]
        stopper.on_epoch_end(epoch, logs)
        last_epoch = epoch
        if model.stop_training:
            break
    stopper.on_train_end()
    assert last_epoch + 1 == 70 and stopper.stopped_epoch == 70
    assert stopper.best["val_error"] == 3.0 and stopper.best_epoch == 20
    assert model.get_weights()[0][0, 0] == 19.0  # the weights after epoch 20


def test_min_delta_ends_a_loss_creeping_to_zero_but_keeps_the_best_weights():
    from keras_seq.zoo.callbacks import stopping_record

    model = _marker_model()
    stopper = PeriodicEarlyStopping("val_loss", "min", patience=3, min_delta=1e-5)
    stopper.set_model(model)
    # Every check improves strictly, so without min_delta patience would
    # never run out; steps of 4e-6 and then 1e-6 count only once they add up
    # to more than 1e-5 below the last reference.
    losses = [1.8e-4, 8.0e-5, 7.6e-5, 7.2e-5, 6.8e-5, 6.7e-5, 6.6e-5, 6.5e-5, 6.4e-5]
    stopper.on_train_begin()
    for epoch, value in enumerate(losses):
        model.set_weights([np.full((1, 1), float(epoch), "float32")])
        stopper.on_epoch_end(epoch, {"loss": 1.0, "val_loss": value})
        if model.stop_training:
            break
    stopper.on_train_end()
    # References: 1.8e-4 (epoch 1), 8e-5 (2), 6.8e-5 (5: 1.2e-5 below 8e-5);
    # epochs 6-8 stay within 1e-5 of 6.8e-5, so patience 3 runs out at 8.
    assert stopper.stopped_epoch == 8 and stopper.best["val_loss"] == pytest.approx(6.8e-5)
    assert stopper.best_epoch == 8 and stopper.best_value == pytest.approx(6.5e-5)
    assert model.get_weights()[0][0, 0] == 7.0  # the best check's weights, not the last reference's
    stopping = stopping_record(8, 1000, stopper)
    assert stopping["converged"] is True and stopping["min_delta"] == 1e-5
    assert stopping["best_value"] == pytest.approx(6.5e-5)
    with pytest.raises(ValueError, match="min_delta"):
        PeriodicEarlyStopping("val_loss", "min", min_delta=-1.0)


def test_log_as_writes_the_check_or_the_best_so_far_into_every_epochs_logs():
    model = _marker_model()
    stopper = PeriodicEarlyStopping("val_error", "min", every=2, patience=5, log_as="objective")
    stopper.set_model(model)
    stopper.on_train_begin()
    logged = []
    for epoch, value in enumerate([None, 4.0, None, 5.0, None, 2.0]):
        logs = {} if value is None else {"val_error": value}
        stopper.on_epoch_end(epoch, logs)
        logged.append(logs["objective"])
    assert np.isnan(logged[0]) and logged[1:] == [4.0, 4.0, 5.0, 4.0, 2.0]


def test_early_stopping_waits_while_a_progress_metric_improves():
    model = _marker_model()
    stopper = PeriodicEarlyStopping("val_acc", "max", every=1, patience=2, progress=[("val_nll", "min")])
    stopper.set_model(model)
    # Accuracy is flat at 0 for five epochs while the NLL falls (the plateau),
    # then rises to its best at epoch 7; from epoch 8 neither improves.
    accuracy = [0.0, 0.0, 0.0, 0.0, 0.0, 0.1, 0.3, 0.2, 0.25, 0.29, 0.9]
    nll = [9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.5, 3.6, 3.7, 3.6, 3.0]
    stopper.on_train_begin()
    for epoch, (a, n) in enumerate(zip(accuracy, nll)):
        model.set_weights([np.full((1, 1), float(epoch), "float32")])
        stopper.on_epoch_end(epoch, {"val_acc": a, "val_nll": n})
        if model.stop_training:
            break
    stopper.on_train_end()
    assert stopper.stopped_epoch == 9 and stopper.best_epoch == 7
    assert model.get_weights()[0][0, 0] == 6.0  # selected on accuracy, not on the NLL
    with pytest.raises(ValueError, match="mode of 'val_nll'"):
        PeriodicEarlyStopping("val_acc", "max", progress=[("val_nll", "down")])


def test_a_non_finite_training_loss_ends_the_run_as_diverged_not_converged():
    from keras_seq.zoo import report
    from keras_seq.zoo.callbacks import stopping_record

    model = _marker_model()
    stopper = PeriodicEarlyStopping("val_acc", "max", every=1, patience=20, log_as="objective")
    stopper.set_model(model)
    # Validation improves for three epochs; the 4th epoch's loss is NaN (an
    # exploded update), and patience (20) would wait for 20 more epochs.
    losses, accuracy = [0.5, 0.4, 0.3, float("nan"), float("nan")], [0.6, 0.65, 0.68, 0.0, 0.0]
    stopper.on_train_begin()
    logged = []
    for epoch, (loss, a) in enumerate(zip(losses, accuracy)):
        model.set_weights([np.full((1, 1), float(epoch), "float32")])
        logs = {"loss": loss, "val_acc": a}
        stopper.on_epoch_end(epoch, logs)
        logged.append(logs["objective"])
        if model.stop_training:
            break
    stopper.on_train_end()
    assert epoch + 1 == 4 and stopper.diverged_epoch == 4 and stopper.stopped_epoch is None
    assert stopper.best_epoch == 3 and model.get_weights()[0][0, 0] == 2.0  # the last finite epoch's weights
    assert logged == [0.6, 0.65, 0.68, 0.68]  # a tuner still reads its objective
    stopping = stopping_record(4, 3000, stopper)
    assert stopping["reason"] == "diverged" and stopping["converged"] is False and stopping["diverged_epoch"] == 4
    record = {"recipe": "r", "test": {"frame_accuracy": 0.68}, "seed": 0, "stopping": stopping}
    assert report.stopped_by(record).startswith("**diverged (training loss not finite): not converged**")
    summary = report.comparison_summary(
        [record, {**record, "recipe": "s", "stopping": {**stopping, "reason": "early_stopping", "converged": True}}]
    )
    assert summary.startswith("Diverged: r (") and "Best" not in summary


def test_stopping_record_names_the_reason():
    from keras_seq.zoo.callbacks import TimeBudget
    from keras_seq.zoo.callbacks import stopping_record

    stopper = PeriodicEarlyStopping("val_loss", "min", patience=3)
    stopper.on_train_begin()
    stopper.best_epoch = 12
    capped = stopping_record(20, 20, stopper)
    assert capped["reason"] == "epoch_limit" and capped["converged"] is False and capped["best_epoch"] == 12
    budget = TimeBudget(10)
    budget.stopped = True
    assert stopping_record(15, 20, stopper, budget)["reason"] == "time_budget"
    stopper.stopped_epoch = 15
    stopped = stopping_record(15, 20, stopper, budget)
    assert stopped["reason"] == "early_stopping" and stopped["converged"] is True
    fixed = stopping_record(20, 20)
    assert fixed["reason"] == "fixed_epochs" and fixed["converged"] is None


def test_periodic_early_stopping_with_fit_and_validation_freq():
    class ScriptedValidation(keras.callbacks.Callback):
        """Replaces the measured val_loss by a scripted one."""

        def __init__(self, values):
            super().__init__()
            self.values = iter(values)

        def on_epoch_end(self, epoch, logs=None):
            if "val_loss" in logs:
                logs["val_loss"] = next(self.values)

    model = _marker_model()
    x, y = np.ones((4, 1), "float32"), np.ones((4, 1), "float32")
    stopper = PeriodicEarlyStopping("val_loss", "min", every=3, patience=2)
    history = model.fit(
        x,
        y,
        validation_data=(x, y),
        validation_freq=3,
        epochs=30,
        verbose=0,
        callbacks=[ScriptedValidation([2.0, 1.0, 1.5, 1.2, 0.1]), stopper],
    )
    assert len(history.history["loss"]) == 12  # checks at 3, 6 (best), 9, 12: stop
    assert len(history.history["val_loss"]) == 4
    with pytest.raises(ValueError, match="validation_freq=3"):
        stopper.on_epoch_end(2, {"loss": 1.0})


# --- the recipes through the command line ----------------------------------------


def test_train_quick_conv_labelling_and_ngram(shared_data_dir, tmp_path, capsys):
    from keras_seq.zoo import cli

    cli.main(
        [
            "train",
            "ocr_ms_conv",
            "kinderlieder_ngram",
            "--quick",
            "--data-dir",
            shared_data_dir,
            "--output",
            str(tmp_path),
        ]
    )
    out = capsys.readouterr().out
    assert "| ocr_ms_conv (quick) | ocr_letters (protocol=ms, fold=0) | sequence_error |" in out
    assert "| kinderlieder_ngram (quick) | kinderlieder | bits_per_event |" in out and "2.957" in out
    conv = json.load(open(tmp_path / "ocr_ms_conv" / "seed-0-quick" / "record.json"))
    assert (
        0.0 <= conv["test"]["sequence_error"] <= 1.0
        and (tmp_path / "ocr_ms_conv" / "seed-0-quick" / "model.keras").exists()
    )
    counts = json.load(open(tmp_path / "kinderlieder_ngram" / "seed-0-quick" / "record.json"))
    assert counts["test"]["bits_per_event"] > 0 and counts["parameters"] > 0
    assert counts["model"]["order"] in (1, 2) and len(counts["selection"]) == 2 * 2
    # The chance level (training frequencies whatever the context), in the test's units.
    from keras_seq.zoo import recipes

    classes = recipes.get("kinderlieder_ngram").dataset_info.num_classes
    assert 0.0 < counts["chance"]["bits_per_event"] <= np.log2(classes) + 0.1
    assert not (tmp_path / "kinderlieder_ngram" / "seed-0-quick" / "model.keras").exists()

    with pytest.raises(ValueError, match="no saved Keras model"):
        cli.main(["evaluate", "kinderlieder_ngram", "--output", str(tmp_path)])


def test_train_quick_conv_classification(tmp_path, monkeypatch, capsys):
    from keras_seq.zoo import cli
    from tests.support import tiny_mnist

    tiny_mnist(tmp_path, monkeypatch)
    cli.main(["train", "permuted_mnist_conv", "--quick", "--data-dir", str(tmp_path), "--output", str(tmp_path)])
    assert "| permuted_mnist_conv (quick) | permuted_mnist | accuracy |" in capsys.readouterr().out
    record = json.load(open(tmp_path / "permuted_mnist_conv" / "seed-0-quick" / "record.json"))
    assert 0.0 <= record["test"]["accuracy"] <= 1.0 and record["epochs_run"] == 1


def test_scrbm_recipes_select_on_algorithm_1_not_on_teacher_forcing(shared_data_dir, tmp_path):
    from keras_seq.zoo import recipes
    from keras_seq.zoo import train

    recipe = recipes.get("ocr_ms_scrbm")
    record = train.run(
        recipe, data_dir=shared_data_dir, quick=True, epochs=recipe.check_every, output=str(tmp_path), verbose=0
    )
    history = record["history"]
    assert record["validation_epochs"] == [recipe.check_every]
    assert len(history["val_sequence_error"]) == len(history["val_teacher_forced_sequence_error"]) == 1
    # The monitored val_sequence_error is the saved predictor's (Algorithm 1) on the validation split.
    predictor = train.evaluate(
        recipe,
        str(tmp_path / "ocr_ms_scrbm" / "seed-0-quick" / "model.keras"),
        shared_data_dir,
        quick=True,
        split="valid",
    )
    assert history["val_sequence_error"][0] == pytest.approx(predictor["sequence_error"], abs=1e-6)
    assert record["stopping"]["monitor"] == "val_sequence_error" and record["stopping"]["best_epoch"] == 10


# --- regularised SCRBM ----------------------------------------------------------


def test_scrbm_labeller_takes_input_dropout_and_l2_on_its_three_kernels(rng):
    plain = builders.labelling_model(kind="scrbm", num_classes=3, input_shape=(4,), units=5)
    built = builders.labelling_model(kind="scrbm", num_classes=3, input_shape=(4,), units=5, dropout=0.5, l2=1e-2)
    (layer,) = [l for l in built.predictor.layers if l.name.startswith("scrbm")]
    assert layer.cell.dropout == 0.5
    assert {
        type(r).__name__
        for r in (layer.cell.kernel_regularizer, layer.cell.recurrent_regularizer, layer.cell.label_regularizer)
    } == {"L2"}
    assert layer.cell.bias_regularizer is None
    x = rng.normal(size=(2, 6, 4)).astype("float32")
    y = rng.integers(0, 3, size=(2, 6))
    assert len(built.trainer.losses) == 3 and not plain.trainer.losses
    inference = _numpy(built.predictor(x, training=False))
    np.testing.assert_allclose(_numpy(built.predictor(x, training=False)), inference)  # no dropout at inference
    assert not np.allclose(_numpy(built.trainer([x, y], training=True)), _numpy(built.trainer([x, y], training=False)))


def test_lmns_clip_gradients_and_fine_tune_with_bounded_tanh_on_the_long_piece_sets_only_and_lmn_a_is_bounded():
    # and the random-start LMN-B is bounded where it does not clip
    from keras_seq.zoo import recipes

    for dataset in ("nottingham", "piano_midi", "musedata"):
        for kind in ("lmn_a", "lmn_b", "lmn_b_pretrained"):  # unclipped, both LMN-Bs went NaN on Nottingham
            assert recipes.get(f"{dataset}_{kind}").model["clipnorm"] == 1.0, (dataset, kind)
    for name in (
        "jsb_chorales_lmn_b",
        "jsb_chorales_lmn_b_pretrained",
        "bach_chorales_lmn_b_pretrained",
        "nottingham_lstm",
    ):
        assert "clipnorm" not in recipes.get(name).model, name
    for dataset in ("nottingham", "piano_midi", "musedata"):  # the paper's final LMN activation
        model = recipes.get(f"{dataset}_lmn_b_pretrained").model
        assert model["fine_tune_activation"] == "tanh" and model["memory_norm_bound"] == 1.0, dataset
    for dataset in ("jsb_chorales", "bach_chorales"):
        model = recipes.get(f"{dataset}_lmn_b_pretrained").model
        assert "fine_tune_activation" not in model and "memory_norm_bound" not in model, dataset
    for dataset in ("jsb_chorales", "bach_chorales", "nottingham", "piano_midi", "musedata"):
        # unbounded, the LMN-A stayed on JSB's all-notes-off plateau on 3 of 3 seeds
        assert recipes.get(f"{dataset}_lmn_a").model["memory_norm_bound"] == 1.0, dataset
    for dataset in ("jsb_chorales", "bach_chorales"):  # bounded: 25.4 % against 22.9 % on JSB, 3 seeds each
        assert recipes.get(f"{dataset}_lmn_b").model["memory_norm_bound"] == 1.0, dataset
    for dataset in ("nottingham", "piano_midi", "musedata"):
        assert "memory_norm_bound" not in recipes.get(f"{dataset}_lmn_b").model, dataset
    clipped, _ = builders.piano_roll_model("lmn_b", units=4, memory_units=4, keys=8, clipnorm=1.0)
    plain, _ = builders.piano_roll_model("lmn_b", units=4, memory_units=4, keys=8)
    assert clipped.optimizer.global_clipnorm == 1.0 and plain.optimizer.global_clipnorm is None


def test_lmn_l2_decays_all_four_kernels_and_no_bias():
    """The LMN paper regularises with weight decay; the memory's own W_mm is
    the weight that sets whether the linear memory stays bounded."""
    model, _ = builders.piano_roll_model("lmn_b", units=4, memory_units=5, keys=8, l2=1e-3)
    cell = model.get_layer(index=0).cell
    decayed = {w.name for w in cell.weights if w.regularizer is not None}
    assert decayed == {"kernel", "recurrent_kernel", "memory_kernel", "memory_recurrent_kernel"}
    model(np.zeros((1, 3, 8), "float32"))
    total = sum(float(keras.ops.convert_to_numpy(loss)) for loss in model.losses)
    weights = {w.name: keras.ops.convert_to_numpy(w) for w in cell.weights}
    np.testing.assert_allclose(total, 1e-3 * sum(float(np.sum(weights[n] ** 2)) for n in decayed), rtol=1e-5)
    plain, _ = builders.piano_roll_model("lmn_b", units=4, memory_units=5, keys=8)
    assert not [w for w in plain.get_layer(index=0).cell.weights if w.regularizer is not None]


@pytest.mark.parametrize("kind", ["lmn_a", "lmn_b"])
def test_lmn_memory_norm_bound_constrains_w_mm_only(kind):
    from keras_seq.constraints import MaxSpectralNorm

    model, _ = builders.piano_roll_model(kind, units=4, memory_units=5, keys=8, memory_norm_bound=0.95)
    constrained = {w.name: w.constraint for w in model.get_layer(index=0).cell.weights if w.constraint is not None}
    assert list(constrained) == ["memory_recurrent_kernel"]
    assert isinstance(constrained["memory_recurrent_kernel"], MaxSpectralNorm)
    assert constrained["memory_recurrent_kernel"].max_value == 0.95
    plain, _ = builders.piano_roll_model(kind, units=4, memory_units=5, keys=8)
    assert not [w for w in plain.get_layer(index=0).cell.weights if w.constraint is not None]


def _pretrained_lmn_pair(shared_data_dir, **changed):
    """The recipe's pretrained LMN built twice from the same seed and data,
    plainly and with `changed` builder arguments, and an input batch."""
    import keras_seq.data as data

    train = data.load_arrays("jsb_chorales", "train", data_dir=shared_data_dir)
    train = data.Sequences(train.inputs[:6], train.targets[:6])
    pair = []
    for arguments in ({}, changed):
        keras.utils.set_random_seed(0)
        pair.append(
            builders.pretrained_lmn_model(
                train, units=4, memory_units=6, window=2, pretrain_epochs=1, **arguments
            ).trainer
        )
    x = np.stack([s[:20] for s in train.inputs[:2]]).astype("float32")
    return pair[0], pair[1], x


def _outputs(model, x):
    return keras.ops.convert_to_numpy(model(x))


def test_pretrained_lmn_with_l2_is_the_same_network_regularised(shared_data_dir):
    plain, regularised, x = _pretrained_lmn_pair(shared_data_dir, l2=1e-3)
    np.testing.assert_allclose(_outputs(regularised, x), _outputs(plain, x), atol=1e-6)
    assert len(plain.losses) == 0 and len(regularised.losses) == 4  # W_xh, W_mh, W_hm and W_mm
    assert regularised.optimizer is not None and regularised.get_layer("lmn").cell.activation.__name__ == "selu"


def test_pretrained_lmn_with_a_memory_norm_bound_is_the_same_network_constrained(shared_data_dir):
    plain, constrained, x = _pretrained_lmn_pair(shared_data_dir, memory_norm_bound=1.0)
    np.testing.assert_allclose(_outputs(constrained, x), _outputs(plain, x), atol=1e-6)
    assert plain.get_layer("lmn").cell.memory_recurrent_kernel.constraint is None
    assert constrained.get_layer("lmn").cell.memory_recurrent_kernel.constraint.max_value == 1.0
    assert constrained.optimizer is not None


def test_pretrained_lmn_fine_tunes_with_another_activation_from_the_same_weights(shared_data_dir):
    plain, tanh_model, x = _pretrained_lmn_pair(shared_data_dir, fine_tune_activation="tanh")
    selu, tanh = (model.get_layer("lmn").cell for model in (plain, tanh_model))
    assert selu.activation.__name__ == "selu" and tanh.activation.__name__ == "tanh"
    for a, b in zip(selu.weights, tanh.weights):
        np.testing.assert_array_equal(keras.ops.convert_to_numpy(a), keras.ops.convert_to_numpy(b))
    assert not np.allclose(_outputs(tanh_model, x), _outputs(plain, x), atol=1e-4)
