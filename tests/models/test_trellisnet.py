import keras
import numpy as np
import pytest

from keras_seq.layers.trellis import TrellisBlock
from keras_seq.models.trellisnet import DeepSupervisionLoss
from keras_seq.models.trellisnet import TrellisNet
from keras_seq.models.trellisnet import deep_supervision
from tests import support


def _block_params(hidden, inputs, k=2, weight_norm=True):
    return k * inputs * 4 * hidden + k * hidden * 4 * hidden + 4 * hidden * (3 if weight_norm else 1)


def test_language_model_ties_the_embedding(rng):
    vocab, emb, hidden = 11, 6, 10
    model = TrellisNet(hidden, emb, 3, vocab_size=vocab, embedding_dim=emb)
    assert model.count_params() == vocab * emb + _block_params(hidden, emb)
    tokens = rng.integers(0, vocab, size=(2, 7)).astype("int32")
    logits = keras.ops.convert_to_numpy(model(tokens))
    assert logits.shape == (2, 7, vocab)
    # logits = top-level output @ E^T
    block = model.get_layer("trellis")
    embedding = model.get_layer("embedding")
    h = block(embedding(tokens))
    matrix = keras.ops.convert_to_numpy(embedding.embeddings)
    np.testing.assert_allclose(logits, keras.ops.convert_to_numpy(h) @ matrix.T, rtol=1e-5, atol=1e-6)


def test_language_model_with_deep_supervision_fits_and_reloads(rng, tmp_path):
    vocab = 9
    tokens = rng.integers(0, vocab, size=(16, 12)).astype("int32")
    x, y = tokens[:, :-1], tokens[:, 1:]
    model = TrellisNet(12, 5, 4, vocab_size=vocab, embedding_dim=5, aux_frequency=2,
                       dropout=0.1, input_dropout=0.1, output_dropout=0.1, seed=1)
    model.compile(
        optimizer=keras.optimizers.Adam(0.01),
        jit_compile=support.backend_has_xla(),
        **deep_supervision(keras.losses.SparseCategoricalCrossentropy(from_logits=True), 0.3),
    )
    history = model.fit(x, {"output": y, "aux": y}, epochs=2, batch_size=8, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))
    path = str(tmp_path / "lm.keras")
    model.save(path)
    reloaded = keras.saving.load_model(path)
    predictions = model.predict(x, verbose=0)
    assert predictions["output"].shape == (16, 11, vocab)
    assert predictions["aux"].shape == (16, 11, 1, vocab)
    for key, value in predictions.items():
        np.testing.assert_allclose(reloaded.predict(x, verbose=0)[key], value, rtol=1e-5, atol=1e-6)


def test_deep_supervision_loss_is_the_mean_over_levels(rng):
    base = keras.losses.MeanSquaredError()
    y_true = rng.normal(size=(3, 4, 2)).astype("float32")
    y_pred = rng.normal(size=(3, 4, 5, 2)).astype("float32")
    loss = float(DeepSupervisionLoss(base)(y_true, y_pred))
    expected = np.mean([float(base(y_true, y_pred[:, :, a])) for a in range(5)])
    np.testing.assert_allclose(loss, expected, rtol=1e-5)
    ids = rng.integers(0, 3, size=(2, 4))
    logits = rng.normal(size=(2, 4, 2, 3)).astype("float32")
    sparse = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    expected = np.mean([float(sparse(ids, logits[:, :, a])) for a in range(2)])
    np.testing.assert_allclose(float(DeepSupervisionLoss(sparse)(ids, logits)), expected, rtol=1e-5)
    clone = DeepSupervisionLoss.from_config(DeepSupervisionLoss(sparse).get_config())
    np.testing.assert_allclose(float(clone(ids, logits)), expected, rtol=1e-5)


def test_sequence_classifier_on_features(rng):
    model = TrellisNet(8, 4, 3, input_dim=1, num_outputs=10, return_sequences=False,
                       dilations=[1, 2], output_activation="softmax", sequence_length=20)
    probs = keras.ops.convert_to_numpy(model(rng.normal(size=(2, 20, 1)).astype("float32")))
    assert probs.shape == (2, 10)
    np.testing.assert_allclose(probs.sum(-1), 1.0, rtol=1e-5)
    assert isinstance(model.get_layer("trellis"), TrellisBlock)


def test_bad_arguments():
    with pytest.raises(ValueError, match="exactly one of `vocab_size`"):
        TrellisNet(8, 4, 2, vocab_size=5, input_dim=3, embedding_dim=4)
    with pytest.raises(ValueError, match="output_units == embedding_dim"):
        TrellisNet(8, 4, 2, vocab_size=5, embedding_dim=6)
    with pytest.raises(ValueError, match="num_outputs"):
        TrellisNet(8, 4, 2, input_dim=3)
    with pytest.raises(ValueError, match="aux_weight"):
        deep_supervision("mse", -1)
