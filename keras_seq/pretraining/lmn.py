"""The LMN pretraining scheme (Bacciu, Carta, Sperduti, Linear Memory
Networks, Sec. 4).

1. Train an unrolled feedforward network on a window of the last `k`
   inputs: `h(v) = f(v W_xh + b_h)` shared across the window, each hidden
   vector seeing one step, `o_t = sigmoid(sum_{i<k} h(x_{t-i}) W_o[i] + b_o)`.
2. Collect the hidden sequences `h(x_1..x_l)` of the training sequences.
3. Fit the linear autoencoder on them (`p = memory_units`, history `k`).
4. Initialise an LMN-B: `W_xh, b_h` from the unrolled net, `W_hm = A^T`,
   `W_mm = B^T`, `W_mh = 0`, read-out `W_mo = sum_{i<k} B^i A W_o[i]`,
   `b_o` unchanged (`h_{t-i} ~ m_t B^i A`).
5. Fine-tuning is `model.fit` on the returned model.

Steps before a sequence starts contribute nothing to the unrolled output
(the window's `valid` input zeroes their hidden vectors), exactly as the
autoencoder's `Xi` holds zeros there, so with the same activation in both
networks and a full-rank autoencoder (`memory_units >= units * window`) the
freshly initialised LMN reproduces the unrolled network's outputs.
"""

import keras
import numpy as np

from keras_seq.layers.linear_memory import LMN
from keras_seq.metrics import frame_scores
from keras_seq.pretraining.linear_autoencoder import LinearAutoencoder
from keras_seq.pretraining.linear_autoencoder import as_padded


def unrolled_network(input_dim, output_dim, units, window, activation="selu"):
    """The unrolled window network of step 1, as a Keras model.

    Inputs: `{"window": (batch, window, input_dim), "valid": (batch,
    window, 1)}`, `window[:, i]` = `x_{t-i}` (most recent first) and `valid`
    1 where that step exists, 0 before the sequence start. Output
    `(batch, output_dim)` probabilities. The shared hidden layer is the
    `Dense` named `"functional"`, the read-out the `Dense` named
    `"readout"` (kernel `(window * units, output_dim)`, block `i` = `W_o[i]`).
    """
    window_input = keras.Input((window, input_dim), name="window")
    valid = keras.Input((window, 1), name="valid")
    hidden = keras.layers.Dense(units, activation=activation, name="functional")(window_input)
    hidden = keras.layers.Multiply(name="drop_before_start")([hidden, valid])
    flat = keras.layers.Flatten()(hidden)
    output = keras.layers.Dense(output_dim, activation="sigmoid", name="readout")(flat)
    return keras.Model({"window": window_input, "valid": valid}, output)


def windows(padded, lengths, window):
    """Windows of the last `window` inputs of every valid step.

    Returns `{"window": (rows, window, a), "valid": (rows, window, 1)}` in
    row order (sequence by sequence, step by step), most recent first.
    """
    n, steps, a = padded.shape
    shifted = np.zeros((n, steps, window, a), dtype="float32")
    exists = np.zeros((n, steps, window, 1), dtype="float32")
    time_valid = np.arange(steps)[None, :] < lengths[:, None]
    for i in range(min(window, steps)):
        shifted[:, i:, i] = padded[:, : steps - i]
        exists[:, i:, i, 0] = time_valid[:, : steps - i]
    return {"window": shifted[time_valid], "valid": exists[time_valid]}


def pretrain_lmn(
    train_sequences,
    train_targets,
    units,
    memory_units,
    window=10,
    activation="selu",
    epochs=10,
    batch_size=64,
    learning_rate=1e-3,
    validation_data=None,
    autoencoder_options=None,
    verbose=0,
):
    """Pretrains an LMN-B by the paper's scheme (steps 1-4 above).

    Args:
        train_sequences: List of `(T_i, a)` input arrays.
        train_targets: List of `(T_i, o)` target arrays in [0, 1] (e.g. the
            next piano-roll frame), aligned with the inputs.
        units: Functional units (`h`), also the unrolled hidden size.
        memory_units: Memory units `p` of the LMN and the autoencoder.
            `units * window` (or more) makes the autoencoder exact; if it
            exceeds the possible rank the autoencoder clamps (with a
            warning) and the extra memory units get zero weights.
        window: History `k` of the unrolled network. Paper: 10.
        activation: Activation of the functional units, in the unrolled
            network and in the LMN alike (the initialisation is exact only
            if they agree). Default `"selu"`, the paper's choice for the
            unrolled network; the paper then switched the LMN to tanh.
        epochs, batch_size, learning_rate: Training of the unrolled network
            (Adam, binary cross-entropy). `epochs=0` skips training.
        validation_data: Optional `(sequences, targets)` lists, scored in the
            report.
        autoencoder_options: Extra keyword arguments of `LinearAutoencoder`
            (`solver`, `seed`, ...). Without a `seed`, one is drawn from
            NumPy's global generator: after `keras.utils.set_random_seed(s)`
            the same call gives the same model.
        verbose: Passed to `fit`.

    Returns:
        `(model, report)`. `model`: an uncompiled
        `Sequential([Input((None, a)), LMN(..., return_sequences=True),
        Dense(o, "sigmoid")])`, ready for `compile` and `fit` (the model
        has no mask: pass `sample_weight` for padded batches). `report`:
        `reconstruction_error` and `svd_error` of the autoencoder on the
        hidden sequences, `n_components`, frame-level accuracy and NLL per
        frame of the unrolled and of the pretrained network on the
        training (and validation) data (`"unrolled"` / `"pretrained"`
        dicts), plus the fitted `autoencoder` and `unrolled_model`.

    Example:

    >>> rng = np.random.default_rng(0)
    >>> rolls = [(rng.random((10, 5)) < 0.4).astype("float32") for _ in range(4)]  # 4 binary piano rolls
    >>> targets = [np.concatenate([r[1:], np.zeros((1, 5), "float32")]) for r in rolls]  # the next frames
    >>> model, report = keras_seq.pretraining.pretrain_lmn(rolls, targets, units=3, memory_units=12, window=4, epochs=1)
    >>> model.output_shape, report["n_components"]  # memory_units = units * window: exact
    ((None, None, 5), 12)
    >>> bool(report["reconstruction_error"] < 1e-8)
    True
    >>> bool(np.isclose(report["unrolled"]["train"]["nll"], report["pretrained"]["train"]["nll"], rtol=1e-4))
    True
    """
    inputs, lengths, targets = _checked_pairs("train", train_sequences, train_targets)
    input_dim, output_dim = inputs.shape[-1], targets.shape[-1]
    if validation_data is not None:  # checked now, not after the pretraining
        if not isinstance(validation_data, (list, tuple)) or len(validation_data) != 2:
            raise ValueError("`validation_data` must be a pair (sequences, targets).")
        _checked_pairs("validation", *validation_data, input_dim, output_dim)

    # Step 1: the unrolled network.
    unrolled = unrolled_network(input_dim, output_dim, units, window, activation)
    if epochs:
        valid = np.arange(inputs.shape[1])[None, :] < lengths[:, None]
        unrolled.compile(
            optimizer=keras.optimizers.Adam(learning_rate),
            loss="binary_crossentropy",
        )
        unrolled.fit(
            windows(inputs, lengths, window),
            targets[valid].astype("float32"),
            epochs=epochs,
            batch_size=batch_size,
            verbose=verbose,
        )

    # Step 2: hidden sequences h(x_t) of the training data.
    hidden = _hidden_sequences(unrolled, inputs, lengths)

    # Step 3: the linear autoencoder on the hidden sequences.
    # The randomized solver's seed comes from NumPy's global generator unless
    # given, so that `keras.utils.set_random_seed` makes the whole scheme
    # repeatable (it seeds NumPy too).
    options = {"seed": int(np.random.randint(2**31 - 1)), **(autoencoder_options or {})}
    autoencoder = LinearAutoencoder(memory_units, history=window, **options).fit(hidden, lengths)

    # Step 4: initialise the LMN-B.
    model = lmn_from_unrolled(unrolled, autoencoder, memory_units)

    report = {
        "reconstruction_error": autoencoder.reconstruction_error(hidden, lengths),
        "svd_error": autoencoder.svd_error_,
        "n_components": autoencoder.n_components_,
        "autoencoder": autoencoder,
        "unrolled_model": unrolled,
        "unrolled": {},
        "pretrained": {},
    }
    datasets = {"train": (train_sequences, train_targets)}
    if validation_data is not None:
        datasets["validation"] = validation_data
    for split, (sequences, split_targets) in datasets.items():
        report["unrolled"][split] = frame_scores(predict_unrolled(unrolled, sequences, window), split_targets)
        report["pretrained"][split] = frame_scores(predict_sequences(model, sequences), split_targets)
    return model, report


def _checked_pairs(split, sequences, targets, input_dim=None, output_dim=None):
    """The padded inputs, their lengths and the padded targets of one split,
    after checking that they align and that the targets lie in [0, 1] (the
    binary cross-entropy the unrolled network trains on)."""
    inputs, lengths = _padded(split, "sequences", sequences)
    padded_targets, target_lengths = _padded(split, "targets", targets)
    if not np.array_equal(lengths, target_lengths):
        raise ValueError(
            f"The {split} targets must have one (T_i, o) array per sequence, with "
            f"the same lengths; got lengths {lengths.tolist()} and "
            f"{target_lengths.tolist()}."
        )
    for what, array, expected in (("sequences", inputs, input_dim), ("targets", padded_targets, output_dim)):
        if expected is not None and array.shape[-1] != expected:
            raise ValueError(
                f"The {split} {what} have {array.shape[-1]} features per step; the training {what} have {expected}."
            )
    if padded_targets.min() < 0 or padded_targets.max() > 1:
        raise ValueError(
            f"The {split} targets must lie in [0, 1] (binary frames); got values in "
            f"[{padded_targets.min():g}, {padded_targets.max():g}]."
        )
    return inputs, lengths, padded_targets


def _padded(split, what, arrays):
    try:
        return as_padded(arrays)
    except ValueError as error:
        raise ValueError(f"The {split} {what}: {error}") from None


def lmn_from_unrolled(unrolled, autoencoder, memory_units):
    """Step 4: an LMN-B `Sequential` initialised from the unrolled network
    and the autoencoder fitted on its hidden sequences."""
    functional = unrolled.get_layer("functional")
    readout = unrolled.get_layer("readout")
    w_xh, b_h = (np.asarray(w) for w in functional.get_weights())
    w_o, b_o = (np.asarray(w) for w in readout.get_weights())
    input_dim, units = w_xh.shape
    window = w_o.shape[0] // units
    w_o = w_o.reshape(window, units, -1)  # W_o[i], (units, o)

    # Extra memory units (autoencoder clamped to a lower rank) stay at zero.
    p = autoencoder.n_components_
    A = np.zeros((memory_units, units))
    A[:p] = autoencoder.A
    B = np.zeros((memory_units, memory_units))
    B[:p, :p] = autoencoder.B
    decoder = [A]  # B^i A, (memory_units, units)
    for _ in range(window - 1):
        decoder.append(B @ decoder[-1])
    w_mo = sum(d @ w for d, w in zip(decoder, w_o))

    activation = keras.activations.serialize(functional.activation)
    lmn = LMN(
        units,
        memory_units,
        output="memory",
        activation=activation,
        return_sequences=True,
        name="lmn",
    )
    model = keras.Sequential(
        [
            keras.Input((None, input_dim)),
            lmn,
            keras.layers.Dense(w_o.shape[-1], activation="sigmoid", name="readout"),
        ],
        name="pretrained_lmn",
    )
    cell = lmn.cell
    cell.kernel.assign(w_xh)  # W_xh
    cell.bias.assign(b_h)  # b_h
    cell.recurrent_kernel.assign(np.zeros((memory_units, units)))  # W_mh = 0
    cell.memory_kernel.assign(A.T)  # W_hm = A^T
    cell.memory_recurrent_kernel.assign(B.T)  # W_mm = B^T
    model.get_layer("readout").set_weights([w_mo, b_o])  # W_mo, b_o
    return model


def _hidden_sequences(unrolled, inputs, lengths):
    functional = unrolled.get_layer("functional")
    hidden = keras.ops.convert_to_numpy(functional(inputs.astype("float32"))).astype(np.float64)
    hidden[np.arange(inputs.shape[1])[None, :] >= lengths[:, None]] = 0.0
    return hidden


def predict_unrolled(unrolled, sequences, window):
    """Unrolled-network outputs for a list of sequences, as a list."""
    padded, lengths = as_padded(sequences)
    flat = unrolled.predict(windows(padded, lengths, window), verbose=0)
    return np.split(flat, np.cumsum(lengths)[:-1])


def predict_sequences(model, sequences, batch_size=64):
    """Outputs of a causal sequence model for a list of sequences, as a
    list. Trailing padding cannot change the earlier (valid) outputs of a
    causal model, so the sequences run padded, in batches."""
    padded, lengths = as_padded(sequences)
    outputs = model.predict(padded.astype("float32"), batch_size=batch_size, verbose=0)
    return [outputs[j, :length] for j, length in enumerate(lengths)]


def fine_tune(
    model,
    report,
    train_sequences,
    train_targets,
    validation_data=None,
    epochs=10,
    batch_size=32,
    learning_rate=1e-3,
    verbose=0,
):
    """Step 5: trains the pretrained LMN end to end and adds the fine-tuned
    scores to `report["fine_tuned"]` (the paper's Fig. 4b after fine-tuning).

    Sequences are padded and the padding gets zero sample weight. Returns the
    Keras `History`.

    Example:

    >>> rng = np.random.default_rng(0)
    >>> rolls = [(rng.random((10, 5)) < 0.4).astype("float32") for _ in range(4)]  # 4 binary piano rolls
    >>> targets = [np.concatenate([r[1:], np.zeros((1, 5), "float32")]) for r in rolls]  # the next frames
    >>> model, report = keras_seq.pretraining.pretrain_lmn(rolls, targets, units=3, memory_units=12, window=4, epochs=1)
    >>> history = keras_seq.pretraining.fine_tune(model, report, rolls, targets, epochs=1)
    >>> len(history.history["loss"]), sorted(report["fine_tuned"]["train"])
    (1, ['frame_accuracy', 'nll'])
    """
    inputs, lengths = as_padded(train_sequences)
    targets, _ = as_padded(train_targets)
    weights = (np.arange(inputs.shape[1])[None, :] < lengths[:, None]).astype("float32")
    model.compile(optimizer=keras.optimizers.Adam(learning_rate), loss="binary_crossentropy")
    history = model.fit(
        inputs.astype("float32"),
        targets.astype("float32"),
        sample_weight=weights,
        epochs=epochs,
        batch_size=batch_size,
        verbose=verbose,
    )
    datasets = {"train": (train_sequences, train_targets)}
    if validation_data is not None:
        datasets["validation"] = validation_data
    report["fine_tuned"] = {
        split: frame_scores(predict_sequences(model, sequences), split_targets)
        for split, (sequences, split_targets) in datasets.items()
    }
    return history


def plot_report(report, path):
    """The paper's Fig. 4 a/b as one PNG: the autoencoder's reconstruction
    error, and frame-level accuracy of the unrolled, pretrained and (when
    present) fine-tuned networks on each split.

    Example:

    >>> rng = np.random.default_rng(0)
    >>> rolls = [(rng.random((10, 5)) < 0.4).astype("float32") for _ in range(4)]  # 4 binary piano rolls
    >>> targets = [np.concatenate([r[1:], np.zeros((1, 5), "float32")]) for r in rolls]  # the next frames
    >>> model, report = keras_seq.pretraining.pretrain_lmn(rolls, targets, units=3, memory_units=12, window=4, epochs=1)
    >>> keras_seq.pretraining.plot_report(report, "lmn_report.png")  # into the current folder
    >>> import os
    >>> os.path.getsize("lmn_report.png") > 0
    True
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    stages = [s for s in ("unrolled", "pretrained", "fine_tuned") if report.get(s)]
    splits = list(report[stages[0]])
    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.bar(["SVD (best rank-p)", "linear autoencoder"], [report["svd_error"], report["reconstruction_error"]])
    left.set_title(f"(a) reconstruction error, p = {report['n_components']}")
    width = 0.8 / len(splits)
    for j, split in enumerate(splits):
        values = [report[s][split]["frame_accuracy"] for s in stages]
        right.bar(np.arange(len(stages)) + j * width, values, width, label=split)
    right.set_xticks(np.arange(len(stages)) + width * (len(splits) - 1) / 2, stages)
    right.set_title("(b) frame-level accuracy")
    right.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
