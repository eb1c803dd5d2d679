"""Ready-made models assembled from `keras_seq.layers`: the TrellisNet model
(`trellisnet`), its language-model layers (`language_model_layers`), its
callback (`callbacks`) and its deep-supervision loss (`losses`); and the
tasks a preset loads into (`Task`, `SequenceTagger`, `PianoRollModel`,
`CharacterLanguageModel`, `MelodyModel`) with their preprocessors (`preprocessors`)."""

from keras_seq.models.callbacks import ResetStates
from keras_seq.models.character_language_model import CharacterLanguageModel
from keras_seq.models.language_model_layers import EmbeddingDropout
from keras_seq.models.language_model_layers import MixtureLogProbabilities
from keras_seq.models.language_model_layers import MixtureOfSoftmaxes
from keras_seq.models.losses import DeepSupervisionLoss
from keras_seq.models.losses import deep_supervision
from keras_seq.models.melody_model import MelodyModel
from keras_seq.models.piano_roll_model import PianoRollModel
from keras_seq.models.preprocessors import CharacterPreprocessor
from keras_seq.models.preprocessors import LetterImagePreprocessor
from keras_seq.models.preprocessors import MelodyPreprocessor
from keras_seq.models.preprocessors import PianoRollPreprocessor
from keras_seq.models.preprocessors import WordPreprocessor
from keras_seq.models.sequence_tagger import SequenceTagger
from keras_seq.models.task import Task
from keras_seq.models.trellisnet import TrellisNet

__all__ = [
    "CharacterLanguageModel",
    "CharacterPreprocessor",
    "DeepSupervisionLoss",
    "EmbeddingDropout",
    "LetterImagePreprocessor",
    "MelodyModel",
    "MelodyPreprocessor",
    "MixtureLogProbabilities",
    "MixtureOfSoftmaxes",
    "PianoRollModel",
    "PianoRollPreprocessor",
    "ResetStates",
    "SequenceTagger",
    "Task",
    "TrellisNet",
    "WordPreprocessor",
    "deep_supervision",
]
