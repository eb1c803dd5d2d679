"""A count-based n-gram model of next-token prediction (numpy, no Keras): the
classic baseline of the melody tables (SCRBM paper Table 1, "n-gram").

The model predicts `targets[t]` of a `Sequences` pair from the last
`order - 1` input ids up to and including `inputs[t]` (for next-token data,
the current event and the ones before it); contexts reaching before the
start of a sequence are filled with the symbol `START`. Probabilities are
interpolated with the next shorter context, down to the uniform distribution:

    P_0(w)        = 1 / V
    P_m(w | h_m)  = (c(h_m, w) + beta(h_m) * P_{m-1}(w | h_{m-1}))
                    / (c(h_m) + beta(h_m))               for m = 1..order

where `h_m` holds the last `m - 1` symbols (so `P_1` is the unigram level),
`h_{m-1}` is `h_m` without its oldest symbol, `c(h, w)` counts `w` after `h`
in the training data and `c(h)` sums them. `beta(h)` is

- `"witten_bell"`: the number of distinct symbols seen after `h`;
- `"add_k"`: `k * V` (additive smoothing towards the shorter context, which
  is plain add-k smoothing at the unigram level).

A context never seen in training (`c(h) = 0`) backs off: `P_m = P_{m-1}`.
Every level sums to one, and no probability is zero.
"""

import dataclasses
import itertools

import numpy as np

from keras_seq import metrics

START = -1  # context symbol before the first step of a sequence
SMOOTHINGS = ("witten_bell", "add_k")


def _contexts(inputs, max_length):
    """For each step t, the last `max_length` ids up to inputs[t] (oldest
    first), filled with START before the sequence begins."""
    padded = [START] * max_length + [int(i) for i in np.ravel(inputs)]
    return [tuple(padded[t + 1 : t + 1 + max_length]) for t in range(len(padded) - max_length)]


@dataclasses.dataclass
class NgramModel:
    """Interpolated n-gram model over `num_classes` next symbols.

    Args:
        num_classes: Size `V` of the target vocabulary (ids `0..V-1`).
        order: n: the context holds the last `n - 1` input ids (1: unigram).
        smoothing: `"witten_bell"` or `"add_k"` (see the module docstring).
        k: Pseudo-count per symbol for `"add_k"`.

    Example:

    >>> model = NgramModel(3, order=2).fit([np.array([0, 1, 2])], [np.array([1, 2, 0])])
    >>> bool(np.isclose(model.distribution((2,)).sum(), 1.0))
    True
    """

    num_classes: int
    order: int = 3
    smoothing: str = "witten_bell"
    k: float = 0.1
    # counts[m]: {context of m symbols: counts of the next symbol, shape (V,)}
    counts: list = dataclasses.field(default_factory=list, repr=False)

    def __post_init__(self):
        if self.order < 1:
            raise ValueError(f"`order` must be at least 1; got {self.order}.")
        if self.smoothing not in SMOOTHINGS:
            raise ValueError(f"Unknown smoothing {self.smoothing!r}; known: {SMOOTHINGS}.")
        if self.smoothing == "add_k" and not self.k > 0:
            raise ValueError(f"add-k smoothing needs k > 0; got {self.k}.")

    def fit(self, inputs, targets):
        """Counts every (context, target) pair of aligned sequences.

        Args:
            inputs: List of id arrays `(time,)`.
            targets: List of target id arrays, same lengths.

        Returns:
            The model itself, fitted.
        """
        self.counts = [{} for _ in range(self.order)]
        for sequence_inputs, sequence_targets in zip(inputs, targets):
            longest = _contexts(sequence_inputs, self.order - 1)
            for context, target in zip(longest, np.ravel(sequence_targets)):
                for length, table in enumerate(self.counts):
                    history = context[len(context) - length :] if length else ()
                    row = table.get(history)
                    if row is None:
                        row = table[history] = np.zeros(self.num_classes, "int64")
                    row[int(target)] += 1
        return self

    def with_smoothing(self, order, smoothing, k=None):
        """The same counts (truncated to `order`) under other settings."""
        if order > len(self.counts):
            raise ValueError(f"Counts go up to order {len(self.counts)}; asked for {order}.")
        return NgramModel(self.num_classes, order, smoothing, self.k if k is None else k, self.counts[:order])

    def _beta(self, row):
        if self.smoothing == "witten_bell":
            return float(np.count_nonzero(row))
        return self.k * self.num_classes

    def distribution(self, context):
        """`P(w | context)` for every `w`: an array `(V,)` that sums to 1.

        Args:
            context: Tuple of the preceding input ids, oldest first (START
                for steps before the sequence); only the last `order - 1`
                are used.
        """
        if not self.counts:
            raise ValueError("The model is not fitted; call fit() first.")
        context = tuple(context)
        probabilities = np.full(self.num_classes, 1.0 / self.num_classes)
        for length in range(self.order):
            if length > len(context):
                break
            row = self.counts[length].get(context[len(context) - length :] if length else ())
            if row is None:
                break  # unseen context: longer ones are unseen too, keep the back-off
            beta = self._beta(row)
            probabilities = (row + beta * probabilities) / (row.sum() + beta)
        return probabilities

    def predict(self, inputs):
        """Next-symbol distributions of one sequence, `(time, V)`."""
        return np.stack([self.distribution(c) for c in _contexts(inputs, self.order - 1)])

    def count_entries(self):
        """How many n-gram counts are stored (non-zero entries, all orders)."""
        return int(sum(np.count_nonzero(row) for table in self.counts for row in table.values()))


def evaluate(model, inputs, targets):
    """Test metrics as keras_seq.metrics defines them (metrics.md).

    Args:
        model: A fitted `NgramModel`.
        inputs: List of id arrays.
        targets: List of target id arrays, aligned with `inputs`.

    Returns:
        `{"bits_per_event": -sum log2 p(target) / events (SCRBM eq. 15),
        "sequence_error": eq. 16 on the argmax predictions,
        "token_error": the token-level error}`.
    """
    longest = max(len(t) for t in targets)
    true = np.zeros((len(targets), longest), "int64")
    predicted = np.zeros_like(true)
    mask = np.zeros(true.shape, bool)
    bits = 0.0
    for i, (sequence_inputs, sequence_targets) in enumerate(zip(inputs, targets)):
        sequence_targets = np.ravel(sequence_targets).astype("int64")
        probabilities = model.predict(sequence_inputs)
        steps = len(sequence_targets)
        bits -= np.log2(probabilities[np.arange(steps), sequence_targets]).sum()
        true[i, :steps] = sequence_targets
        predicted[i, :steps] = probabilities.argmax(axis=-1)
        mask[i, :steps] = True
    sequence_error, token_error = metrics.labelling_errors(true, predicted, mask)
    return {"bits_per_event": float(bits / mask.sum()), "sequence_error": sequence_error, "token_error": token_error}


def select(train, valid, num_classes, max_order=6, add_k=(0.01, 0.03, 0.1, 0.3, 1.0)):
    """Fits counts on `train` and picks the order and smoothing with the
    lowest bits per event on `valid`.

    Args:
        train: `Sequences` to count.
        valid: `Sequences` for the choice.
        num_classes: Target vocabulary size.
        max_order: Orders 1..max_order are tried.
        add_k: The k values tried for add-k smoothing (Witten-Bell is always tried).

    Returns:
        `(best model, table)`: the table lists every setting tried with its
        validation bits per event, as dicts.

    Example:

    >>> model, table = select(train, valid, num_classes=88, max_order=3)
    """
    counts = NgramModel(num_classes, max_order).fit(train.inputs, train.targets)
    settings = [("witten_bell", None)] + [("add_k", float(k)) for k in add_k]
    table = []
    for order, (smoothing, k) in itertools.product(range(1, max_order + 1), settings):
        model = counts.with_smoothing(order, smoothing, k)
        bits = evaluate(model, valid.inputs, valid.targets)["bits_per_event"]
        table.append({"order": order, "smoothing": smoothing, "k": k, "valid_bits_per_event": bits})
    best = min(table, key=lambda row: row["valid_bits_per_event"])
    return counts.with_smoothing(best["order"], best["smoothing"], best["k"]), table
