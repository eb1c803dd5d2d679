import keras
import numpy as np
import pytest

from keras_seq.layers.trellis import TrellisBlock
from keras_seq.models.trellisnet import DeepSupervisionLoss
from keras_seq.models.trellisnet import EmbeddingDropout
from keras_seq.models.trellisnet import MixtureLogProbabilities
from keras_seq.models.trellisnet import MixtureOfSoftmaxes
from keras_seq.models.trellisnet import ResetStates
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
    model = TrellisNet(
        12,
        5,
        4,
        vocab_size=vocab,
        embedding_dim=5,
        aux_frequency=2,
        dropout=0.1,
        input_dropout=0.1,
        output_dropout=0.1,
        seed=1,
    )
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
    assert predictions["aux"].shape == (16, 11, 2, vocab)  # levels 2 and 4 (the top)
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


def test_deep_supervision_takes_per_step_sample_weights(rng):
    """Padded piano rolls: (batch, time) weights apply to the main and the
    auxiliary loss alike; a padded step's targets change nothing."""
    model = TrellisNet(
        8, 4, 4, input_dim=3, num_outputs=3, output_activation="sigmoid", aux_frequency=2, dilations=[1, 2]
    )
    model.compile(optimizer="sgd", **deep_supervision(keras.losses.BinaryCrossentropy(), 0.5))
    x = rng.integers(0, 2, size=(2, 6, 3)).astype("float32")
    y = rng.integers(0, 2, size=(2, 6, 3)).astype("float32")
    w = np.ones((2, 6), "float32")
    w[:, 4:] = 0.0
    flipped = y.copy()
    flipped[:, 4:] = 1.0 - flipped[:, 4:]
    losses = [
        model.evaluate(x, {"output": t, "aux": t}, sample_weight={"output": w, "aux": w}, verbose=0, return_dict=True)[
            "loss"
        ]
        for t in (y, flipped)
    ]
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-6)
    history = model.fit(x, {"output": y, "aux": y}, sample_weight={"output": w, "aux": w}, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])


def test_sequence_classifier_on_features(rng):
    model = TrellisNet(
        8,
        4,
        3,
        input_dim=1,
        num_outputs=10,
        return_sequences=False,
        dilations=[1, 2],
        output_activation="softmax",
        sequence_length=20,
    )
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


@pytest.mark.parametrize("bad", [10, -1])
def test_token_ids_outside_the_vocabulary_are_named(bad):
    model = TrellisNet(8, 4, 2, vocab_size=10, embedding_dim=4)
    assert keras.ops.convert_to_numpy(model(np.array([[1, 2, 9]]))).shape == (1, 3, 10)
    with pytest.raises(
        ValueError, match=rf"TrellisNet token ids must be integers in \[0, 10\); got .*{bad}.* at \(0, 2\)"
    ):
        model(np.array([[1, 2, bad]]))


# ---------------------------------------------------------------------------
# Embedding dropout, mixture of softmaxes, stateful language models
# ---------------------------------------------------------------------------
def test_embedding_dropout_drops_whole_vocabulary_rows(rng):
    rate, vocab = 0.5, 20
    layer = EmbeddingDropout(rate, vocab, seed=2)
    tokens = rng.integers(0, vocab, size=(4, 60)).astype("int32")
    embedded = rng.normal(size=(4, 60, 5)).astype("float32") + 9.0  # never 0
    patterns = []
    for _ in range(2):
        out = keras.ops.convert_to_numpy(layer(embedded, tokens, training=True))
        kept = np.abs(out).sum(-1) > 0
        for word in range(vocab):  # a word is dropped everywhere or nowhere
            where = tokens == word
            assert kept[where].all() or not kept[where].any(), word
        np.testing.assert_allclose(out[kept], embedded[kept] / (1 - rate), rtol=1e-6)
        patterns.append([kept[tokens == w].all() for w in range(vocab)])
        assert 0 < np.mean(patterns[-1]) < 1
    assert patterns[0] != patterns[1]  # a new mask per call
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(layer(embedded, tokens)), embedded)
    clone = EmbeddingDropout.from_config(layer.get_config())
    assert clone.get_config() == layer.get_config()


def test_language_model_embedding_dropout_zeroes_the_words_input(rng):
    model = TrellisNet(8, 4, 2, vocab_size=7, embedding_dim=4, embedding_dropout=0.5, seed=3)
    tokens = rng.integers(0, 7, size=(3, 9)).astype("int32")
    dropout = model.get_layer("embedding_dropout")
    embedded = model.get_layer("embedding")(tokens)
    out = keras.ops.convert_to_numpy(dropout(embedded, tokens, training=True))
    dropped = np.abs(out).sum(-1) == 0
    assert dropped.any() and not dropped.all()
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(model(tokens)), keras.ops.convert_to_numpy(model(tokens, training=False))
    )


def _np_log_softmax(z, axis=-1):
    z = z - z.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


def test_mixture_of_softmaxes_matches_numpy(rng):
    vocab, emb, hidden, experts = 7, 4, 6, 3
    model = TrellisNet(hidden, emb, 2, vocab_size=vocab, embedding_dim=emb, num_experts=experts)
    mos = model.get_layer("mos")
    for weight in mos.weights:  # non-trivial prior and latents
        weight.assign(rng.normal(size=weight.shape).astype("float32"))
    tokens = rng.integers(0, vocab, size=(2, 5)).astype("int32")
    log_p = keras.ops.convert_to_numpy(model(tokens))
    assert log_p.shape == (2, 5, vocab)
    np.testing.assert_allclose(np.exp(log_p).sum(-1), 1.0, rtol=1e-5)

    h = keras.ops.convert_to_numpy(model.get_layer("trellis")(model.get_layer("embedding")(tokens))).astype("float64")
    L, b, P = (
        keras.ops.convert_to_numpy(w).astype("float64") for w in (mos.latent_kernel, mos.latent_bias, mos.prior_kernel)
    )
    E = keras.ops.convert_to_numpy(model.get_layer("embedding").embeddings).astype("float64")
    expected = np.zeros((2, 5, vocab))
    for i in range(2):
        for t in range(5):
            prior = np.exp(_np_log_softmax(h[i, t] @ P))
            for k in range(experts):
                latent = np.tanh(h[i, t] @ L[:, k * emb : (k + 1) * emb] + b[k * emb : (k + 1) * emb])
                expected[i, t] += prior[k] * np.exp(_np_log_softmax(latent @ E.T))
    np.testing.assert_allclose(np.exp(log_p), expected, rtol=1e-4, atol=1e-6)
    # The log-probabilities are valid logits: the from_logits loss is -log p.
    y = rng.integers(0, vocab, size=(2, 5))
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)(y, log_p)
    picked = np.take_along_axis(np.log(expected), y[..., None], axis=-1)
    np.testing.assert_allclose(float(loss), -picked.mean(), rtol=1e-4)


def test_mixture_layers_config_and_untied_head(rng):
    layer = MixtureOfSoftmaxes(4, 3, name="m")
    assert MixtureOfSoftmaxes.from_config(layer.get_config()).get_config() == layer.get_config()
    combine = MixtureLogProbabilities()
    assert MixtureLogProbabilities.from_config(combine.get_config()).get_config() == combine.get_config()
    model = TrellisNet(6, 4, 2, vocab_size=9, embedding_dim=5, tie_weights=False, num_experts=2, aux_frequency=1)
    out = model(rng.integers(0, 9, size=(2, 3)).astype("int32"))
    assert tuple(out["aux"].shape) == (2, 3, 2, 9)
    for key in ("output", "aux"):
        np.testing.assert_allclose(np.exp(keras.ops.convert_to_numpy(out[key])).sum(-1), 1.0, rtol=1e-5)
    untied_weights = [w.path for w in model.get_layer("embedding").weights]
    assert untied_weights == ["embedding/embeddings"]  # no unused output matrix


def test_stateful_language_model_fits_resets_and_reloads(rng, tmp_path):
    vocab, batch = 9, 4
    stream = rng.integers(0, vocab, size=(batch * 3, 8)).astype("int32")
    model = TrellisNet(
        10,
        5,
        3,
        vocab_size=vocab,
        embedding_dim=5,
        num_experts=2,
        embedding_dropout=0.1,
        weight_dropout=0.2,
        dropout=0.1,
        aux_frequency=2,
        stateful=True,
        batch_size=batch,
        seed=1,
    )
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model.compile(
        optimizer=keras.optimizers.Adam(0.01), jit_compile=support.backend_has_xla(), **deep_supervision(loss, 0.3)
    )
    targets = {"output": stream, "aux": stream}
    history = model.fit(
        stream, targets, batch_size=batch, epochs=2, shuffle=False, verbose=0, callbacks=[ResetStates()]
    )
    assert np.all(np.isfinite(history.history["loss"]))
    block = model.get_layer("trellis")
    assert np.abs(keras.ops.convert_to_numpy(block.state_h)).max() > 0
    first = model.evaluate(stream, targets, batch_size=batch, verbose=0, callbacks=[ResetStates()])
    again = model.evaluate(stream, targets, batch_size=batch, verbose=0, callbacks=[ResetStates()])
    np.testing.assert_allclose(first, again, rtol=1e-5)  # each evaluation starts from zeros
    path = str(tmp_path / "stateful.keras")
    model.save(path)
    reloaded = keras.saving.load_model(path)
    for m in (model, reloaded):
        m.get_layer("trellis").reset_states()
    np.testing.assert_allclose(
        reloaded.predict(stream, batch_size=batch, verbose=0)["output"],
        model.predict(stream, batch_size=batch, verbose=0)["output"],
        rtol=1e-5,
        atol=1e-6,
    )


def test_bad_language_model_options():
    with pytest.raises(ValueError, match="batch_size"):
        TrellisNet(8, 4, 2, vocab_size=5, embedding_dim=4, stateful=True)
    with pytest.raises(ValueError, match="embedding_dropout"):
        TrellisNet(8, 4, 2, vocab_size=5, embedding_dim=4, embedding_dropout=1.5)
    with pytest.raises(ValueError, match="token inputs"):
        TrellisNet(8, 4, 2, input_dim=3, num_outputs=2, num_experts=3)
    with pytest.raises(ValueError, match="num_experts"):
        TrellisNet(8, 4, 2, vocab_size=5, embedding_dim=4, num_experts=0)
