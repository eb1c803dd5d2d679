import re

import keras
import numpy as np
import pytest
from keras.src import testing

from keras_seq.layers import FeatureEmbedding
from tests import support

DIMS = (7, 3, 5)


def reference_feature_embedding(ids, tables):
    """Plain numpy: e_t = sum_j E_j[x_t,j], one table per column."""
    return sum(tables[j][ids[..., j]] for j in range(len(tables)))


def _ids(rng, batch=2, time=4):
    return np.stack([rng.integers(0, d, size=(batch, time)) for d in DIMS], axis=-1).astype("int32")


def test_sums_one_table_per_column(rng):
    layer = FeatureEmbedding(DIMS, 6)
    ids = _ids(rng)
    out = keras.ops.convert_to_numpy(layer(ids))
    table = keras.ops.convert_to_numpy(layer.embeddings)
    tables = np.split(table, np.cumsum(DIMS)[:-1])
    assert [t.shape[0] for t in tables] == list(DIMS)
    np.testing.assert_allclose(out, reference_feature_embedding(ids, tables), rtol=1e-6, atol=1e-6)


def test_same_id_in_two_columns_reads_two_rows(rng):
    """Id 2 of column 0 and id 2 of column 1 are different features."""
    layer = FeatureEmbedding((4, 4), 3, embeddings_initializer="ones")
    layer.build((None, None, 2))
    layer.embeddings.assign(np.arange(24, dtype="float32").reshape(8, 3))
    out = keras.ops.convert_to_numpy(layer(np.array([[[2, 2]]], dtype="int32")))
    np.testing.assert_array_equal(out[0, 0], np.arange(6, 9) + np.arange(18, 21))


def test_gradients_match_finite_differences(rng):
    with support.float64():
        layer = FeatureEmbedding(DIMS, 2, dtype="float64")
        ids = _ids(rng, 2, 3)
        layer.build(ids.shape)
        table = rng.normal(size=(sum(DIMS), 2))
        layer.embeddings.assign(table)
        weight = rng.normal(size=(2, 3, 2))

        def numpy_loss(arrays):
            tables = np.split(arrays[0], np.cumsum(DIMS)[:-1])
            return float(np.sum(np.tanh(reference_feature_embedding(ids, tables)) * weight))

        weight_tensor = keras.ops.convert_to_tensor(weight)
        autodiff = support.gradients(layer, lambda out: keras.ops.sum(keras.ops.tanh(out) * weight_tensor), ids)
        autodiff = [np.asarray(g) for g in autodiff]
        support.assert_gradients_match_finite_differences(
            layer, autodiff, numpy_loss, {"embeddings": table}, ["embeddings"]
        )


def test_mask_zero_masks_the_padding_of_the_first_column(rng):
    ids = _ids(rng)
    ids[0, 2:, 0] = 0
    mask = FeatureEmbedding(DIMS, 4, mask_zero=True).compute_mask(ids)
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(mask), ids[..., 0] != 0)
    assert FeatureEmbedding(DIMS, 4).compute_mask(ids) is None


def test_bad_arguments_and_shapes_are_named():
    with pytest.raises(ValueError, match="input_dims"):
        FeatureEmbedding((), 4)
    with pytest.raises(ValueError, match="output_dim"):
        FeatureEmbedding(DIMS, 0)
    with pytest.raises(ValueError, match=r"ids of shape \(batch, time, 3\).*got shape \(2, 4, 2\)"):
        FeatureEmbedding(DIMS, 4)(np.zeros((2, 4, 2), "int32"))


@pytest.mark.parametrize(
    "bad,message",
    [
        (((0, 1), 7), r"\[0, 3\) \(column 1\); got .*7.* at \(0, 1, 1\)"),  # a valid row of column 2's table
        (((1, 0), -1), r"\[0, 7\) \(column 0\); got .*-1.* at \(1, 0, 0\)"),
        (((0, 2), 1.5), r"\[0, 5\) \(column 2\); got .*1\.5.* at \(0, 2, 2\)"),
    ],
)
def test_ids_outside_their_columns_range_are_named(rng, bad, message):
    (row, step), value = bad
    ids = _ids(rng).astype("float32")
    ids[row, step, {7: 1, -1: 0, 1.5: 2}[value]] = value
    with pytest.raises(ValueError, match="FeatureEmbedding ids must be integers in " + message):
        FeatureEmbedding(DIMS, 4)(ids)


def test_ids_outside_their_range_are_named_in_a_compiled_step_too(rng):
    ids = _ids(rng)
    ids[0, 1, 1] = 7
    x = keras.Input((None, 3), dtype="int32")
    model = keras.Model(x, FeatureEmbedding(DIMS, 4)(x))
    # Traced on TensorFlow (graph mode: XLA would drop the assert, the layer
    # poisons the output instead) and on JAX (jit); eager on torch.
    model.compile(jit_compile=keras.backend.backend() == "jax")
    if keras.backend.backend() == "torch":  # eager: the values themselves are checked
        message = r"\[0, 3\) \(column 1\); got .*7.* at \(0, 1, 1\)"
    else:
        message = re.escape(f"[0, n), n the vocabulary size of their column ({list(DIMS)}); got other values")
    with pytest.raises(Exception, match="FeatureEmbedding ids must be integers in " + message):
        model.predict(ids, verbose=0)


def test_config_round_trip_and_saving(tmp_path, rng):
    x = keras.Input((None, 3), dtype="int32")
    model = keras.Model(x, keras.layers.Dense(2)(FeatureEmbedding(DIMS, 4, mask_zero=True, name="features")(x)))
    ids = _ids(rng)
    model.save(tmp_path / "m.keras")
    loaded = keras.saving.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(loaded(ids)), keras.ops.convert_to_numpy(model(ids)), rtol=1e-6, atol=1e-6
    )
    assert loaded.get_layer("features").get_config()["input_dims"] == list(DIMS)


class FeatureEmbeddingLayerTest(testing.TestCase):
    def test_layer_harness(self):
        ids = _ids(np.random.default_rng(0), 2, 4)
        self.run_layer_test(
            FeatureEmbedding,
            init_kwargs={"input_dims": DIMS, "output_dim": 5, "mask_zero": True},
            input_data=ids,
            expected_output_shape=(2, 4, 5),
            expected_num_trainable_weights=1,
            expected_num_non_trainable_weights=0,
            supports_masking=True,
        )
