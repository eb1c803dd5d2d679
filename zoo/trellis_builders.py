"""The TrellisNet builder of the zoo (`zoo.builders.trellisnet_model`): one
`keras_seq.models.TrellisNet` with the head, loss and metrics of the
dataset's task, as the other builders return them."""

import keras

from keras_seq import metrics
from keras_seq.models.trellisnet import ResetStates
from keras_seq.models.trellisnet import TrellisNet
from keras_seq.models.trellisnet import deep_supervision
from keras_seq.zoo.optimizers import make_optimizer


def _deep_supervision_targets(x, y, *weights):
    """tf.data map: the same targets for the main and auxiliary outputs."""
    return (x, {"output": y, "aux": y}) + weights


def trellisnet_model(
    task="classification", num_classes=None, input_shape=(), vocabulary_size=None,
    batch_size=None, hidden_units=100, output_units=50, num_levels=8, embedding_dim=None,
    kernel_size=2, dilations=(1,), dropout=0.0, input_dropout=0.0, output_dropout=0.0,
    weight_dropout=0.0, embedding_dropout=0.0, weight_norm=True, aux_frequency=None,
    aux_weight=0.0, num_experts=None, stateful=False, forget_bias=0.0, optimizer="adam",
    learning_rate=1e-3, clipnorm=None, seed=None,
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

    Returns `(trainer, predictor)`. With auxiliary outputs the trainer has
    outputs `{"output", "aux"}` and `trainer.dataset_map` turns a dataset's
    `(x, y[, w])` into `(x, {"output": y, "aux": y}[, w])`; the predictor is
    the main output alone (same weights). With `stateful=True` both models
    have a static `batch_size` and `trainer.extra_callbacks` holds a
    `ResetStates` (epoch start, evaluation, prediction).
    """
    if stateful and batch_size is None:
        raise ValueError("`stateful=True` needs `batch_size` (zoo.train passes the recipe's).")
    common = dict(
        kernel_size=kernel_size, dilations=dilations, dropout=dropout, input_dropout=input_dropout,
        output_dropout=output_dropout, weight_dropout=weight_dropout, weight_norm=weight_norm,
        stateful=stateful, batch_size=batch_size if stateful else None, forget_bias=forget_bias,
        seed=seed,
    )
    from_logits = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
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
            hidden_units, output_units, num_levels, vocab_size=vocabulary_size,
            embedding_dim=embedding_dim, tie_weights=tie, embedding_dropout=embedding_dropout,
            num_experts=num_experts, aux_frequency=aux_frequency, name="trellisnet", **common,
        )
        loss = from_logits
        if task == "next_token":
            model_metrics = lambda: [  # noqa: E731
                metrics.BitsPerEvent(from_logits=True), metrics.Perplexity(from_logits=True)]
        else:
            model_metrics = lambda: [  # noqa: E731
                metrics.SequenceLabellingError(), metrics.BitsPerEvent(from_logits=True)]
        weighted = task != "next_token"
    else:
        (features,) = tuple(input_shape)
        per_sequence = task in ("classification", "regression")
        outputs = {"classification": num_classes, "regression": 1}.get(task, num_classes or features)
        model = TrellisNet(
            hidden_units, output_units, num_levels, input_dim=features, num_outputs=outputs,
            embedding_dim=embedding_dim, return_sequences=not per_sequence,
            output_activation="sigmoid" if task == "next_frame" else None,
            aux_frequency=aux_frequency, name="trellisnet", **common,
        )
        if task == "classification":
            loss = from_logits
            model_metrics = lambda: [keras.metrics.SparseCategoricalAccuracy(name="accuracy")]  # noqa: E731
        elif task == "regression":
            loss = keras.losses.MeanSquaredError()
            model_metrics = lambda: [keras.metrics.MeanSquaredError(name="mse")]  # noqa: E731
        else:
            loss = keras.losses.BinaryCrossentropy()
            model_metrics = lambda: [metrics.FrameAccuracy(), metrics.FrameNLL()]  # noqa: E731
        weighted = not per_sequence

    def compile_model(m, main_only):
        kwargs = {"weighted_metrics" if weighted else "metrics": model_metrics()}
        if main_only:
            kwargs["loss"] = loss
        else:
            kwargs.update(deep_supervision(loss, aux_weight))
            kwargs = {k: ({"output": v} if k.endswith("metrics") else v) for k, v in kwargs.items()}
        m.compile(optimizer=make_optimizer(optimizer, learning_rate, clipnorm), **kwargs)
        return m

    callbacks = [ResetStates()] if stateful else []
    if aux_frequency is None:
        model = compile_model(model, main_only=True)
        model.extra_callbacks = callbacks
        return model, model
    predictor = compile_model(keras.Model(model.input, model.output["output"], name="trellisnet_main"),
                              main_only=True)
    trainer = compile_model(model, main_only=False)
    trainer.dataset_map = _deep_supervision_targets
    trainer.extra_callbacks = callbacks
    return trainer, predictor
