"""The TrellisNet model (Bai, Kolter, Koltun, "Trellis Networks for Sequence
Modeling", ICLR 2019): an input layer, one `TrellisBlock` and a task head, as
a serialisable Keras model.

The language-model layers (embedding dropout, mixture of softmaxes) live in
`keras_seq.models.language_model_layers`, the stateful reset callback in
`keras_seq.models.callbacks` and the deep-supervision loss in
`keras_seq.models.losses`; they are importable from here too.
"""

import difflib
import inspect

import keras

from keras_seq.layers import validation
from keras_seq.layers.last_step import LastStep
from keras_seq.layers.trellis import TrellisBlock
from keras_seq.models.callbacks import ResetStates
from keras_seq.models.language_model_layers import EmbeddingDropout
from keras_seq.models.language_model_layers import MixtureLogProbabilities
from keras_seq.models.language_model_layers import MixtureOfSoftmaxes
from keras_seq.models.language_model_layers import variational_dropout
from keras_seq.models.losses import DeepSupervisionLoss
from keras_seq.models.losses import deep_supervision

# Importable from this module, where they were defined before.
__all__ = [
    "DeepSupervisionLoss",
    "EmbeddingDropout",
    "MixtureLogProbabilities",
    "MixtureOfSoftmaxes",
    "ResetStates",
    "TrellisNet",
    "deep_supervision",
]

# `TrellisBlock` arguments that the model sets itself: its own arguments
# (sizes, deep supervision, statefulness, seed) and `return_state`, which
# would change the block's outputs that the head reads.
_SET_BY_THE_MODEL = (
    "hidden_units",
    "output_units",
    "num_levels",
    "aux_frequency",
    "stateful",
    "seed",
    "return_state",
)


def _block_option_defaults():
    parameters = inspect.signature(TrellisBlock.__init__).parameters
    return {
        name: parameter.default
        for name, parameter in parameters.items()
        if name != "self"
        and parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)
        and name not in _SET_BY_THE_MODEL
    }


def _check_block_options(options):
    known = _block_option_defaults()
    for name in options:
        if name in known:
            continue
        if name in _SET_BY_THE_MODEL:  # return_state: the others are TrellisNet's own arguments
            raise ValueError(
                f"TrellisNet sets the TrellisBlock option `{name}` itself (its outputs feed the "
                "head); it cannot be passed through."
            )
        close = difflib.get_close_matches(name, known, n=1)
        raise ValueError(
            f"Unknown TrellisNet option `{name}`"
            + (f" (did you mean `{close[0]}`?)" if close else "")
            + ". Besides its own arguments, TrellisNet passes these TrellisBlock options to its "
            f"block: {', '.join(known)}."
        )


def _serialize_activation(activation):
    if activation is None or isinstance(activation, str):
        return activation
    return keras.saving.serialize_keras_object(activation)


@keras.saving.register_keras_serializable(package="keras_seq")
class TrellisNet(keras.Model):
    """A TrellisNet: input layer, one `TrellisBlock`, task head.

    The network of Bai, Kolter and Koltun (ICLR 2019) as a functional model.
    With `x~` the embedded input, the block runs `num_levels` weight-tied
    levels of the trellis (paper eq. 1-2 with the gated activation of
    Sec. 5.1; `TrellisBlock` states them for any kernel size and dilation):

        z^(0)_t   = (h^(0)_t, c^(0)_t) = 0
        pre_t     = sum_j x~_{t-(k-1-j)d} U_j + sum_j h^(i)_{t-(k-1-j)d} W_j + b
        i, o, g, f = split(pre_t, 4)
        c^(i+1)_t = sigmoid(f) * c^(i)_{t-d} + sigmoid(i) * tanh(g)
        h^(i+1)_t = sigmoid(o) * tanh(c^(i+1)_t)

    and the head reads `y_t`, the last `output_units` channels of
    `h^(num_levels)_t`.

    Two inputs:

    - tokens (`vocab_size` given): int ids `(batch, time)` through an
      embedding `E` of width `embedding_dim`. The head is a language model:
      logits `y_t E^T` over the vocabulary at every step. With
      `tie_weights=True` (and `output_units == embedding_dim`) the output
      projection is the embedding matrix transposed
      (`keras.layers.ReversibleEmbedding`, one weight); otherwise a
      `Dense(vocab_size)`.
    - features (`input_dim` given): floats `(batch, time, input_dim)`, through
      a `Dense(embedding_dim)` when `embedding_dim` is given. The head is
      `Dense(num_outputs, output_activation)` at every step
      (`return_sequences=True`) or at the last one (e.g. sequential MNIST,
      the adding problem).

    Input and output dropout are variational (one mask per sequence over the
    features). `embedding_dropout` (token inputs) drops whole words: one
    Bernoulli draw per vocabulary row per call, every occurrence of a dropped
    id in the batch embeds to zero and the kept rows are scaled by
    `1 / (1 - rate)` (AWD-LSTM's embedding dropout, used by the reference
    TrellisNet on word-level PTB). The block's own regularisers (`dropout`,
    its variational hidden dropout, and `weight_dropout`, its temporal
    weight drop) are block options, see below.

    Mixture of softmaxes (`num_experts=K`, token inputs; Yang et al., ICLR
    2018): from `y_t`, a prior `pi = softmax(y_t P)` over `K` experts, `K`
    latent vectors `l_k = tanh(y_t L_k + b_k)` of width `embedding_dim`, and
    `p(w | y_t) = sum_k pi_k softmax(l_k E^T)_w`, with `E` the (tied)
    embedding matrix or an untied `Dense(vocab_size)`. The model then outputs
    LOG-PROBABILITIES `log p` (computed with log-sum-exp, so they stay
    finite). Because `softmax(log p) = p` when `p` sums to one, they are also
    valid logits: compile with the same
    `SparseCategoricalCrossentropy(from_logits=True)` (and `from_logits=True`
    metrics) as the plain head and the loss is exactly `-log p`.

    Stateful (`stateful=True`, needs `batch_size`): the block carries its
    final `(h, c)` from one batch to the next (history repackaging, Appendix
    B, for language-model streams whose row `i` of window `k + 1` continues
    row `i` of window `k`); pass `ResetStates()` to `fit` / `evaluate` /
    `predict`.

    Deep supervision (`aux_frequency=n`, Appendix B): the model has two
    outputs, `{"output": ..., "aux": ...}`; `aux` is the same head applied
    to the block's auxiliary outputs, `(batch, [time,] num_aux, classes)`
    (levels `n, 2n, ...`, the top one included when it is a multiple).
    Train it with `model.compile(**deep_supervision(loss, aux_weight), ...)`
    and targets `{"output": y, "aux": y}`: the loss is
    `loss(y, output) + lambda * mean_a loss(y, aux_a)` with
    `lambda = aux_weight`.

    The model is registered for serialisation: `model.save("m.keras")` and
    `keras.saving.load_model("m.keras")` rebuild it from `get_config()` (its
    constructor arguments) and restore its weights.

    Args:
        hidden_units: Positive integer, width of the block's `h` and `c`.
        output_units: Positive integer <= `hidden_units`, the width of `y_t`
            (the last `output_units` channels of `h`).
        num_levels: Positive integer, depth of the trellis.
        vocab_size: Vocabulary size for token inputs (language model).
        input_dim: Feature width for float inputs. Exactly one of
            `vocab_size` / `input_dim`.
        embedding_dim: Embedding width (required with `vocab_size`); with
            `input_dim`, the width of an optional input projection.
        num_outputs: Width of the dense head (required with `input_dim`).
        return_sequences: Dense head at every step (default) or the last:
            each sequence's last real step when the model is called with a
            `mask=` (`keras_seq.layers.LastStep`).
        output_activation: Activation of the dense head (default linear).
        tie_weights: Tie the language-model projection to the embedding.
            Default `True`.
        input_dropout: Float in [0, 1), variational dropout rate before the
            block.
        output_dropout: Float in [0, 1), variational dropout rate after the
            block.
        aux_frequency: `None` or a positive integer `<= num_levels`: the
            model also outputs the head on every `aux_frequency`-th level
            (deep supervision, see above).
        sequence_length: Optional static length (`None`: any length).
        embedding_dropout: Rate of whole-word dropout on the embedding (token
            inputs only).
        num_experts: `None` (plain softmax head) or an integer >= 1, the
            number of mixture-of-softmaxes experts (token inputs only; the
            output is then log-probabilities).
        stateful: Carry the block state across batches (see above).
        batch_size: Static batch size of the input (required if stateful).
        seed: Random seed of the block's and the model's dropout.
        name: Model name. Default `"trellisnet"`.
        trainable: Whether the model's weights are trainable.
        **block_options: Passed to the `TrellisBlock` (named `"trellis"`);
            any of its constructor arguments except those the model sets
            (`hidden_units`, `output_units`, `num_levels`, `aux_frequency`,
            `stateful`, `seed`, `return_state`): `kernel_size` (default 2),
            `dilations` (default `(1,)`), `dropout` (variational hidden
            dropout), `weight_dropout` (temporal weight drop),
            `weight_norm` (default `True`), `forget_bias`, and the
            initializers, regularizers and constraints of its kernels and
            bias. An unknown name raises a `ValueError`.
            `TrellisNet.block_options()` lists them with their defaults.

    Call arguments:
        inputs: Int token ids `(batch, time)` (`vocab_size`) or floats
            `(batch, time, input_dim)` (`input_dim`).
        training: Python boolean; enables the dropouts.

    Returns:
        Per-step outputs `(batch, time, classes)` (or `(batch, classes)`
        with `return_sequences=False`), `classes` being `vocab_size` or
        `num_outputs`: logits (log-probabilities with `num_experts`) or the
        dense head's activations. With `aux_frequency`, a dict
        `{"output": that, "aux": (batch, [time,] num_aux, classes)}`.

    Example:

    ```python
    # A character model with deep supervision (the paper: 256, 64, 16 levels, 50 characters).
    lm = TrellisNet(32, 16, 4, vocab_size=50, embedding_dim=16, aux_frequency=2, dropout=0.2)
    lm.compile(optimizer="adam", **deep_supervision(
        keras.losses.SparseCategoricalCrossentropy(from_logits=True), 0.3))
    x, y = np.random.randint(0, 50, (4, 20)), np.random.randint(0, 50, (4, 20))
    lm.fit(x, {"output": y, "aux": y}, epochs=1, verbose=0)
    lm.save("lm.keras")
    lm = keras.saving.load_model("lm.keras")

    # Word-level PTB style (the paper: 1000, 400, 58 levels, 10000 words, 15 experts):
    # mixture-of-softmaxes head (log-probabilities), stateful windows.
    lm = TrellisNet(32, 16, 4, vocab_size=100, embedding_dim=16,
                    num_experts=3, embedding_dropout=0.1, weight_dropout=0.5,
                    stateful=True, batch_size=2)
    lm.compile(optimizer="sgd", loss=keras.losses.SparseCategoricalCrossentropy(
        from_logits=True))
    stream = np.random.randint(0, 100, (4, 10))
    lm.fit(stream, stream, batch_size=2, epochs=1, shuffle=False, callbacks=[ResetStates()], verbose=0)

    # The adding problem: a last-step regressor with dilations 1, 2, ..., 128.
    model = TrellisNet(32, 16, 8, input_dim=2, num_outputs=1,
                       return_sequences=False, dilations=[2**i for i in range(8)])
    ```
    """

    def __init__(
        self,
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
        input_dropout=0.0,
        output_dropout=0.0,
        aux_frequency=None,
        sequence_length=None,
        embedding_dropout=0.0,
        num_experts=None,
        stateful=False,
        batch_size=None,
        seed=None,
        name="trellisnet",
        trainable=True,
        **block_options,
    ):
        # === Inputs, embedding and head layers ===
        _check_block_options(block_options)
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
            inputs = keras.Input((sequence_length,), batch_size=batch_size, dtype="int32", name="tokens")
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
                x = EmbeddingDropout(embedding_dropout, vocab_size, seed=seed, name="embedding_dropout")(x, inputs)
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
            inputs = keras.Input((sequence_length, input_dim), batch_size=batch_size, name="features")
            x = inputs
            if embedding_dim is not None:
                x = keras.layers.Dense(embedding_dim, name="input_projection")(x)
            head = keras.layers.Dense(num_outputs, activation=output_activation, name="head")

        # === Block, output dropout and head ===
        x = variational_dropout(x, input_dropout, seed, "input_dropout")
        block = TrellisBlock(
            hidden_units,
            output_units,
            num_levels,
            aux_frequency=aux_frequency,
            stateful=stateful,
            seed=seed,
            name="trellis",
            **block_options,
        )
        outputs = block(x)
        h, aux = outputs if aux_frequency is not None else (outputs, None)
        if not return_sequences:  # each sequence's last real step under a mask
            h = LastStep(name="last_step")(h)
            aux = None if aux is None else LastStep(name="aux_last_step")(aux)
        h = variational_dropout(h, output_dropout, seed, "output_dropout")
        outputs = head(h) if aux is None else {"output": head(h), "aux": head(aux)}
        super().__init__(inputs=inputs, outputs=outputs, name=name, trainable=trainable)

        # === Config ===
        self.hidden_units = hidden_units
        self.output_units = output_units
        self.num_levels = num_levels
        self.vocab_size = vocab_size
        self.input_dim = input_dim
        self.embedding_dim = embedding_dim
        self.num_outputs = num_outputs
        self.return_sequences = return_sequences
        self.output_activation = output_activation
        self.tie_weights = tie_weights
        self.input_dropout = input_dropout
        self.output_dropout = output_dropout
        self.aux_frequency = aux_frequency
        self.sequence_length = sequence_length
        self.embedding_dropout = embedding_dropout
        self.num_experts = num_experts
        self.stateful = stateful
        self.batch_size = batch_size
        self.seed = seed
        # A `mask=` is read by the block (and by the last-step head); the
        # output carries it on only while it keeps the time axis.
        self.supports_masking = True

    def call(self, inputs, training=None, mask=None, **kwargs):
        failed = None
        if self.vocab_size is not None and not isinstance(inputs, keras.KerasTensor):
            failed = validation.id_values("TrellisNet token ids", inputs, self.vocab_size)
        return validation.guard(super().call(inputs, training=training, mask=mask, **kwargs), failed)

    def compute_mask(self, inputs, mask=None):
        if mask is None or not self.return_sequences:
            return None
        return mask if self.aux_frequency is None else {"output": mask, "aux": mask}

    @classmethod
    def block_options(cls):
        """The `TrellisBlock` options the model passes through (`**block_options`),
        as a dict from name to default."""
        return _block_option_defaults()

    def get_config(self):
        # Not `Functional.get_config()`: that is the layer graph, which the
        # constructor does not take. The block options are read back from
        # the block, serialised by it and complete (defaults included).
        block = self.get_layer("trellis").get_config()
        return {
            "hidden_units": self.hidden_units,
            "output_units": self.output_units,
            "num_levels": self.num_levels,
            "vocab_size": self.vocab_size,
            "input_dim": self.input_dim,
            "embedding_dim": self.embedding_dim,
            "num_outputs": self.num_outputs,
            "return_sequences": self.return_sequences,
            "output_activation": _serialize_activation(self.output_activation),
            "tie_weights": self.tie_weights,
            "input_dropout": self.input_dropout,
            "output_dropout": self.output_dropout,
            "aux_frequency": self.aux_frequency,
            "sequence_length": self.sequence_length,
            "embedding_dropout": self.embedding_dropout,
            "num_experts": self.num_experts,
            "stateful": self.stateful,
            "batch_size": self.batch_size,
            "seed": self.seed,
            "name": self.name,
            "trainable": self.trainable,
            **{option: block[option] for option in self.block_options()},
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        # The default for functional models would rebuild a plain
        # `keras.Model` from a layer graph; this config is the constructor's.
        with keras.saving.custom_object_scope(custom_objects or {}):
            return cls(**config)
