"""keras-seq: sequence models from the research literature as Keras 3 layers."""

from keras_seq import layers
from keras_seq.layers import SCRBM
from keras_seq.layers import SCRBMCell

__version__ = "0.1.0"

__all__ = ["layers", "SCRBM", "SCRBMCell", "__version__"]
