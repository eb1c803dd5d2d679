"""Ready-made models assembled from `keras_seq.layers`."""

from keras_seq.models.trellisnet import DeepSupervisionLoss
from keras_seq.models.trellisnet import EmbeddingDropout
from keras_seq.models.trellisnet import MixtureLogProbabilities
from keras_seq.models.trellisnet import MixtureOfSoftmaxes
from keras_seq.models.trellisnet import ResetStates
from keras_seq.models.trellisnet import TrellisNet
from keras_seq.models.trellisnet import deep_supervision

__all__ = [
    "DeepSupervisionLoss",
    "EmbeddingDropout",
    "MixtureLogProbabilities",
    "MixtureOfSoftmaxes",
    "ResetStates",
    "TrellisNet",
    "deep_supervision",
]
