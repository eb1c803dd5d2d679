"""The deep-supervision loss of TrellisNet (Bai, Kolter, Koltun, "Trellis
Networks for Sequence Modeling", ICLR 2019, Appendix B): the task loss of
the main output plus `lambda` times its mean over the auxiliary outputs taken
every few levels of the trellis."""

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="keras_seq")
class DeepSupervisionLoss(keras.losses.Loss):
    """A loss averaged over the auxiliary outputs of a TrellisNet.

    With auxiliary outputs `y_hat^(a)`, `a = 1 .. num_aux` (the shared head
    applied to levels `n, 2n, ...` of the trellis), the loss is

        L_aux(y, y_hat) = (1 / num_aux) sum_a loss(y, y_hat^(a))

    per sample (and per step): the targets `y_true` (those of the main
    output) are broadcast over the `num_aux` axis (`-2`) of `y_pred`, so
    per-step sample weights of the main output apply unchanged.

    Args:
        loss: The main output's loss (name, function or `keras.losses.Loss`;
            a `Loss` is used unreduced, through its `call`).
        name: Name of the loss. Default `"deep_supervision"`.
        reduction: As in `keras.losses.Loss`.
        dtype: As in `keras.losses.Loss`.

    Call arguments:
        y_true: The main output's targets, `(batch, [time,] classes)` (dense)
            or `(batch, [time])` (sparse class ids).
        y_pred: The auxiliary outputs, `(batch, [time,] num_aux, classes)`.
        sample_weight: Optional weights of the main output's shape.

    Returns:
        The reduced loss (a scalar with the default reduction).

    Example:

    ```python
    model = TrellisNet(16, 8, 4, vocab_size=20, embedding_dim=8, aux_frequency=2)
    sparse = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model.compile(optimizer="adam",
                  loss={"output": sparse, "aux": DeepSupervisionLoss(sparse)},
                  loss_weights={"output": 1.0, "aux": 0.3})
    tokens = np.random.randint(0, 20, (4, 12))
    model.fit(tokens[:, :-1], {"output": tokens[:, 1:], "aux": tokens[:, 1:]}, epochs=1, verbose=0)
    ```
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
    """`compile` arguments for a TrellisNet with auxiliary outputs.

    The paper's deep supervision (Appendix B): the total loss is
    `loss(y, y_hat) + lambda * L_aux(y, y_hat^(1..num_aux))`, the main loss
    with weight 1 and the `DeepSupervisionLoss` of the auxiliary outputs with
    weight `lambda = aux_weight`.

    Args:
        loss: The main output's loss (name, function or `keras.losses.Loss`).
        aux_weight: Number >= 0, the weight `lambda` of the auxiliary loss.

    Returns:
        A dict with `loss` and `loss_weights`, keyed by the model's outputs
        `"output"` and `"aux"`, to pass to `compile` as `**kwargs`.

    Example:

    ```python
    model = TrellisNet(16, 8, 4, vocab_size=20, embedding_dim=8, aux_frequency=2)
    model.compile(optimizer="adam", **deep_supervision(
        keras.losses.SparseCategoricalCrossentropy(from_logits=True), 0.3))
    x, y = np.random.randint(0, 20, (4, 12)), np.random.randint(0, 20, (4, 12))
    model.fit(x, {"output": y, "aux": y}, epochs=1, verbose=0)
    ```
    """
    if not isinstance(aux_weight, (int, float)) or aux_weight < 0:
        raise ValueError(f"`aux_weight` must be a number >= 0; got {aux_weight!r}.")
    return {
        "loss": {"output": loss, "aux": DeepSupervisionLoss(loss)},
        "loss_weights": {"output": 1.0, "aux": float(aux_weight)},
    }
