"""One `keras_tuner.HyperModel` per model family of the zoo.

`build(hp)` samples the family's search space and calls the recipe's zoo
builder (through `keras_seq.zoo.train.build`); `fit(hp, model, ...)` trains
on the recipe's zoo pipelines (`train.recipe_dataset`), so a trial is a zoo
training run with other model arguments. The objective is the *predictor's*
validation score (for the SCRBM, Algorithm 1, not the teacher-forcing
trainer), checked every `check_every` epochs with early stopping after
`patience_checks` checks without improvement (`zoo.train.selection_callbacks`,
as every zoo run selects); the best check's weights are restored, and `fit`
returns a dict of the predictor's validation metrics.
"""

import dataclasses
import inspect
import math
import time

import keras
import keras_tuner as kt

from keras_seq.layers import validation
from keras_seq.tuning import spaces
from keras_seq.zoo import callbacks as zoo_callbacks
from keras_seq.zoo import recipes as zoo_recipes
from keras_seq.zoo import registry
from keras_seq.zoo import train


def family_of(recipe):
    """'lmn', 'rnn', 'scrbm' or 'trellisnet' for a zoo recipe."""
    kind = recipe.model.get("kind")
    if recipe.builder == "pretrained_lmn_model" or kind in ("lmn_a", "lmn_b"):
        return "lmn"
    if kind == "scrbm":
        return "scrbm"
    if kind in ("simple_rnn", "gru", "lstm"):
        return "rnn"
    if "trellis" in recipe.builder:
        return "trellisnet"
    raise ValueError(f"Recipe {recipe.name!r} (builder {recipe.builder!r}, kind {kind!r}) has no tuning family.")


class RecipeHyperModel(kt.HyperModel):
    """Base class: a zoo recipe, a named search space, the zoo pipelines.

    Args:
        recipe: A `Recipe` or a recipe name.
        space: A space name of the family (`"paper"`, `"compact"`, ...) or a
            `spaces.SearchSpace`.
        data_dir: The benchmark data folder (`keras_seq.data`'s default if None).
        quick: Tiny data (the zoo's `--quick` subset); sizes come from the space.
        epochs: Epochs per trial (default: 1 if quick, else the recipe's).
        seed: Seed set before each trial's model is built.
        verbose: Keras verbosity of each trial's fit.
        **overrides: Range overrides of the space (see `spaces.search_space`).
    """

    family = None

    def __init__(self, recipe, space="paper", data_dir=None, quick=False, epochs=None, seed=0, verbose=0, **overrides):
        recipe = zoo_recipes.get(recipe) if isinstance(recipe, str) else recipe
        if family_of(recipe) != self.family:
            raise ValueError(
                f"Recipe {recipe.name!r} is of the {family_of(recipe)} family, not {self.family}; "
                f"use keras_seq.tuning.hypermodel_for(recipe)."
            )
        if recipe.valid_split is None:
            raise ValueError(
                f"Recipe {recipe.name!r} has no validation split (its protocol has no model selection); "
                "tuning needs one."
            )
        if epochs is not None:
            validation.positive_int("epochs", epochs)
        if isinstance(space, spaces.SearchSpace):
            if overrides:
                raise ValueError("Give range overrides with a space name, not with a SearchSpace.")
            if space.family != self.family:
                raise ValueError(f"Space {space.name!r} is for the {space.family} family, not {self.family}.")
        else:
            space = spaces.search_space(self.family, space, **overrides)
        super().__init__(name=f"{recipe.name}_{space.name}")
        self.recipe, self.space = recipe, space
        self.data_dir, self.quick, self.seed, self.verbose = data_dir, quick, seed, verbose
        self.epochs = epochs or (1 if quick else recipe.epochs)
        self.objective = kt.Objective(f"predictor_{recipe.monitor}", recipe.monitor_mode)
        self._data = None
        self._order = zoo_callbacks.ShuffleEpoch()  # every trial sees the same batches in epoch k
        self._built = None
        self._check_builder_arguments()

    # -- hooks for the families -------------------------------------------
    def builder_arguments(self, values):
        """Sampled space values -> keyword arguments of the zoo builder."""
        return {k: v for k, v in values.items() if k not in ("check_every", "patience_checks")}

    def builder(self):
        return registry.family(self.recipe.builder).build

    # -----------------------------------------------------------------------
    def _check_builder_arguments(self):
        """Every tuned argument must be one the builder takes (before any trial)."""
        accepted = inspect.signature(self.builder()).parameters
        probe = {name: spec.points()[0] for name, spec in self.space.ranges.items()}
        for name in self.builder_arguments(probe):
            if name not in accepted and not (name == "l2" and set(self.space.ranges["l2"].points()) <= {0}):
                raise ValueError(
                    f"The search space {self.space.name!r} tunes {name!r}, which the builder "
                    f"{self.recipe.builder!r} of recipe {self.recipe.name!r} does not take "
                    f"(it takes: {', '.join(p for p in accepted if p != 'train')})."
                    + (" Use --set l2=0 to search without weight decay." if name == "l2" else "")
                )

    def build_models(self, arguments):
        accepted = inspect.signature(self.builder()).parameters
        arguments = {k: v for k, v in arguments.items() if k in accepted}
        model = {**self.recipe.model, **(self.recipe.quick_model if self.quick else {}), **arguments}
        recipe = dataclasses.replace(self.recipe, model=model, quick_model={})
        built, _ = train.build(recipe, self.quick, self.data_dir)
        return built

    def build(self, hp):
        values = self.space.define(hp)
        keras.utils.set_random_seed(self.seed)
        self._built = self.build_models(self.builder_arguments(values))
        trainer = self._built.trainer
        if trainer.built and trainer.optimizer is not None and not trainer.optimizer.built:
            # Built now, so that KerasTuner's reload of a trial's checkpoint
            # (optimizer state included) loads it instead of skipping it.
            trainer.optimizer.build(trainer.trainable_variables)
        return trainer

    def datasets(self):
        """(train, validation for the trainer, validation for the predictor),
        the zoo's pipelines, made once per hypermodel."""
        if self._data is None:
            recipe = self.recipe
            training = train.recipe_dataset(
                recipe,
                recipe.train_split,
                self.data_dir,
                self.quick,
                shuffle=True,
                seed=self.seed,
                epoch=self._order.epoch,
            )
            valid = train.recipe_dataset(recipe, recipe.valid_split, self.data_dir, self.quick)
            valid_predictor = train.predictor_inputs(recipe, valid)
            self._data = (training, valid, valid_predictor)
        return self._data

    def fit(self, hp, model, *args, callbacks=None, epochs=None, verbose=None, initial_epoch=0, **kwargs):
        if args or kwargs:
            raise TypeError(
                f"{type(self).__name__}.fit trains on the recipe's pipelines; it takes no "
                f"data or fit arguments (got {len(args)} positional, {sorted(kwargs)})."
            )
        start = time.perf_counter()
        built = self._built
        if built is None or built.trainer is not model:
            raise ValueError("fit() trains the model that this hypermodel's build() returned last.")
        training, valid, valid_predictor = self.datasets()
        every = hp.values.get("check_every", self.recipe.check_every)
        selecting, stopper = train.selection_callbacks(
            self.recipe,
            built,
            valid,
            every=every,
            patience=hp.values.get("patience_checks"),
            log_as=self.objective.name,
        )
        history = train.fit(
            built,
            training,
            valid,
            epochs or self.epochs,
            every,
            [self._order, *selecting, *(callbacks or [])],
            self.verbose if verbose is None else verbose,
            initial_epoch=initial_epoch,
        )  # Hyperband continues a model
        scores = built.predictor.evaluate(valid_predictor, return_dict=True, verbose=0, callbacks=list(built.callbacks))
        results = {f"predictor_val_{k}": float(v) for k, v in scores.items()}
        results[self.objective.name] = stopper.best_value if stopper.best_epoch else math.nan
        results["epochs_run"] = float(len(history["loss"]))
        results["trial_seconds"] = round(time.perf_counter() - start, 1)
        return results

    @property
    def predictor(self):
        """The predictor of the model last built (shares the trainer's weights)."""
        return None if self._built is None else self._built.predictor


class LMNHyperModel(RecipeHyperModel):
    """LMN-A/LMN-B (and the pretrained LMN-B): functional/memory unit pairs
    as one categorical hyperparameter, L2 weight decay, learning rate."""

    family = "lmn"

    def builder_arguments(self, values):
        arguments = super().builder_arguments(values)
        arguments["units"], arguments["memory_units"] = spaces.parse_units_pair(arguments.pop("units_pair"))
        return arguments


class RecurrentHyperModel(RecipeHyperModel):
    """The SimpleRNN / GRU / LSTM baselines."""

    family = "rnn"


class SCRBMHyperModel(RecipeHyperModel):
    """The SCRBM: teacher-forcing trainer, scored by its Algorithm 1 predictor."""

    family = "scrbm"


class TrellisNetHyperModel(RecipeHyperModel):
    """TrellisNet (`zoo.builders.trellisnet_model`): levels, hidden width,
    dropouts, deep-supervision weight, dilation schedule."""

    family = "trellisnet"

    def builder_arguments(self, values):
        arguments = super().builder_arguments(values)
        if "dilations" in arguments:
            arguments["dilations"] = spaces.parse_dilations(arguments["dilations"])
        model = {**self.recipe.model, **(self.recipe.quick_model if self.quick else {})}
        levels = arguments.get("num_levels", model.get("num_levels", 8))
        hidden = arguments.get("hidden_units", model.get("hidden_units", 100))
        if "output_units" in model or "hidden_units" in arguments:
            # the output is the last output_units channels of h: never wider
            arguments["output_units"] = min(model.get("output_units", 50), hidden)
        if "aux_weight" in arguments:
            if arguments["aux_weight"]:  # auxiliary outputs every aux_frequency levels (< num_levels)
                frequency = model.get("aux_frequency") or max(1, (levels - 1) // 2)
                arguments["aux_frequency"] = frequency if frequency < levels else max(1, (levels - 1) // 2)
            else:
                arguments["aux_frequency"] = None
        return arguments


HYPERMODELS = {
    "lmn": LMNHyperModel,
    "rnn": RecurrentHyperModel,
    "scrbm": SCRBMHyperModel,
    "trellisnet": TrellisNetHyperModel,
}


def hypermodel_for(recipe, space="paper", **kwargs):
    """The family's HyperModel for a recipe (or recipe name)."""
    recipe = zoo_recipes.get(recipe) if isinstance(recipe, str) else recipe
    return HYPERMODELS[family_of(recipe)](recipe, space, **kwargs)
