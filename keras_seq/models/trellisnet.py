"""TrellisNet models (Bai, Kolter, Koltun, ICLR 2019): input layer, one
`TrellisBlock`, task head; tied embeddings for language modelling and the
deep-supervision loss of Appendix B."""

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
    features); `dropout` is the block's hidden dropout.

    With `aux_frequency`, the model has two outputs, `{"output": ..., "aux":
    ...}`: `aux` is the same head applied to the block's auxiliary outputs,
    `(batch, [time,] num_aux, classes)`. Train it with
    `model.compile(**deep_supervision(loss, aux_weight), ...)` and targets
    `{"output": y, "aux": y}` (the paper's deep supervision, lambda =
    `aux_weight`).

    Args:
        hidden_units, output_units, num_levels, kernel_size, dilations,
        dropout, weight_norm, aux_frequency, seed: As in `TrellisBlock`.
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
    ```
    """
    if (vocab_size is None) == (input_dim is None):
        raise ValueError(
            "Give exactly one of `vocab_size` (token inputs) and `input_dim` "
            f"(float inputs); got vocab_size={vocab_size!r}, input_dim={input_dim!r}."
        )
    validation.rate("input_dropout", input_dropout)
    validation.rate("output_dropout", output_dropout)
    if vocab_size is not None:
        validation.positive_int("vocab_size", vocab_size)
        validation.positive_int("embedding_dim", embedding_dim)
        inputs = keras.Input((sequence_length,), dtype="int32", name="tokens")
        tied = tie_weights and output_units == embedding_dim
        if tie_weights and not tied:
            raise ValueError(
                "Tied embeddings need `output_units == embedding_dim`; got "
                f"output_units={output_units!r}, embedding_dim={embedding_dim!r}."
            )
        embedding = keras.layers.ReversibleEmbedding(
            vocab_size, embedding_dim, tie_weights=tied, name="embedding"
        )
        x = embedding(inputs)
        if tied:
            head = lambda h: embedding(h, reverse=True)  # noqa: E731
        else:
            head = keras.layers.Dense(vocab_size, name="head")
    else:
        validation.positive_int("input_dim", input_dim)
        validation.positive_int("num_outputs", num_outputs)
        inputs = keras.Input((sequence_length, input_dim), name="features")
        x = inputs
        if embedding_dim is not None:
            x = keras.layers.Dense(embedding_dim, name="input_projection")(x)
        head = keras.layers.Dense(num_outputs, activation=output_activation, name="head")

    x = _variational_dropout(x, input_dropout, seed, "input_dropout")
    block = TrellisBlock(
        hidden_units, output_units, num_levels, kernel_size=kernel_size,
        dilations=dilations, dropout=dropout, weight_norm=weight_norm,
        aux_frequency=aux_frequency, seed=seed, name="trellis",
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
            return self.loss.call(y_true, y_pred)
        return self.loss(y_true, y_pred)

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
