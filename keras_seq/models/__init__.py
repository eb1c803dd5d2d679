"""Ready-made models assembled from `keras_seq.layers`: the TrellisNet model
(`trellisnet`), its language-model layers (`language_model_layers`), its
callback (`callbacks`) and its deep-supervision loss (`losses`)."""

from keras_seq.models.callbacks import ResetStates
from keras_seq.models.language_model_layers import EmbeddingDropout
from keras_seq.models.language_model_layers import MixtureLogProbabilities
from keras_seq.models.language_model_layers import MixtureOfSoftmaxes
from keras_seq.models.losses import DeepSupervisionLoss
from keras_seq.models.losses import deep_supervision
from keras_seq.models.trellisnet import TrellisNet

__all__ = [
    "DeepSupervisionLoss",
    "EmbeddingDropout",
    "MixtureLogProbabilities",
    "MixtureOfSoftmaxes",
    "ResetStates",
    "TrellisNet",
    "deep_supervision",
]
