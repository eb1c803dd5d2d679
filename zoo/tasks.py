"""The zoo's kinds of task (`DatasetInfo.task`): each owns its head, loss,
metrics, headline metric and NLL, and reads its sizes from the dataset's
info. Builders compile through them; reports read the metric names. A new
kind of task is one `Task` in `TASKS`.
"""

import dataclasses


def _binary_crossentropy():
    import keras

    return keras.losses.BinaryCrossentropy()


def _sparse_crossentropy():
    import keras

    return keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def _mean_squared_error():
    import keras

    return keras.losses.MeanSquaredError()


def _frame_metrics():
    from keras_seq import metrics

    return [metrics.FrameAccuracy(), metrics.FrameNLL()]


def _labelling_metrics():
    from keras_seq import metrics

    return [metrics.SequenceLabellingError(), metrics.BitsPerEvent(from_logits=True)]


def _language_metrics():
    from keras_seq import metrics

    return [
        metrics.SequenceLabellingError(),
        metrics.BitsPerEvent(from_logits=True),
        metrics.Perplexity(from_logits=True),
    ]


def _accuracy():
    import keras

    return [keras.metrics.SparseCategoricalAccuracy(name="accuracy")]


def _mse():
    import keras

    return [keras.metrics.MeanSquaredError(name="mse")]


@dataclasses.dataclass(frozen=True)
class Task:
    """A kind of task.

    Attributes:
        name: The `DatasetInfo.task` it serves.
        headline: The test metric its tables report (the papers' metric).
        nll: Its test negative log-likelihood metric (or the loss).
        per_step: Targets at every step (metrics weighted by the pipeline's
            step weights, padding excluded) rather than one per sequence.
        output_activation: The head's activation (None: logits / linear).
        make_loss, make_metrics: Fresh loss and metric objects.
    """

    name: str
    headline: str
    nll: str
    per_step: bool
    output_activation: str | None
    make_loss: object
    make_metrics: object

    def outputs(self, info):
        """Output units of the head: one per key (piano rolls), per class,
        or one (regression)."""
        if self.name == "next_frame":
            return info.input_shape[0]
        if self.name == "regression":
            return 1
        return info.num_classes

    def compile_arguments(self):
        """`loss` and (weighted) `metrics` for `Model.compile`, fresh objects
        (metrics hold state: every compiled model needs its own)."""
        key = "weighted_metrics" if self.per_step else "metrics"
        return {"loss": self.make_loss(), key: self.make_metrics()}


TASKS = {
    "next_frame": Task(
        "next_frame", "frame_accuracy", "frame_nll", True, "sigmoid", _binary_crossentropy, _frame_metrics
    ),
    "labelling": Task(
        "labelling", "sequence_error", "bits_per_event", True, None, _sparse_crossentropy, _labelling_metrics
    ),
    "next_token": Task(
        "next_token", "bits_per_event", "bits_per_event", True, None, _sparse_crossentropy, _language_metrics
    ),
    "classification": Task("classification", "accuracy", "loss", False, None, _sparse_crossentropy, _accuracy),
    "regression": Task("regression", "loss", "loss", False, None, _mean_squared_error, _mse),
}


def task(name):
    if name not in TASKS:
        raise ValueError(f"Unknown task {name!r}; known: {', '.join(TASKS)}.")
    return TASKS[name]
