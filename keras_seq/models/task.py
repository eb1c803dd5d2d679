"""`Task`: a trained network with the preprocessor that feeds it a user's
own data; the base class of what a preset loads into
(`keras_seq.presets.load`)."""

import keras
import numpy as np


@keras.saving.register_keras_serializable(package="keras_seq")
class Task(keras.Model):
    """A `keras.Model` that runs `backbone` (any built Keras model, e.g. a
    zoo recipe's predictor) and holds the `preprocessor` that makes its
    inputs (`keras_seq.models.preprocessors`).

    The subclasses add what a user calls on their own data:
    `SequenceTagger.label`, `PianoRollModel.generate` and `score`,
    `CharacterLanguageModel.generate` and `score`. A task saves and loads
    like any Keras model (`task.save("m.keras")`), preprocessor included,
    and compiles, fits and evaluates as its backbone does.

    Args:
        backbone: The network, built.
        preprocessor: A `keras_seq.models.preprocessors.Preprocessor`, or None.
        **kwargs: `keras.Model` arguments (`name`).

    Example:

    >>> backbone = keras.Sequential([keras.Input((None, 3)), keras.layers.Dense(2)])
    >>> task = Task(backbone)
    >>> task.predict_steps(np.ones((1, 4, 3))).shape
    (1, 4, 2)
    """

    def __init__(self, backbone, preprocessor=None, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(backbone, keras.Model) or not backbone.built:
            raise ValueError(
                f"{type(self).__name__} needs a built keras.Model as its backbone; got "
                f"{type(backbone).__name__}{'' if getattr(backbone, 'built', True) else ' (not built)'}."
            )
        self.backbone = backbone
        self.preprocessor = preprocessor
        self.built = True

    def call(self, inputs, training=None):
        return self.backbone(inputs, training=training)

    def predict_steps(self, inputs):
        """The backbone's outputs for one batch of inputs, as a numpy array
        (a compiled predict step: no progress bar, no retracing per call of
        one shape)."""
        return np.asarray(keras.ops.convert_to_numpy(self.backbone.predict_on_batch(inputs)))

    def get_config(self):
        config = {
            "name": self.name,
            "trainable": self.trainable,
            "backbone": keras.saving.serialize_keras_object(self.backbone),
        }
        if self.preprocessor is not None:
            config["preprocessor"] = keras.saving.serialize_keras_object(self.preprocessor)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["backbone"] = keras.saving.deserialize_keras_object(config["backbone"], custom_objects=custom_objects)
        if config.get("preprocessor") is not None:
            config["preprocessor"] = keras.saving.deserialize_keras_object(
                config["preprocessor"], custom_objects=custom_objects
            )
        return cls(**config)


def batches(lengths, batch_size):
    """Indexes into `lengths` in batches of similar lengths (longest first),
    so that padding stays short."""
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer; got {batch_size!r}.")
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


def check_positive(name, value, kinds):
    """Raises a ValueError naming `name` unless `value` is a positive `kinds` (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, kinds) or not value > 0:
        raise ValueError(f"{name} must be a positive {'integer' if kinds is int else 'number'}; got {value!r}.")
