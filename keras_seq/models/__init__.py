"""Ready-made models assembled from `keras_seq.layers`."""

from keras_seq.models.trellisnet import DeepSupervisionLoss
from keras_seq.models.trellisnet import TrellisNet
from keras_seq.models.trellisnet import deep_supervision

__all__ = ["DeepSupervisionLoss", "TrellisNet", "deep_supervision"]
