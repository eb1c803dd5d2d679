import numpy as np
import tensorflow_datasets as tfds  # noqa: E402

import keras_seq.data as data  # noqa: E402
from keras_seq.data import tfds_builders  # noqa: E402


def test_jsb_builder_prepares_offline_and_loads_with_tfds(shared_data_dir, tmp_path):
    builder = tfds_builders.BUILDERS["jsb_chorales"](data_dir=str(tmp_path), source_dir=shared_data_dir)
    builder.download_and_prepare(download_config=tfds.download.DownloadConfig(manual_dir=shared_data_dir))
    assert {s: builder.info.splits[s].num_examples for s in ("train", "valid", "test")} == {
        "train": 229,
        "valid": 76,
        "test": 77,
    }
    dataset = tfds.load("keras_seq_jsb_chorales", split="test", data_dir=str(tmp_path))
    expected = data.load_arrays("jsb_chorales", "test", data_dir=shared_data_dir)
    seen = set()
    for example in dataset:
        i = int(example["index"])
        np.testing.assert_array_equal(example["inputs"].numpy(), expected.inputs[i])
        np.testing.assert_array_equal(example["targets"].numpy(), expected.targets[i])
        seen.add(i)
    assert seen == set(range(77))


def test_every_file_based_set_has_a_builder():
    assert set(tfds_builders.BUILDERS) == set(tfds_builders.BUILT)
    for name, builder in tfds_builders.BUILDERS.items():
        assert builder.name == "keras_seq_" + name
