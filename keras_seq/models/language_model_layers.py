"""Layers of the TrellisNet language models (Bai, Kolter, Koltun, "Trellis
Networks for Sequence Modeling", ICLR 2019), as the reference code uses them
on word-level PTB: AWD-LSTM's whole-word embedding dropout and the
mixture-of-softmaxes head of Yang et al. ("Breaking the Softmax Bottleneck",
ICLR 2018); and the variational (per-sequence) dropout that `TrellisNet`
applies before and after its block.
"""

import keras
from keras import ops

from keras_seq.layers import validation


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
    tokens = np.random.randint(0, 100, (2, 7))
    emb = keras.layers.Embedding(100, 8)
    x = EmbeddingDropout(0.1, 100, seed=1)(emb(tokens), tokens, training=True)  # (2, 7, 8)
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
    h = np.random.normal(size=(2, 5, 16)).astype("float32")  # (batch, time, features)
    embedding = keras.layers.ReversibleEmbedding(50, 8)  # the tied input embedding
    embedding.build((None,))
    latents, prior = MixtureOfSoftmaxes(3, 8)(h)  # (2, 5, 3, 8), (2, 5, 3)
    log_p = MixtureLogProbabilities()([prior, embedding(latents, reverse=True)])  # (2, 5, 50)
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
            shape=(features, self.num_experts * self.latent_dim),
            name="latent_kernel",
            initializer=self.kernel_initializer,
        )
        self.latent_bias = self.add_weight(
            shape=(self.num_experts * self.latent_dim,), name="latent_bias", initializer="zeros"
        )
        self.prior_kernel = self.add_weight(
            shape=(features, self.num_experts),
            name="prior_kernel",
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
    """The mixture of a mixture-of-softmaxes head, in log space (Yang et al.,
    ICLR 2018, eq. 2):

        log p(w) = log sum_k softmax(prior)_k softmax(logits_k)_w

    computed by log-sum-exp over `log_softmax(prior)_k + log_softmax(logits_k)`,
    so it stays finite however small a probability is.

    Args:
        **kwargs: Base layer arguments.

    Call arguments:
        inputs: `[prior_logits (..., K), expert_logits (..., K, vocab)]`.

    Returns:
        Log-probabilities `(..., vocab)`: `exp` of them sums to one. They are
        also valid logits (`softmax` of them gives the same probabilities),
        so `from_logits=True` losses and metrics apply unchanged.

    Example:

    ```python
    h = np.random.normal(size=(2, 5, 16)).astype("float32")  # (batch, time, features)
    embedding = keras.layers.ReversibleEmbedding(50, 8)  # the tied input embedding
    embedding.build((None,))
    latents, prior = MixtureOfSoftmaxes(3, 8)(h)  # (2, 5, 3, 8), (2, 5, 3)
    log_p = MixtureLogProbabilities()([prior, embedding(latents, reverse=True)])  # (2, 5, 50)
    ```
    """

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[1][:-2]) + (input_shape[1][-1],)

    def call(self, inputs):
        prior_logits, expert_logits = inputs
        log_prior = ops.log_softmax(prior_logits, axis=-1)
        log_experts = ops.log_softmax(expert_logits, axis=-1)
        return ops.logsumexp(ops.expand_dims(log_prior, -1) + log_experts, axis=-2)


def variational_dropout(x, rate, seed, name):
    """Variational dropout of a functional-graph tensor (Gal & Ghahramani,
    2016): one mask per sequence over the features, shared by every step.

    Args:
        x: A `(batch, time, features)` tensor (one mask per sequence) or a
            `(batch, features)` one (plain dropout).
        rate: Float in [0, 1); 0 returns `x` unchanged (no layer).
        seed: Random seed of the `Dropout` layer.
        name: Name of the `Dropout` layer.

    Returns:
        `x` through `keras.layers.Dropout(rate, noise_shape=(None, 1, features))`.
    """
    if not rate:
        return x
    noise_shape = (None, 1, x.shape[-1]) if len(x.shape) == 3 else None
    return keras.layers.Dropout(rate, noise_shape=noise_shape, seed=seed, name=name)(x)
