"""`TrellisNet` as a registered Keras model class: its config round trip,
`.keras` save / load with identical predictions, and the TrellisBlock
options it passes through."""

import inspect

import keras
import numpy as np
import pytest

from keras_seq.layers.trellis import TrellisBlock
from keras_seq.models.trellisnet import TrellisNet
from keras_seq.models.trellisnet import deep_supervision


def _features_model():
    return TrellisNet(
        8,
        4,
        3,
        input_dim=3,
        num_outputs=2,
        embedding_dim=5,
        return_sequences=False,
        output_activation="sigmoid",
        input_dropout=0.1,
        output_dropout=0.1,
        dilations=[1, 2],
        kernel_size=3,
        forget_bias=1.0,
        seed=2,
    )


def _tied_language_model():
    return TrellisNet(
        10, 6, 3, vocab_size=11, embedding_dim=6, embedding_dropout=0.1, dropout=0.1, weight_dropout=0.1, seed=1
    )


def _aux_language_model():
    return TrellisNet(12, 5, 4, vocab_size=9, embedding_dim=5, aux_frequency=2, dilations=[1, 2])


def _mixture_language_model():
    return TrellisNet(8, 4, 2, vocab_size=7, embedding_dim=4, num_experts=3, aux_frequency=1, weight_norm=False)


def _tokens(vocab):
    return lambda rng: rng.integers(0, vocab, size=(4, 9)).astype("int32")


MODELS = {  # kind -> (model, inputs)
    "features": (_features_model, lambda rng: rng.normal(size=(4, 9, 3)).astype("float32")),
    "tied_language_model": (_tied_language_model, _tokens(11)),
    "aux_outputs": (_aux_language_model, _tokens(9)),
    "num_experts": (_mixture_language_model, _tokens(7)),
}


def _randomise(model, rng):
    """Non-trivial weights (gains, biases, MoS), so that a lost weight shows."""
    for weight in model.weights:
        weight.assign(rng.normal(scale=0.3, size=weight.shape).astype(weight.dtype))


def _assert_same_predictions(a, b, x):
    pa, pb = a.predict(x, verbose=0), b.predict(x, verbose=0)
    if isinstance(pa, dict):
        assert set(pa) == set(pb) == {"output", "aux"}
        for key in pa:
            np.testing.assert_allclose(pb[key], pa[key], rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_allclose(pb, pa, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_config_round_trip(kind):
    make, _ = MODELS[kind]
    model = make()
    config = model.get_config()
    assert "layers" not in config  # the constructor's arguments, not a layer graph
    clone = TrellisNet.from_config(config)
    assert type(clone) is TrellisNet
    assert clone.get_config() == config
    assert clone.name == model.name == "trellisnet"
    assert [w.shape for w in clone.weights] == [w.shape for w in model.weights]
    assert [w.path for w in clone.weights] == [w.path for w in model.weights]
    # Every constructor argument is in the config, the block's included.
    names = set(inspect.signature(TrellisNet.__init__).parameters) - {"self", "block_options"}
    assert names | set(TrellisNet.block_options()) == set(config)


def test_config_carries_the_block_options():
    model = TrellisNet(
        8,
        4,
        2,
        input_dim=3,
        num_outputs=2,
        kernel_size=3,
        dilations=(1, 4),
        forget_bias=2.0,
        weight_norm=False,
        dropout=0.2,
        hidden_kernel_initializer=keras.initializers.Orthogonal(seed=3),
        bias_regularizer=keras.regularizers.L2(0.01),
    )
    clone = TrellisNet.from_config(model.get_config())
    block = clone.get_layer("trellis")
    assert isinstance(block, TrellisBlock)
    assert (block.kernel_size, block.dilations, block.forget_bias, block.weight_norm, block.dropout) == (
        3,
        (1, 4),
        2.0,
        False,
        0.2,
    )
    assert isinstance(block.hidden_kernel_initializer, keras.initializers.Orthogonal)
    np.testing.assert_allclose(block.bias_regularizer.l2, 0.01)
    # The defaults are TrellisBlock's.
    defaults = TrellisNet(8, 4, 2, input_dim=3, num_outputs=2).get_layer("trellis")
    assert (defaults.kernel_size, defaults.dilations, defaults.dropout, defaults.weight_norm) == (2, (1,), 0.0, True)


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_keras_file_round_trip(kind, rng, tmp_path):
    make, inputs = MODELS[kind]
    model = make()
    _randomise(model, rng)
    x = inputs(rng)
    path = str(tmp_path / f"{kind}.keras")
    model.save(path)
    reloaded = keras.saving.load_model(path)  # no custom_objects: the classes are registered
    assert type(reloaded) is TrellisNet
    assert reloaded.get_config() == model.get_config()
    _assert_same_predictions(model, reloaded, x)
    if kind == "tied_language_model":  # one matrix for the embedding and the projection
        assert [w.path for w in reloaded.get_layer("embedding").weights] == ["embedding/embeddings"]
        assert isinstance(reloaded.get_layer("embedding"), keras.layers.ReversibleEmbedding)


def test_compiled_keras_file_round_trip(rng, tmp_path):
    """A compiled deep-supervision model reloads compiled, and trains on."""
    model = _aux_language_model()
    model.compile(
        optimizer="adam", **deep_supervision(keras.losses.SparseCategoricalCrossentropy(from_logits=True), 0.3)
    )
    tokens = rng.integers(0, 9, size=(8, 7)).astype("int32")
    targets = {"output": tokens, "aux": tokens}
    model.fit(tokens, targets, epochs=1, verbose=0)
    path = str(tmp_path / "compiled.keras")
    model.save(path)
    reloaded = keras.saving.load_model(path)
    np.testing.assert_allclose(
        reloaded.evaluate(tokens, targets, verbose=0), model.evaluate(tokens, targets, verbose=0), rtol=1e-5
    )
    assert np.isfinite(reloaded.fit(tokens, targets, epochs=1, verbose=0).history["loss"][0])


def test_unknown_block_option_is_a_clear_error():
    typo = r"Unknown TrellisNet option `kernal_size` \(did you mean `kernel_size`\?\)"
    with pytest.raises(ValueError, match=typo):
        TrellisNet(8, 4, 2, input_dim=3, num_outputs=2, kernal_size=3)
    with pytest.raises(ValueError, match="Unknown TrellisNet option `units`.*kernel_size, dilations"):
        TrellisNet(8, 4, 2, input_dim=3, num_outputs=2, units=3)
    with pytest.raises(ValueError, match="sets the TrellisBlock option `return_state` itself"):
        TrellisNet(8, 4, 2, input_dim=3, num_outputs=2, return_state=True)
    with pytest.raises(ValueError, match="kernel_size"):  # validated by the block itself
        TrellisNet(8, 4, 2, input_dim=3, num_outputs=2, kernel_size=0)


def test_block_options_are_trellis_blocks_own():
    options = TrellisNet.block_options()
    block = inspect.signature(TrellisBlock.__init__).parameters
    expected = {"kernel_size", "dilations", "dropout", "weight_dropout", "weight_norm", "forget_bias"}
    assert expected <= set(options)
    assert not {
        "hidden_units",
        "output_units",
        "num_levels",
        "aux_frequency",
        "stateful",
        "seed",
        "return_state",
    } & set(options)
    for name, default in options.items():
        assert block[name].default == default


def test_zoo_builder_exposes_the_block_options():
    """The tuner checks tuned arguments against the builder's signature."""
    from keras_seq.zoo import registry

    builder = registry.family("trellisnet_model").build
    parameters = inspect.signature(builder).parameters
    assert set(TrellisNet.block_options()) <= set(parameters)
    assert {"hidden_units", "input_dropout", "aux_weight", "learning_rate"} <= set(parameters)
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    with pytest.raises(ValueError, match="Unknown TrellisNet option `kernal_size`"):
        builder(task="regression", input_shape=(2,), hidden_units=8, output_units=4, num_levels=2, kernal_size=3)
    built = builder(
        task="regression",
        input_shape=(2,),
        hidden_units=8,
        output_units=4,
        num_levels=2,
        dilations=(1, 2),
        forget_bias=1.0,
    )
    block = built.trainer.get_layer("trellis")
    assert (block.dilations, block.forget_bias) == ((1, 2), 1.0)
