"""The TrellisNet family of the zoo (builder `trellisnet_model`): one
`keras_seq.models.TrellisNet` with the head, loss and metrics of the
dataset's task (zoo.tasks), as the other builders return them."""

import inspect

import keras

from keras_seq.models.callbacks import ResetStates
from keras_seq.models.losses import deep_supervision
from keras_seq.models.trellisnet import TrellisNet
from keras_seq.zoo import tasks
from keras_seq.zoo.optimizers import make_optimizer
from keras_seq.zoo.registry import Built
from keras_seq.zoo.registry import register_builder


def _deep_supervision_targets(x, y, *weights):
    """tf.data map: the same targets for the main and auxiliary outputs."""
    return (x, {"output": y, "aux": y}) + weights


def _data_arguments(info, recipe):
    """Sizes and task from the dataset; the batch size (stateful models have a static one)."""
    return dict(
        task=info.task,
        num_classes=info.num_classes,
        input_shape=info.input_shape,
        vocabulary_size=info.vocabulary_size,
        batch_size=recipe.batch_size,
    )


def _with_block_options(builder):
    """Lists `TrellisNet.block_options()` (names and defaults) in the
    signature of `builder`, whose `**block_options` forwards them: the
    signature is what the tuner checks tuned arguments against and filters
    them by (`inspect.signature`), so each option is a named parameter there."""
    signature = inspect.signature(builder)
    own = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    forwarded = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default)
        for name, default in TrellisNet.block_options().items()
    ]
    builder.__signature__ = signature.replace(parameters=own + forwarded)
    return builder


@register_builder("trellisnet_model", data_arguments=_data_arguments)
@_with_block_options
def trellisnet_model(
    task="classification",
    num_classes=None,
    input_shape=(),
    vocabulary_size=None,
    batch_size=None,
    hidden_units=100,
    output_units=50,
    num_levels=8,
    embedding_dim=None,
    input_dropout=0.0,
    output_dropout=0.0,
    embedding_dropout=0.0,
    aux_frequency=None,
    aux_weight=0.0,
    num_experts=None,
    stateful=False,
    optimizer="adam",
    learning_rate=1e-3,
    clipnorm=None,
    seed=None,
    **block_options,
):
    """A TrellisNet for a `keras_seq.data` task (`DatasetInfo.task`):

    - `classification` (sequential / permuted MNIST): the head at the last
      step, logits, sparse cross-entropy, `accuracy`;
    - `regression` (adding problem): a linear unit at the last step, MSE;
    - `next_frame` (piano rolls): sigmoid per key at every step, binary
      cross-entropy, `frame_accuracy` and `frame_nll` over the real frames;
    - `labelling` with tokens (copy memory): a learned embedding, logits at
      every step, `sequence_error` and `bits_per_event`;
    - `next_token` (PTB streams): a language model with tied embeddings,
      optional mixture of softmaxes (log-probabilities, which are also exact
      logits), deep supervision with weight `aux_weight` every
      `aux_frequency` levels, `stateful` history repackaging across the
      consecutive windows of the stream, `bits_per_event` and `perplexity`.

    Returns a `Built`. With auxiliary outputs the trainer has outputs
    `{"output", "aux"}` and its `dataset_map` turns a dataset's `(x, y[, w])`
    into `(x, {"output": y, "aux": y}[, w])`; the predictor is the main
    output alone (same weights). With `stateful=True` both models have a
    static `batch_size` and `callbacks` holds a `ResetStates` (epoch start,
    evaluation, prediction).

    The block's options (`kernel_size`, `dilations`, `dropout`,
    `weight_dropout`, `weight_norm`, `forget_bias`, ...; see
    `TrellisNet.block_options()`) are passed to `TrellisNet` as given; an
    unknown argument raises its `ValueError`.
    """
    if stateful and batch_size is None:
        raise ValueError("`stateful=True` needs `batch_size` (zoo.train passes the recipe's).")
    common = dict(
        input_dropout=input_dropout,
        output_dropout=output_dropout,
        aux_frequency=aux_frequency,
        stateful=stateful,
        batch_size=batch_size if stateful else None,
        seed=seed,
        name="trellisnet",
        **block_options,
    )
    kind = tasks.task(task)
    if vocabulary_size is not None:
        if task == "next_token":  # a language model: tied embeddings
            embedding_dim = embedding_dim or output_units
            tie = True
        else:  # token labelling: an untied Dense over the classes
            if num_classes != vocabulary_size:
                raise ValueError(
                    "trellisnet_model labels tokens with one output per vocabulary entry; "
                    f"got num_classes={num_classes!r} != vocabulary_size={vocabulary_size!r}."
                )
            embedding_dim = embedding_dim or vocabulary_size
            tie = False
        model = TrellisNet(
            hidden_units,
            output_units,
            num_levels,
            vocab_size=vocabulary_size,
            embedding_dim=embedding_dim,
            tie_weights=tie,
            embedding_dropout=embedding_dropout,
            num_experts=num_experts,
            **common,
        )
    else:
        (features,) = tuple(input_shape)
        outputs = 1 if kind.name == "regression" else features if kind.name == "next_frame" else num_classes
        model = TrellisNet(
            hidden_units,
            output_units,
            num_levels,
            input_dim=features,
            num_outputs=outputs,
            embedding_dim=embedding_dim,
            return_sequences=kind.per_step,
            output_activation=kind.output_activation,
            **common,
        )

    def compile_model(m, main_only, shared_optimizer=None):
        kwargs = kind.compile_arguments()
        if not main_only:
            kwargs.update(deep_supervision(kwargs["loss"], aux_weight))
            kwargs = {k: ({"output": v} if k.endswith("metrics") else v) for k, v in kwargs.items()}
        m.compile(optimizer=shared_optimizer or make_optimizer(optimizer, learning_rate, clipnorm), **kwargs)
        return m

    callbacks = (ResetStates(),) if stateful else ()
    if aux_frequency is None:
        model = compile_model(model, main_only=True)
        return Built(model, model, callbacks=callbacks)
    trainer = compile_model(model, main_only=False)
    # The predictor shares the trainer's weights and optimizer: saved with an
    # optimizer never built, it warned on every reload.
    predictor = compile_model(
        keras.Model(model.input, model.output["output"], name="trellisnet_main"),
        main_only=True,
        shared_optimizer=trainer.optimizer,
    )
    return Built(
        trainer, predictor, dataset_map=_deep_supervision_targets, callbacks=callbacks, trainer_metric_prefix="output_"
    )
