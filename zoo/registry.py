"""The zoo's model families: each registers one builder by name, and a
recipe names its family's builder (`Recipe.builder`).

A builder returns a `Built`: the compiled trainer and predictor and what the
run loop needs besides (a dataset transform, callbacks, a pretraining
report), so nothing is patched onto the models. A family adds itself with

    @registry.register_builder("my_model", data_arguments=lambda info, recipe: {...})
    def my_model(...):
        return registry.Built(model, model)

in a module listed in `FAMILY_MODULES`.
"""

import dataclasses
import importlib
import inspect

# The modules whose import registers the families' builders.
FAMILY_MODULES = ("keras_seq.zoo.builders", "keras_seq.zoo.trellis_builders", "keras_seq.zoo.train_ngram")


@dataclasses.dataclass
class Built:
    """A builder's result. Unpacks as `(trainer, predictor)`.

    Attributes:
        trainer: The compiled model that `fit` trains (for the SCRBM the
            teacher-forcing model, paper eq. 12).
        predictor: The compiled model that is tested (shares the trainer's
            weights; often the trainer itself).
        dataset_map: A `tf.data` map from the pipeline's `(x, y, w)` to what
            the trainer reads (deep supervision: a target per output), or None.
        callbacks: Callbacks that training, evaluation and prediction need
            (stateful resets).
        pretraining_report: What a pretraining step measured (JSON-able), or None.
        trainer_metric_prefix: How the trainer's logs name the predictor's
            metrics: `m` is logged as `prefix + m` (deep supervision's
            outputs dict: `"output_"`); validation selects on the key that
            names the predictor's output.
    """

    trainer: object
    predictor: object
    dataset_map: object = None
    callbacks: tuple = ()
    pretraining_report: dict | None = None
    trainer_metric_prefix: str = ""

    def __iter__(self):
        return iter((self.trainer, self.predictor))


@dataclasses.dataclass(frozen=True)
class Family:
    """A registered builder.

    Attributes:
        name: The name recipes use (`Recipe.builder`).
        build: The builder function; returns a `Built`.
        data_arguments: `(DatasetInfo, Recipe) -> dict` of the builder
            arguments read from the dataset (sizes, task) and the recipe
            (batch size).
        needs_training_data: The builder takes the training `Sequences` as
            `train` (closed-form pretraining).
        run: For families that are not Keras models (counts): a function that
            runs the whole recipe, as `zoo.train.run` does; None otherwise.
    """

    name: str
    build: object
    data_arguments: object = None
    needs_training_data: bool = False
    run: object = None

    @property
    def saves_keras_model(self):
        return self.run is None


FAMILIES = {}


def register_builder(name, data_arguments=None, needs_training_data=False, run=None):
    """Decorator: registers `function` as the builder `name` (see `Family`)."""

    def register(function):
        if name in FAMILIES and FAMILIES[name].build is not function:
            raise ValueError(f"The builder {name!r} is registered twice.")
        FAMILIES[name] = Family(name, function, data_arguments, needs_training_data, run)
        return function

    return register


def family(name):
    """The registered family of builder `name`."""
    for module in FAMILY_MODULES:
        importlib.import_module(module)
    if name not in FAMILIES:
        raise ValueError(f"Unknown builder {name!r}; registered: {', '.join(sorted(FAMILIES))}.")
    return FAMILIES[name]


def builder_arguments(name):
    """The keyword arguments the builder `name` takes (a recipe's `model`
    may set any of them), or None when it takes any (`**arguments`)."""
    parameters = inspect.signature(family(name).build).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    return {p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def effective_arguments(name, model):
    """The model arguments `model` gives the builder `name`, with the
    builder's defaults for those it leaves out: two recipes build the same
    model exactly when these are equal."""
    parameters = inspect.signature(family(name).build).parameters.values()
    defaults = {p.name: p.default for p in parameters if p.default is not inspect.Parameter.empty}
    return {**defaults, **model}
