"""keras-seq: sequence models from the research literature as Keras 3 layers."""

from keras_seq import layers
from keras_seq import models
from keras_seq import pretraining
from keras_seq.layers import LMN
from keras_seq.layers import LinearMemoryCell
from keras_seq.layers import SCRBM
from keras_seq.layers import SCRBMCell
from keras_seq.layers import TrellisBlock
from keras_seq.models import TrellisNet

__version__ = "0.1.0"

__all__ = [
    "layers",
    "models",
    "pretraining",
    "LMN",
    "LinearMemoryCell",
    "SCRBM",
    "SCRBMCell",
    "TrellisBlock",
    "TrellisNet",
    "__version__",
]
