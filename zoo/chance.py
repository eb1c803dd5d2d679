"""Chance level of a run: the test scores of a predictor that ignores its
inputs and always outputs the training targets' frequencies (per key of a
piano roll, per class of a label or token) or their mean (regression),
scored by the task's own loss and metrics. A run whose test NLL is above
this has learnt less than those counts, whatever ended its training
(zoo.report.worse_than_chance marks it).

Example:

>>> chance_scores("next_frame", 88, train_batches, test_batches)
{'frame_accuracy': 0.0, 'frame_nll': 10.7, 'loss': 0.12}
"""

import numpy as np

from keras_seq.zoo import tasks

# Add-half (Krichevsky-Trofimov) smoothing of the counts: a key or class
# never seen in training keeps a finite NLL.
_SMOOTHING = 0.5


def _targets(batches):
    """(y, w) of each `(x, y, w)` batch as numpy arrays (w: ones if absent)."""
    for batch in batches:
        y = np.asarray(batch[1])
        w = np.asarray(batch[2]) if len(batch) > 2 else np.ones(y.shape[: 2 if y.ndim > 1 else 1])
        yield y, w


def training_prior(task, outputs, train):
    """The chance predictor's output: key probabilities (next frame), class
    logits (labels, tokens, classes) or the mean target (regression)."""
    if task.name == "regression":
        values = np.concatenate([y.reshape(-1) for y, _ in _targets(train)])
        return np.array([values.mean()])
    counts, total = np.zeros(outputs), 0.0
    for y, w in _targets(train):
        if task.name == "next_frame":  # y: (batch, time, keys) of 0/1, w: (batch, time)
            counts += (y * w[..., None]).reshape(-1, outputs).sum(0)
            total += float(w.sum())
        else:  # y: integer classes, per step or per sequence
            real = w > 0
            counts += np.bincount(y[real].astype(int), weights=w[real], minlength=outputs)[:outputs]
            total += float(w[real].sum())
    if task.name == "next_frame":
        return (counts + _SMOOTHING) / (total + 2 * _SMOOTHING)
    probabilities = (counts + _SMOOTHING) / (total + outputs * _SMOOTHING)
    return np.log(probabilities)  # the heads output logits


def chance_scores(task_name, outputs, train, test):
    """`{metric: value}` of the chance predictor on `test`, with the names
    and units of a run's test scores (`outputs`: the head's width, see
    `tasks.Task.outputs`). `train` and `test` yield `(x, y, w)` batches."""
    task = tasks.task(task_name)
    prior = training_prior(task, outputs, train).astype("float32")
    metrics, loss = task.make_metrics(), task.make_loss()
    loss_sum, seen = 0.0, 0
    for y, w in _targets(test):
        steps = y.shape[:-1] if task.name in ("next_frame", "regression") and y.ndim > 1 else y.shape
        predicted = np.broadcast_to(prior, steps + prior.shape).astype("float32")
        weight = w if task.per_step else None
        for metric in metrics:
            metric.update_state(y, predicted, sample_weight=weight)
        loss_sum += float(loss(y, predicted, sample_weight=weight)) * len(y)
        seen += len(y)
    scores = {metric.name: float(metric.result()) for metric in metrics}
    scores["loss"] = loss_sum / max(seen, 1)
    return scores
