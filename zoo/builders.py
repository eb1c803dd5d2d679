"""Model builders of the recurrent families (SimpleRNN / GRU / LSTM, LMN,
SCRBM) and the convolutional baseline: layers + the task's head, loss and
metrics (zoo.tasks), compiled. Each is registered by name (zoo.registry)
and returns a `Built`: the same model as trainer and predictor for ordinary
networks; for the SCRBM the teacher-forcing trainer (inputs `[x, labels]`,
paper eq. 12) and the Algorithm 1 predictor (input `x`), which share their
weights."""

import keras

from keras_seq.layers import SCRBM
from keras_seq.layers import FeatureEmbedding
from keras_seq.zoo import tasks
from keras_seq.zoo.optimizers import make_optimizer
from keras_seq.zoo.optimizers import optimizer_steps
from keras_seq.zoo.registry import Built
from keras_seq.zoo.registry import register_builder


def _sizes(info, recipe):
    """Builder arguments read from the dataset: classes, step shape, vocabulary, task."""
    return dict(
        task=info.task,
        num_classes=info.num_classes,
        input_shape=info.input_shape,
        vocabulary_size=info.column_vocabulary_sizes or info.vocabulary_size,
    )


def _keys(info, recipe):
    return dict(keys=info.input_shape[0])


RECURRENT = {
    "simple_rnn": keras.layers.SimpleRNN,
    "gru": keras.layers.GRU,
    "lstm": keras.layers.LSTM,
}


def lmn_memory_constraint(memory_norm_bound):
    """The LMN's constraint argument bounding the spectral norm of the
    memory's own weight W_mm at `memory_norm_bound` (none if not given)."""
    if memory_norm_bound is None:
        return {}
    from keras_seq.constraints import MaxSpectralNorm

    return {"memory_recurrent_constraint": MaxSpectralNorm(memory_norm_bound)}


def lmn_regularizers(l2):
    """The LMN's regularizer arguments for weight decay `l2` on all four of
    its kernels (W_xh, W_mh, W_hm and the memory's own W_mm), as the LMN
    paper regularises its models; the biases are not decayed."""
    if not l2:
        return {}
    return {
        f"{weight}_regularizer": keras.regularizers.L2(l2)
        for weight in ("kernel", "recurrent", "memory", "memory_recurrent")
    }


def recurrent_layer(kind, units, l2=0.0, memory_norm_bound=None, **kwargs):
    if kind in RECURRENT:
        regularizer = keras.regularizers.L2(l2) if l2 else None
        return RECURRENT[kind](
            units, return_sequences=True, kernel_regularizer=regularizer, recurrent_regularizer=regularizer, **kwargs
        )
    if kind in ("lmn_a", "lmn_b"):
        from keras_seq.layers import LMN

        return LMN(
            units,
            kwargs.pop("memory_units"),
            output="functional" if kind == "lmn_a" else "memory",
            return_sequences=True,
            **lmn_regularizers(l2),
            **lmn_memory_constraint(memory_norm_bound),
            **kwargs,
        )
    raise ValueError(f"Unknown recurrent layer {kind!r}; known: {sorted(RECURRENT) + ['lmn_a', 'lmn_b']}.")


@register_builder("piano_roll_model", data_arguments=_keys)
def piano_roll_model(
    kind="lstm",
    units=100,
    memory_units=None,
    l2=0.0,
    learning_rate=1e-3,
    keys=88,
    dropout=0.0,
    clipnorm=None,
    memory_norm_bound=None,
):
    """Next-frame prediction of binary piano rolls, sigmoid per key;
    `dropout` on the recurrent layer's outputs, `l2` on its kernels, Adam
    with global gradient-norm clipping at `clipnorm` if given; for the LMNs,
    the spectral norm of the memory's W_mm bounded at `memory_norm_bound`
    if given."""
    extra = {"memory_units": memory_units} if memory_units else {}
    if memory_norm_bound is not None:
        extra["memory_norm_bound"] = memory_norm_bound
    model = keras.Sequential(
        [
            keras.Input((None, keys)),
            recurrent_layer(kind, units, l2, **extra),
            *([keras.layers.Dropout(dropout, name="dropout")] if dropout else []),
            keras.layers.Dense(keys, activation=tasks.task("next_frame").output_activation, name="notes"),
        ],
        name=f"{kind}_piano_roll",
    )
    model.compile(
        optimizer=make_optimizer("adam", learning_rate, clipnorm), **tasks.task("next_frame").compile_arguments()
    )
    return Built(model, model)


@register_builder("pretrained_lmn_model", needs_training_data=True)
def pretrained_lmn_model(
    train,
    units=100,
    memory_units=100,
    window=10,
    pretrain_epochs=5,
    learning_rate=1e-3,
    clipnorm=None,
    l2=0.0,
    memory_norm_bound=None,
    fine_tune_activation=None,
):
    """LMN-B initialised by the closed-form pretraining (LMN paper Sec. 4) on
    the training `Sequences` (its keys are the targets' width), compiled for
    fine-tuning, with `l2` on its four kernels and W_mm's spectral norm
    bounded at `memory_norm_bound` as `piano_roll_model` has them.
    The functional units keep the pretraining's SELU, which makes the
    initialised LMN reproduce the unrolled network; `fine_tune_activation`
    (e.g. `"tanh"`, the paper's final LMN) fine-tunes with another one from
    the same weights.
    Returns a `Built` whose `pretraining_report` holds the pretraining's
    scores and `updates` (the unrolled network's gradient steps)."""
    import sys

    from keras_seq.pretraining import pretrain_lmn

    print(
        f"# pretraining the LMN-B: the unrolled window network ({pretrain_epochs} epochs, progress below), "
        "then the closed-form linear autoencoder of its hidden states",
        file=sys.stderr,
        flush=True,
    )
    model, pretraining_report = pretrain_lmn(
        train.inputs,
        train.targets,
        units=units,
        memory_units=memory_units,
        window=window,
        epochs=pretrain_epochs,
        verbose=2,
    )
    print(
        f"# pretraining done: reconstruction error {pretraining_report['reconstruction_error']:.3g}",
        file=sys.stderr,
        flush=True,
    )
    if l2 or memory_norm_bound is not None or fine_tune_activation is not None:
        # Regularisers and constraints are made with the weights: the same
        # network, regularised, takes the pretrained ones.
        from keras_seq.layers import LMN

        lmn, readout = model.get_layer("lmn"), model.get_layer("readout")
        config = {
            **lmn.get_config(),
            **lmn_regularizers(l2),
            **lmn_memory_constraint(memory_norm_bound),
            **({"activation": fine_tune_activation} if fine_tune_activation is not None else {}),
        }
        regularised = keras.Sequential(
            [
                keras.Input((None, train.inputs[0].shape[-1])),
                LMN.from_config(config),
                keras.layers.Dense.from_config(readout.get_config()),
            ],
            name=model.name,
        )
        regularised.set_weights(model.get_weights())
        model = regularised
    model.compile(
        optimizer=make_optimizer("adam", learning_rate, clipnorm), **tasks.task("next_frame").compile_arguments()
    )
    unrolled = pretraining_report["unrolled_model"]
    report = {k: v for k, v in pretraining_report.items() if k not in ("autoencoder", "unrolled_model")}
    # Gradient steps of the unrolled window network (the closed-form autoencoder takes none).
    report["updates"] = optimizer_steps(unrolled.optimizer) if unrolled.optimizer else 0
    return Built(model, model, pretraining_report=report)


def _token_or_vector_input(input_shape, vocabulary_size, embedding_dim):
    if vocabulary_size is None:
        x = keras.Input((None,) + tuple(input_shape))
        return x, x
    return _token_input(vocabulary_size, embedding_dim, False)


def _token_input(vocabulary_size, embedding_dim, mask_zero):
    """Token ids and their embedding; `vocabulary_size` a tuple: steps of
    several id columns (word, suffixes, shape, ...), embeddings summed."""
    if isinstance(vocabulary_size, (tuple, list)):
        x = keras.Input((None, len(vocabulary_size)), dtype="int32")
        return x, FeatureEmbedding(tuple(vocabulary_size), embedding_dim, mask_zero=mask_zero, name="embedding")(x)
    x = keras.Input((None,), dtype="int32")
    return x, keras.layers.Embedding(vocabulary_size, embedding_dim, mask_zero=mask_zero, name="embedding")(x)


@register_builder("labelling_model", data_arguments=_sizes)
def labelling_model(
    kind="lstm",
    num_classes=2,
    input_shape=(),
    vocabulary_size=None,
    units=100,
    embedding_dim=64,
    learning_rate=1e-3,
    l2=0.0,
    dropout=0.0,
    task="labelling",
):
    """Per-step classification (`task`: sequence labelling or next-token
    prediction); `dropout` on the step features and on the recurrent
    outputs, `l2` on the recurrent kernels. The SCRBM applies `dropout` to
    its input features (one mask per sequence) and `l2` to its kernels `W`,
    `W_hh` and `U`."""
    step_task = tasks.task(task)
    if not step_task.per_step:
        raise ValueError(f"labelling_model labels every step; the task {task!r} has one label per sequence.")
    x, features = _token_or_vector_input(input_shape, vocabulary_size, embedding_dim)

    def compile_model(model, optimizer=None):  # fresh metric objects per model: they hold state
        model.compile(optimizer=optimizer or make_optimizer("adam", learning_rate), **step_task.compile_arguments())
        return model

    if kind == "scrbm":
        labels = keras.Input((None,), dtype="int32", name="labels")
        regularizer = {f"{w}_regularizer": keras.regularizers.L2(l2) for w in ("kernel", "recurrent", "label")}
        scrbm = SCRBM(units, num_classes, return_logits=True, dropout=dropout, **(regularizer if l2 else {}))
        trainer = keras.Model([x, labels], scrbm(features, labels=labels), name="scrbm_teacher_forcing")
        predictor = keras.Model(x, scrbm(features), name="scrbm_algorithm_1")
        # The predictor shares the trainer's weights, and its optimizer: saved
        # with an optimizer never built, it warned on every reload.
        compile_model(trainer)
        return Built(trainer, compile_model(predictor, trainer.optimizer))
    if dropout:
        features = keras.layers.Dropout(dropout, name="input_dropout")(features)
    hidden = recurrent_layer(kind, units, l2)(features)
    if dropout:
        hidden = keras.layers.Dropout(dropout, name="output_dropout")(hidden)
    outputs = keras.layers.Dense(num_classes, name="classes")(hidden)
    model = compile_model(keras.Model(x, outputs, name=f"{kind}_labeller"))
    return Built(model, model)


def _masked_input(input_shape, vocabulary_size, embedding_dim, padded):
    """Model input and its step features, carrying a Keras mask of the real
    steps when the batches are `padded` (token id 0 or an all-zero vector is
    padding, as keras_seq.data pipelines pad)."""
    if vocabulary_size is None:
        x = keras.Input((None,) + tuple(input_shape))
        return x, (keras.layers.Masking(0.0, name="padding")(x) if padded else x)
    return _token_input(vocabulary_size, embedding_dim, padded)


@register_builder("conv_text_model", data_arguments=_sizes)
def conv_text_model(
    task="labelling",
    num_classes=2,
    input_shape=(),
    vocabulary_size=None,
    filters=100,
    widths=(3, 5),
    embedding_dim=64,
    learning_rate=1e-3,
    l2=0.0,
    dropout=0.0,
):
    """Convolutional text baseline (Favre's CNN-for-text slides; Kim 2014):
    embeddings, n-gram convolutions of several widths, then

    - `task="classification"` (one label per sequence): max-pooling over the
      real steps and a softmax layer;
    - any per-step task (`"labelling"`): no pooling, a softmax layer at every
      position over its centred windows (the window approach).

    Padding (id 0 / zero vectors) is masked for per-step tasks; per-sequence
    batches are never padded by keras_seq.data (equal lengths), and token
    inputs are masked in both cases.

    Args:
        task: A `DatasetInfo.task`: `"classification"` pools; others label steps.
        num_classes: Classes per sequence or per step.
        input_shape: Shape of one step of vector inputs; `()` for tokens.
        vocabulary_size: Token vocabulary (ids in `[0, size)`), a tuple of
            one per id column of steps `(k,)` (embeddings summed), or None.
        filters: Filters per width.
        widths: Window widths (n-gram lengths).
        embedding_dim: Embedding size for token inputs.
        learning_rate: Adam learning rate.
        l2: L2 penalty on the convolution kernels.
        dropout: Dropout rate on the step features and on the n-gram
            features, as `labelling_model` applies it.

    Returns:
        A `Built` of one model, compiled with the task's loss and metrics
        (zoo.tasks): logits, sparse cross-entropy; `accuracy` for
        classification, the masked `sequence_error` and `bits_per_event`
        otherwise.

    Example:

    >>> model, _ = conv_text_model("labelling", num_classes=5, vocabulary_size=100)
    >>> model.predict(np.ones((2, 7), "int32"), verbose=0).shape
    (2, 7, 5)
    """
    per_sequence = not tasks.task(task).per_step
    x, features = _masked_input(
        input_shape, vocabulary_size, embedding_dim, padded=vocabulary_size is not None or not per_sequence
    )
    from keras_seq.layers import MaskedGlobalMaxPooling1D
    from keras_seq.layers import NgramConvolution

    if dropout:
        features = keras.layers.Dropout(dropout, name="input_dropout")(features)
    regularizer = keras.regularizers.L2(l2) if l2 else None
    ngrams = NgramConvolution(filters, widths, kernel_regularizer=regularizer, name="ngrams")(features)
    if dropout:
        ngrams = keras.layers.Dropout(dropout, name="ngram_dropout")(ngrams)
    if per_sequence:
        ngrams = MaskedGlobalMaxPooling1D(name="max_over_time")(ngrams)
    outputs = keras.layers.Dense(num_classes, name="classes")(ngrams)
    model = keras.Model(x, outputs, name="conv_classifier" if per_sequence else "conv_labeller")
    model.compile(optimizer=make_optimizer("adam", learning_rate), **tasks.task(task).compile_arguments())
    return Built(model, model)
