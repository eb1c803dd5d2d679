"""TensorFlow Datasets builders for the file-based sets, so that

    import keras_seq.data.tfds_builders  # registers the builders
    tfds.load("keras_seq_jsb_chorales", split="train")

works, in Colab or offline. A builder reads its source files from the TFDS
manual folder (`download_config=tfds.download.DownloadConfig(manual_dir=...)`)
when one is given, else from wherever `keras_seq.data` finds them
($KERAS_SEQ_DATA_DIR, the Keras cache, or a checksummed download). Each
example is one sequence: `{"index", "inputs": (time, ...), "targets": (time, ...)}`,
where `index` is its position in `keras_seq.data.load_arrays` (TFDS shuffles
the order of examples when it writes them).
"""

import os

import numpy as np
import tensorflow_datasets as tfds

from keras_seq.data import load_arrays
from keras_seq.data import registry

BUILT = (
    "jsb_chorales",
    "nottingham",
    "piano_midi",
    "musedata",
    "ocr_letters",
    "conll2000_chunking",
    "wsj_pos",
)
PREFIX = "keras_seq_"


def _features(info):
    """Features of the default options (what `load_arrays(name)` returns)."""
    frames = info.task == "next_frame"
    return tfds.features.FeaturesDict(
        {
            "index": tfds.features.Scalar(dtype=np.int64),
            "inputs": tfds.features.Tensor(shape=(None,) + tuple(info.input_shape), dtype=np.dtype(info.input_dtype)),
            "targets": tfds.features.Tensor(
                shape=(None,) + (tuple(info.input_shape) if frames else ()),
                dtype=np.float32 if frames else np.int32,
            ),
        }
    )


def _source_dir(dl_manager):
    try:
        manual = dl_manager.manual_dir
    except AssertionError:  # no manual folder was configured or it is missing
        return None
    return os.fspath(manual) if manual and os.path.isdir(manual) else None


def make_builder(name):
    """A `tfds.core.GeneratorBasedBuilder` class for dataset `name`."""
    info = registry.get(name).info

    def _info(self):
        return self.dataset_info_from_configs(
            description=info.description,
            features=_features(info),
            homepage="https://github.com/keras-seq/keras-seq",
            citation=info.source,
        )

    def _split_generators(self, dl_manager):
        self._source_dir = _source_dir(dl_manager) or self._source_dir
        return {split: self._generate_examples(split) for split in info.splits}

    def _generate_examples(self, split):
        sequences = load_arrays(name, split, data_dir=self._source_dir)
        for i, (x, y) in enumerate(zip(sequences.inputs, sequences.targets)):
            yield i, {"index": i, "inputs": x, "targets": y}

    def __init__(self, *, source_dir=None, **kwargs):
        self._source_dir = source_dir
        tfds.core.GeneratorBasedBuilder.__init__(self, **kwargs)

    return type(
        "".join(part.title() for part in (PREFIX + name).split("_")),
        (tfds.core.GeneratorBasedBuilder,),
        {
            "name": PREFIX + name,
            "VERSION": tfds.core.Version("1.0.0"),
            "RELEASE_NOTES": {"1.0.0": "First release."},
            "MANUAL_DOWNLOAD_INSTRUCTIONS": (
                f"Place {', '.join(info.files) or 'the files'} under the manual folder, "
                "keeping their sub-folders, or set $KERAS_SEQ_DATA_DIR."
            ),
            "__init__": __init__,
            "_info": _info,
            "_split_generators": _split_generators,
            "_generate_examples": _generate_examples,
            "__module__": __name__,
        },
    )


BUILDERS = {name: make_builder(name) for name in BUILT}
