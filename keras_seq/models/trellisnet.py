"""TrellisNet models (Bai, Kolter, Koltun, ICLR 2019): input layer, one
`TrellisBlock`, task head; tied embeddings for language modelling and the
deep-supervision loss of Appendix B. The language-model options of the
reference code are here too: embedding dropout, a mixture-of-softmaxes head
(Yang et al., ICLR 2018) and stateful history repackaging across batches
(`ResetStates` resets it each epoch)."""

import keras
from keras import ops

from keras_seq.layers import validation
from keras_seq.layers.trellis import TrellisBlock


def TrellisNet(
    hidden_units,
    output_units,
    num_levels,
    *,
    vocab_size=None,
    input_dim=None,
    embedding_dim=None,
    num_outputs=None,
    return_sequences=True,
    output_activation=None,
    tie_weights=True,
    kernel_size=2,
    dilations=(1,),
    dropout=0.0,
    input_dropout=0.0,
    output_dropout=0.0,
    weight_norm=True,
    aux_frequency=None,
    sequence_length=None,
    weight_dropout=0.0,
    embedding_dropout=0.0,
    num_experts=None,
    stateful=False,
    batch_size=None,
    forget_bias=0.0,
    seed=None,
    name="trellisnet",
):
    """Builds a functional TrellisNet: input -> `TrellisBlock` -> head.

    Two inputs:

    - tokens (`vocab_size` given): int ids `(batch, time)` through an
      embedding of width `embedding_dim`. The head is a language model: logits
      over the vocabulary at every step. With `tie_weights=True` (and
      `output_units == embedding_dim`) the output projection is the embedding
      matrix transposed (`keras.layers.ReversibleEmbedding`, one weight).
    - features (`input_dim` given): floats `(batch, time, input_dim)`, through
      a `Dense(embedding_dim)` when `embedding_dim` is given. The head is
      `Dense(num_outputs, output_activation)` at every step
      (`return_sequences=True`) or at the last one (e.g. sequential MNIST,
      the adding problem).

    Input and output dropout are variational (one mask per sequence over the
    features); `dropout` is the block's variational hidden dropout (on the
    input of its hidden convolution, history included) and `weight_dropout`
    its temporal weight drop (the earlier taps of both kernels, before the
    weight norm), as `TrellisBlock` describes. `embedding_dropout` (token inputs)
    drops whole words: one Bernoulli draw per vocabulary row per call, every
    occurrence of a dropped id in the batch embeds to zero and the kept rows
    are scaled by `1 / (1 - rate)` (AWD-LSTM's embedding dropout, used by the
    reference TrellisNet on word-level PTB).

    Mixture of softmaxes (`num_experts=K`, token inputs; Yang et al. 2018):
    from the block output `h_t`, a prior `pi = softmax(h_t P)` over `K`
    experts, `K` latent vectors `l_k = tanh(h_t L_k + b_k)` of width
    `embedding_dim`, and `p(w | h_t) = sum_k pi_k softmax(l_k E^T)_w`, with
    `E` the (tied) embedding matrix or an untied `Dense(vocab_size)`. The
    model then outputs LOG-PROBABILITIES `log p` (computed with log-sum-exp,
    so they stay finite). Because `softmax(log p) = p` when `p` sums to one,
    they are also valid logits: compile with the same
    `SparseCategoricalCrossentropy(from_logits=True)` (and `from_logits=True`
    metrics) as the plain head and the loss is exactly `-log p`.

    Stateful (`stateful=True`, needs `batch_size`): the block carries its
    final `(h, c)` from one batch to the next (history repackaging for
    language-model streams, whose row `i` of window `k + 1` continues row `i`
    of window `k`); pass `ResetStates()` to `fit` / `evaluate` / `predict`.

    With `aux_frequency`, the model has two outputs, `{"output": ..., "aux":
    ...}`: `aux` is the same head applied to the block's auxiliary outputs,
    `(batch, [time,] num_aux, classes)` (levels `aux_frequency`,
    `2 * aux_frequency`, ..., the top one included when it is a multiple).
    Train it with
    `model.compile(**deep_supervision(loss, aux_weight), ...)` and targets
    `{"output": y, "aux": y}` (the paper's deep supervision, lambda =
    `aux_weight`).

    Args:
        hidden_units, output_units, num_levels, kernel_size, dilations,
        dropout, weight_norm, aux_frequency, forget_bias, seed: As in
            `TrellisBlock`.
        vocab_size: Vocabulary size for token inputs (language model).
        input_dim: Feature width for float inputs. Exactly one of
            `vocab_size` / `input_dim`.
        embedding_dim: Embedding width (required with `vocab_size`).
        num_outputs: Width of the dense head (required with `input_dim`).
        return_sequences: Dense head at every step (default) or the last.
        output_activation: Activation of the dense head (default linear).
        tie_weights: Tie the language-model projection to the embedding.
        input_dropout, output_dropout: Variational dropout rates before and
            after the block.
        sequence_length: Optional static length (`None`: any length).
        weight_dropout: Temporal weight-drop rate on the earlier taps of the
            block's kernels (see `TrellisBlock`).
        embedding_dropout: Rate of whole-word dropout on the embedding (token
            inputs only).
        num_experts: `None` (plain softmax head) or an integer >= 1, the
            number of mixture-of-softmaxes experts (token inputs only; the
            output is then log-probabilities).
        stateful: Carry the block state across batches (see above).
        batch_size: Static batch size of the input (required if stateful).
        name: Model name.

    Returns:
        An uncompiled `keras.Model`.

    Example:

    ```python
    lm = TrellisNet(256, 64, 16, vocab_size=50, embedding_dim=64,
                    aux_frequency=4, dropout=0.2)
    lm.compile(optimizer="adam", **deep_supervision(
        keras.losses.SparseCategoricalCrossentropy(from_logits=True), 0.3))
    lm.fit(x, {"output": y, "aux": y})

    # Word-level PTB style: MoS head (log-probabilities), stateful windows.
    lm = TrellisNet(1000, 400, 58, vocab_size=10000, embedding_dim=400,
                    num_experts=15, embedding_dropout=0.1, weight_dropout=0.5,
                    stateful=True, batch_size=16)
    lm.compile(optimizer="sgd", loss=keras.losses.SparseCategoricalCrossentropy(
        from_logits=True))
    lm.fit(stream, epochs=10, callbacks=[ResetStates()])
    ```
    """
    if (vocab_size is None) == (input_dim is None):
        raise ValueError(
            "Give exactly one of `vocab_size` (token inputs) and `input_dim` "
            f"(float inputs); got vocab_size={vocab_size!r}, input_dim={input_dim!r}."
        )
    validation.rate("input_dropout", input_dropout)
    validation.rate("output_dropout", output_dropout)
    validation.rate("embedding_dropout", embedding_dropout)
    if stateful and batch_size is None:
        raise ValueError(
            "`stateful=True` needs a static `batch_size` (the stored state has "
            "one row per sequence of the batch); got batch_size=None."
        )
    if batch_size is not None:
        validation.positive_int("batch_size", batch_size)
    if vocab_size is None and (embedding_dropout or num_experts is not None):
        raise ValueError(
            "`embedding_dropout` and `num_experts` apply to token inputs "
            "(`vocab_size`); got them with input_dim="
            f"{input_dim!r}."
        )
    if num_experts is not None:
        validation.positive_int("num_experts", num_experts)
    if vocab_size is not None:
        validation.positive_int("vocab_size", vocab_size)
        validation.positive_int("embedding_dim", embedding_dim)
        inputs = keras.Input(
            (sequence_length,), batch_size=batch_size, dtype="int32", name="tokens"
        )
        tied = tie_weights and output_units == embedding_dim
        if tie_weights and not tied:
            raise ValueError(
                "Tied embeddings need `output_units == embedding_dim`; got "
                f"output_units={output_units!r}, embedding_dim={embedding_dim!r}."
            )
        if tied:
            embedding = keras.layers.ReversibleEmbedding(vocab_size, embedding_dim, name="embedding")
        else:  # a ReversibleEmbedding would hold an unused output matrix
            embedding = keras.layers.Embedding(vocab_size, embedding_dim, name="embedding")
        x = embedding(inputs)
        if embedding_dropout:
            x = EmbeddingDropout(
                embedding_dropout, vocab_size, seed=seed, name="embedding_dropout"
            )(x, inputs)
        if tied:
            project = lambda h: embedding(h, reverse=True)  # noqa: E731
        else:
            project = keras.layers.Dense(vocab_size, name="head")
        head = project
        if num_experts is not None:
            latent = MixtureOfSoftmaxes(num_experts, embedding_dim, name="mos")
            mixture = MixtureLogProbabilities(name="mos_log_probabilities")

            def head(h):
                latents, prior_logits = latent(h)
                return mixture([prior_logits, project(latents)])
    else:
        validation.positive_int("input_dim", input_dim)
        validation.positive_int("num_outputs", num_outputs)
        inputs = keras.Input(
            (sequence_length, input_dim), batch_size=batch_size, name="features"
        )
        x = inputs
        if embedding_dim is not None:
            x = keras.layers.Dense(embedding_dim, name="input_projection")(x)
        head = keras.layers.Dense(num_outputs, activation=output_activation, name="head")

    x = _variational_dropout(x, input_dropout, seed, "input_dropout")
    block = TrellisBlock(
        hidden_units, output_units, num_levels, kernel_size=kernel_size,
        dilations=dilations, dropout=dropout, weight_norm=weight_norm,
        aux_frequency=aux_frequency, weight_dropout=weight_dropout,
        stateful=stateful, forget_bias=forget_bias, seed=seed, name="trellis",
    )
    outputs = block(x)
    h, aux = outputs if aux_frequency is not None else (outputs, None)
    if not return_sequences:
        h = h[:, -1]
        aux = None if aux is None else aux[:, -1]
    h = _variational_dropout(h, output_dropout, seed, "output_dropout")
    if aux is None:
        return keras.Model(inputs, head(h), name=name)
    return keras.Model(inputs, {"output": head(h), "aux": head(aux)}, name=name)


@keras.saving.register_keras_serializable(package="keras_seq")
class EmbeddingDropout(keras.layers.Layer):
    """Whole-word embedding dropout (Gal & Ghahramani 2016; AWD-LSTM).

    One Bernoulli(1 - rate) draw per vocabulary row per call, shared by the
    whole batch: every occurrence of a dropped id embeds to zero, kept rows
    are scaled by `1 / (1 - rate)`. This equals looking the ids up in a copy
    of the embedding matrix with whole rows dropped (the reference code's
    `embedded_dropout`), without materialising that copy; a tied output
    projection keeps using the undropped matrix.

    Args:
        rate: Float in [0, 1), fraction of vocabulary rows dropped.
        vocab_size: Positive integer, number of embedding rows (ids lie in
            `[0, vocab_size)`).
        seed: Random seed.
        **kwargs: Base layer arguments.

    Call arguments:
        embedded: `(batch, time, embedding_dim)`, the embedded tokens.
        tokens: `(batch, time)`, the int ids that were embedded.
        training: Python boolean; identity when False.

    Returns:
        `embedded` with the rows of dropped ids zeroed, the rest scaled.

    Example:

    ```python
    emb = keras.layers.Embedding(10000, 400)
    x = EmbeddingDropout(0.1, 10000, seed=1)(emb(tokens), tokens, training=True)
    ```
    """

    def __init__(self, rate, vocab_size, seed=None, **kwargs):
        validation.rate("rate", rate)
        validation.positive_int("vocab_size", vocab_size)
        super().__init__(**kwargs)
        self.rate = float(rate)
        self.vocab_size = int(vocab_size)
        self.seed = seed
        self.seed_generator = keras.random.SeedGenerator(seed)

    def build(self, embedded_shape, tokens_shape=None):
        self.built = True

    def compute_output_shape(self, embedded_shape, tokens_shape=None):
        return embedded_shape

    def call(self, embedded, tokens, training=False):
        if not training or self.rate == 0:
            return embedded
        # One draw per vocabulary row, looked up by id: whole rows dropped.
        keep = keras.random.uniform((self.vocab_size,), seed=self.seed_generator) >= self.rate
        scale = ops.cast(keep, embedded.dtype) / (1.0 - self.rate)
        rows = ops.take(scale, ops.cast(tokens, "int32"), axis=0)
        return embedded * ops.expand_dims(rows, -1)

    def get_config(self):
        return {
            **super().get_config(),
            "rate": self.rate,
            "vocab_size": self.vocab_size,
            "seed": self.seed,
        }


@keras.saving.register_keras_serializable(package="keras_seq")
class MixtureOfSoftmaxes(keras.layers.Layer):
    """The expert part of a mixture-of-softmaxes head (Yang et al., "Breaking
    the Softmax Bottleneck", ICLR 2018), as in the reference TrellisNet.

    From `h` (`(..., features)`): `K` latent vectors
    `l_k = tanh(h L_k + b_k)` of width `latent_dim` and the prior logits
    `h P` (no bias). Project the latents to the vocabulary (the tied
    embedding, `(..., K, latent_dim) -> (..., K, vocab)`) and combine with
    `MixtureLogProbabilities`.

    Args:
        num_experts: Positive integer `K`.
        latent_dim: Positive integer, width of each latent (the embedding
            width when the projection is tied).
        kernel_initializer: Initializer of `latent_kernel` and `prior_kernel`.
        **kwargs: Base layer arguments.

    Call arguments:
        h: `(..., features)`.

    Returns:
        `latents` `(..., K, latent_dim)` and `prior_logits` `(..., K)`.

    Example:

    ```python
    latents, prior = MixtureOfSoftmaxes(15, 400)(h)        # h: (B, T, 400)
    log_p = MixtureLogProbabilities()([prior, embedding(latents, reverse=True)])
    ```
    """

    def __init__(self, num_experts, latent_dim, kernel_initializer="glorot_uniform", **kwargs):
        validation.positive_int("num_experts", num_experts)
        validation.positive_int("latent_dim", latent_dim)
        super().__init__(**kwargs)
        self.num_experts = int(num_experts)
        self.latent_dim = int(latent_dim)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)

    def build(self, h_shape):
        features = int(h_shape[-1])
        self.latent_kernel = self.add_weight(
            shape=(features, self.num_experts * self.latent_dim), name="latent_kernel",
            initializer=self.kernel_initializer,
        )
        self.latent_bias = self.add_weight(
            shape=(self.num_experts * self.latent_dim,), name="latent_bias", initializer="zeros"
        )
        self.prior_kernel = self.add_weight(
            shape=(features, self.num_experts), name="prior_kernel",
            initializer=self.kernel_initializer,
        )

    def compute_output_shape(self, h_shape):
        lead = tuple(h_shape[:-1])
        return lead + (self.num_experts, self.latent_dim), lead + (self.num_experts,)

    def call(self, h):
        latent = ops.tanh(ops.matmul(h, self.latent_kernel) + self.latent_bias)
        shape = ops.shape(h)[:-1] + (self.num_experts, self.latent_dim)
        return ops.reshape(latent, shape), ops.matmul(h, self.prior_kernel)

    def get_config(self):
        return {
            **super().get_config(),
            "num_experts": self.num_experts,
            "latent_dim": self.latent_dim,
            "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
        }


@keras.saving.register_keras_serializable(package="keras_seq")
class MixtureLogProbabilities(keras.layers.Layer):
    """`log sum_k softmax(prior)_k softmax(logits_k)`, by log-sum-exp.

    Call arguments:
        inputs: `[prior_logits (..., K), expert_logits (..., K, vocab)]`.

    Returns:
        Log-probabilities `(..., vocab)`: `exp` of them sums to one. They are
        also valid logits (`softmax` of them gives the same probabilities),
        so `from_logits=True` losses and metrics apply unchanged.
    """

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[1][:-2]) + (input_shape[1][-1],)

    def call(self, inputs):
        prior_logits, expert_logits = inputs
        log_prior = ops.log_softmax(prior_logits, axis=-1)
        log_experts = ops.log_softmax(expert_logits, axis=-1)
        return ops.logsumexp(ops.expand_dims(log_prior, -1) + log_experts, axis=-2)


class ResetStates(keras.callbacks.Callback):
    """Zeroes the stored state of every stateful `TrellisBlock` (and Keras
    RNN) of the model at the start of each epoch, and before evaluation and
    prediction (so validation starts from a clean history, as the reference
    code's `init_hidden` does)."""

    def _reset(self):
        for layer in self.model._flatten_layers(include_self=False):
            if getattr(layer, "stateful", False) and hasattr(layer, "reset_states"):
                layer.reset_states()

    def on_epoch_begin(self, epoch, logs=None):
        self._reset()

    def on_test_begin(self, logs=None):
        self._reset()

    def on_predict_begin(self, logs=None):
        self._reset()


def _variational_dropout(x, rate, seed, name):
    if not rate:
        return x
    noise_shape = (None, 1, x.shape[-1]) if len(x.shape) == 3 else None
    return keras.layers.Dropout(rate, noise_shape=noise_shape, seed=seed, name=name)(x)


@keras.saving.register_keras_serializable(package="keras_seq")
class DeepSupervisionLoss(keras.losses.Loss):
    """A loss averaged over the auxiliary outputs of a TrellisNet (Appendix B,
    deep supervision): the targets `y_true` (those of the main output) are
    broadcast over the `num_aux` axis (`-2`) of `y_pred`
    `(batch, [time,] num_aux, classes)`.

    Args:
        loss: The main output's loss (name, function or `keras.losses.Loss`).
        name, reduction, dtype: As in `keras.losses.Loss`.
    """

    def __init__(self, loss, name="deep_supervision", reduction="sum_over_batch_size", dtype=None):
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.loss = keras.losses.get(loss)

    def call(self, y_true, y_pred):
        y_true = ops.convert_to_tensor(y_true)
        if len(y_true.shape) == len(y_pred.shape) - 1:  # dense targets
            y_true = ops.broadcast_to(ops.expand_dims(y_true, -2), ops.shape(y_pred))
        else:  # sparse class ids
            y_true = ops.broadcast_to(ops.expand_dims(y_true, -1), ops.shape(y_pred)[:-1])
        if isinstance(self.loss, keras.losses.Loss):
            per_output = self.loss.call(y_true, y_pred)
        else:
            per_output = self.loss(y_true, y_pred)
        # (batch, [time,] num_aux) -> the main loss's shape, so per-step
        # sample weights apply to the auxiliary loss unchanged.
        return ops.mean(per_output, axis=-1)

    def get_config(self):
        return {**super().get_config(), "loss": keras.losses.serialize(self.loss)}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["loss"] = keras.losses.deserialize(config["loss"])
        return cls(**config)


def deep_supervision(loss, aux_weight):
    """`compile` arguments for a TrellisNet with auxiliary outputs: the main
    loss with weight 1 and the auxiliary loss with weight `aux_weight`
    (lambda)."""
    if not isinstance(aux_weight, (int, float)) or aux_weight < 0:
        raise ValueError(f"`aux_weight` must be a number >= 0; got {aux_weight!r}.")
    return {
        "loss": {"output": loss, "aux": DeepSupervisionLoss(loss)},
        "loss_weights": {"output": 1.0, "aux": float(aux_weight)},
    }
