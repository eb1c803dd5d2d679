"""Keras 3 sequence layers: backend-agnostic, `keras.ops` only."""

from keras_seq.layers.feature_embedding import FeatureEmbedding
from keras_seq.layers.last_step import LastStep
from keras_seq.layers.linear_memory import LMN
from keras_seq.layers.linear_memory import LinearMemoryCell
from keras_seq.layers.ngram_convolution import MaskedGlobalMaxPooling1D
from keras_seq.layers.ngram_convolution import NgramConvolution
from keras_seq.layers.scrbm import SCRBM
from keras_seq.layers.scrbm import SCRBMCell
from keras_seq.layers.trellis import TrellisBlock

__all__ = [
    "FeatureEmbedding",
    "LMN",
    "LastStep",
    "LinearMemoryCell",
    "MaskedGlobalMaxPooling1D",
    "NgramConvolution",
    "SCRBM",
    "SCRBMCell",
    "TrellisBlock",
]
