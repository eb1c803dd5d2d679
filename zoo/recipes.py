"""Recipes: one per row of a paper table. A recipe is data (dataset, model
builder and its arguments, training settings, the published number), not a
code path: adding a task means adding an entry here."""

import dataclasses
import json
import os


@dataclasses.dataclass(frozen=True)
class PaperNumber:
    value: float
    metric: str  # a key of the evaluation results, e.g. "sequence_error"
    source: str


@dataclasses.dataclass(frozen=True)
class Annealing:
    """The learning rate times `factor` after `patience` validation checks
    that improve the recipe's monitor by no more than `min_delta`, not below
    `min_learning_rate` (zoo.callbacks.PlateauAnnealing)."""

    patience: int
    factor: float = 0.1
    min_delta: float = 0.0
    min_learning_rate: float = 1e-5


@dataclasses.dataclass(frozen=True)
class Recipe:
    name: str
    dataset: str
    builder: str  # a function of zoo.builders
    model: dict
    description: str = ""
    data_options: dict = dataclasses.field(default_factory=dict)
    batch_size: int = 32
    # The epoch limit: far above where early stopping ends a run on validation,
    # so that a run it cuts shows up as not converged (zoo.callbacks).
    epochs: int = 2000
    patience: int = 10  # early stopping on the validation metric, in validation checks
    check_every: int = 1  # validate (and check for early stopping) every this many epochs
    # The smallest change of `monitor` that resets patience (absolute): for
    # losses that fall towards zero by ever smaller steps.
    min_delta: float = 0.0
    monitor: str = "val_loss"
    monitor_mode: str = "min"
    # (metric, mode) pairs that also reset early stopping's patience while
    # they improve; the model is still selected on `monitor` alone.
    progress: tuple = ()
    train_split: str = "train"
    valid_split: str | None = "valid"  # None: fixed epochs, no model selection
    paper: PaperNumber | None = None
    # --quick: tiny data and model, one epoch: checks the recipe runs.
    quick_model: dict = dataclasses.field(default_factory=dict)
    # The test metric of the recipe's table row when the paper gives none
    # (default: the task's, see zoo.report.TASK_HEADLINE).
    headline: str | None = None
    # Model arguments chosen on validation by `keras-seq select` (zoo.select):
    # {argument: candidate values}; the paper's grid where it gives one.
    grid: dict = dataclasses.field(default_factory=dict)
    # The learning rate falls at validation plateaus (None: it stays).
    anneal: Annealing | None = None

    @property
    def teacher_forcing(self):
        return self.model.get("kind") == "scrbm"

    @property
    def dataset_info(self):
        """The `DatasetInfo` of the arrays the recipe loads (its data options
        can change the inputs' shape)."""
        from keras_seq import data

        return data.info(self.dataset, **self.data_options)


RECIPES = {}

# --quick runs: the first this many sequences of each split (zoo.train).
QUICK_SEQUENCES = 12


def add(recipe):
    if recipe.name in RECIPES:
        raise ValueError(f"Recipe {recipe.name!r} is defined twice.")
    RECIPES[recipe.name] = recipe


def get(name):
    """The recipe `name` as defined here: its arguments before any selection
    on validation (`selected` gives the chosen ones)."""
    if name not in RECIPES:
        raise ValueError(f"Unknown recipe {name!r}. Known recipes: {', '.join(sorted(RECIPES))}.")
    return RECIPES[name]


# The grid point `keras-seq select` chose for each recipe with one: a copy
# of every records/<recipe>/selected.json, shipped with the package (the
# records are not), written by `keras-seq results --rebuild`.
SELECTED_POINTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "selected_points.json")


def selected_points():
    """{recipe name: its selected grid point}."""
    with open(SELECTED_POINTS) as f:
        return json.load(f)


def selected(name):
    """The recipe `name` at the grid point chosen on validation, the
    arguments its RESULTS row and its preset were trained at (the recipe as
    defined when it has no selection)."""
    recipe = get(name)
    point = selected_points().get(name)
    return dataclasses.replace(recipe, model={**recipe.model, **point}) if point else recipe


_SCRBM = "Tran et al., Linear-Time Sequence Classification using RBMs"

# Polyphonic music, next-frame prediction (LMN paper, Table 2 grid points).
# The model is selected on validation frame accuracy, the metric the paper
# reports; the validation NLL also resets the patience, since accuracy sits
# near zero for hundreds of updates while a model first learns to predict no
# notes. The epoch limit is far above where early stopping ends these runs,
# so that it, not the limit, ends them.
# The baselines' sizes are chosen from the LMN paper's grid (RNN / LSTM
# units), their dropout from a small grid.
_BASELINE_UNITS = (50, 100, 250, 500, 750)
_PIANO_ROLL_GRID = {
    kind: {"units": _BASELINE_UNITS, "dropout": (0.0, 0.2, 0.5), "learning_rate": (1e-3, 3e-3)}
    for kind in ("lstm", "gru", "simple_rnn")
}
# The LMNs' grid, the paper's: (functional, memory) unit pairs and L2.
_LMN_GRID = {
    "units,memory_units": ((50, 50), (50, 100), (100, 100), (100, 250), (250, 250), (250, 500)),
    "l2": (1e-4, 1e-5, 1e-6, 1e-7, 0.0),
}
_PIANO_ROLL_GRID.update(lmn_a=_LMN_GRID, lmn_b=_LMN_GRID)
# Adam 3e-3 for the recurrent baselines, chosen on validation: on the music21
# Bach chorales the LSTM(100) reaches validation frame accuracy 24.05 % in 231
# epochs at 3e-3, against 23.55 % in 433 epochs at the paper's 1e-3 and at
# most 23.4 % at 1e-2 (seed 0, each run ended by early stopping).
# The LMNs keep the paper's 1e-3: the pretrained LMN-B falls from 23.0 % to
# 20.5 % test accuracy at 3e-3 (it leaves its pretrained optimum).
_BASELINE_LEARNING_RATE = 3e-3
_PIANO_ROLL_STOPPING = {
    "monitor": "val_frame_accuracy",
    "monitor_mode": "max",
    "progress": (("val_frame_nll", "min"),),
    "patience": 20,
    "epochs": 3000,
}
# The LMNs trained from a random start clip the gradients' global norm at 1
# on the sets with long pieces (Nottingham up to 1,787 frames, Piano-midi and
# MuseData longer; JSB and Bach at most a few hundred): their memory is linear,
# and on Nottingham the unclipped LMN-B diverged in its first epoch (validation
# NLL 3.4e7, seed 0) where the clipped one trains (validation NLL 10.3 after 6
# epochs, seed 0; records/nottingham_lmn_b/NOTE.md). The pretrained LMN-B
# clips there too: unclipped, two of its three Nottingham runs went NaN
# (epochs 22 and 136; records/nottingham_lmn_b_pretrained/no_clipping/).
# The pretrained LMN-B fine-tunes with tanh there, as the paper's final LMN
# does (the pretraining's unrolled network uses SELU, which the initialised
# LMN otherwise keeps), with the memory's W_mm held to spectral norm <= 1.
# On Nottingham, 3 seeds each, clipped: SELU converged at 71.40 / 71.58 %,
# tanh at 71.67 / 71.88 %, and each diverged on one seed; tanh with the bound
# converged on all three (70.99 / 70.05 / 69.87 %;
# records/nottingham_lmn_b_pretrained/NOTE.md says why and what was tried).
# On JSB, whose pieces are short, tanh did not help consistently
# (jsb_chorales_lmn_b_pretrained/fine_tune_tanh/), so the short-piece sets
# keep SELU, which the initialised LMN reproduces exactly.
# The LMN-A holds W_mm to spectral norm <= 1 on every set: on JSB, at Adam
# 1e-3 without the bound, it stayed on the all-notes-off plateau on 3 of 3
# seeds (best epoch 1, worse than chance), and clipping or a larger step did
# not move it; with the bound it reached 23.6 +- 0.8 % (3 seeds;
# records/jsb_chorales_lmn_a/NOTE.md). Its memory feeds its functional units
# back, so an unbounded W_mm lets the memory's scale run away.
_LMN_A_MEMORY_BOUND = {"memory_norm_bound": 1.0}
# The random-start LMN-B holds W_mm to spectral norm <= 1 on the short-piece
# sets: on JSB at the selected 100 + 250 units it reached 25.39 +- 0.60 %
# bounded against 22.85 +- 0.96 % unbounded (3 seeds each), and at 250 + 500
# units 23.98 % on validation against 14.89 % (seed 0;
# records/jsb_chorales_lmn_b/NOTE.md). On the long-piece sets it clips
# instead, and converged unbounded on 3 of 3 Nottingham seeds; the bound is
# not measured there.
_LONG_PIECES = ("nottingham", "piano_midi", "musedata")
for dataset in ("jsb_chorales", "bach_chorales", "nottingham", "piano_midi", "musedata"):
    lmn_clipping = {"clipnorm": 1.0} if dataset in _LONG_PIECES else {}
    lmn_b_memory_bound = {} if dataset in _LONG_PIECES else {"memory_norm_bound": 1.0}
    bounded_tanh_fine_tuning = (
        {"fine_tune_activation": "tanh", "memory_norm_bound": 1.0} if dataset in _LONG_PIECES else {}
    )
    for kind, model in (
        ("lstm", {"units": 100, "learning_rate": _BASELINE_LEARNING_RATE}),
        ("gru", {"units": 100, "learning_rate": _BASELINE_LEARNING_RATE}),
        ("simple_rnn", {"units": 100, "learning_rate": _BASELINE_LEARNING_RATE}),
        ("lmn_a", {"units": 100, "memory_units": 100, **lmn_clipping, **_LMN_A_MEMORY_BOUND}),
        ("lmn_b", {"units": 100, "memory_units": 100, **lmn_clipping, **lmn_b_memory_bound}),
    ):
        add(
            Recipe(
                name=f"{dataset}_{kind}",
                dataset=dataset,
                builder="piano_roll_model",
                model={"kind": kind, **model},
                description=f"{kind} on {dataset}, frame-level accuracy",
                batch_size=16,
                **_PIANO_ROLL_STOPPING,
                grid=_PIANO_ROLL_GRID.get(kind, {}),
                quick_model={"units": 8, **({"memory_units": 8} if "memory_units" in model else {})},
            )
        )

    add(
        Recipe(
            name=f"{dataset}_lmn_b_pretrained",
            dataset=dataset,
            builder="pretrained_lmn_model",
            model={"units": 100, "memory_units": 250, "window": 10, **lmn_clipping, **bounded_tanh_fine_tuning},
            description=f"LMN-B with closed-form pretraining on {dataset}, then fine-tuned",
            batch_size=16,
            **_PIANO_ROLL_STOPPING,
            grid=_LMN_GRID,
            quick_model={"units": 4, "memory_units": 8, "window": 2, "pretrain_epochs": 1},
        )
    )

# Sequence labelling (SCRBM paper Tables 2-4).
# The SCRBM paper's model selection (Sec. 4.2): the validation metric is
# checked every 10 epochs; 5 checks without improvement stop the training.
_SCRBM_EARLY_STOPPING = {"check_every": 10, "patience": 5}
_LABELLING = (
    # dataset, data options, (train split, valid split), name stem, {kind: paper error %}
    # The cv protocol gives no epoch count: training stops early on the next
    # fold, held out of the 9 training folds (keras_seq.data.ocr).
    ("ocr_letters", {"protocol": "cv", "fold": 0}, ("train_minus_valid", "valid"), "ocr_cv", {"scrbm": 4.03}),
    (
        "ocr_letters",
        {"protocol": "ms", "fold": 0},
        ("train", "valid"),
        "ocr_ms",
        {"scrbm": 14.81, "lstm": 13.33, "gru": 15.85, "simple_rnn": 22.92},
    ),
    # CoNLL-2000 has no validation split: `valid` is the last 894 training
    # sentences, so training reads the rest, with its vocabulary.
    (
        "conll2000_chunking",
        {"vocabulary_from": "train_minus_valid"},
        ("train_minus_valid", "valid"),
        "conll2000",
        {"scrbm": 8.286, "lstm": 8.561, "gru": 8.759, "simple_rnn": 9.303},
    ),
    ("wsj_pos", {"train_sentences": 2000}, ("train", "valid"), "wsj_pos_2000", {"scrbm": 9.178}),
    # The paper's POS inputs are lexical features; here a word's suffixes and
    # shape beside its identity (keras_seq.data.wsj_pos).
    (
        "wsj_pos",
        {"train_sentences": 2000, "features": "words+lexical"},
        ("train", "valid"),
        "wsj_pos_2000_lexical",
        {"scrbm": 9.178},
    ),
)
# The labelling baselines' regularisation (recurrent and convolutional),
# chosen on validation.
_LABELLING_GRID = {"dropout": (0.0, 0.2, 0.5), "l2": (0.0, 1e-5, 1e-4)}
# The SCRBM paper's model selection (Sec. 4.2): hidden units and learning rate;
# and input dropout, which the regularised baselines have. Its cv protocol
# fixes 1000 units and Adam 1e-3, so only the dropout is chosen there.
_SCRBM_GRID = {"units": (100, 250, 500), "learning_rate": (1e-3, 3e-3), "dropout": (0.0, 0.5)}
_SCRBM_CV_GRID = {"dropout": (0.0, 0.5)}
for dataset, options, (train_split, valid_split), stem, published in _LABELLING:
    for kind in ("scrbm", "lstm", "gru", "simple_rnn"):
        units = 1000 if stem == "ocr_cv" and kind == "scrbm" else 100
        add(
            Recipe(
                name=f"{stem}_{kind}",
                dataset=dataset,
                builder="labelling_model",
                model={"kind": kind, "units": units},
                description=f"{kind} labelling on {dataset} {options or ''}".strip(),
                data_options=options,
                train_split=train_split,
                valid_split=valid_split,
                epochs=2000,
                monitor="val_sequence_error",
                monitor_mode="min",
                **_SCRBM_EARLY_STOPPING,
                paper=PaperNumber(published[kind] / 100, "sequence_error", _SCRBM) if kind in published else None,
                grid=_LABELLING_GRID if kind != "scrbm" else _SCRBM_CV_GRID if stem == "ocr_cv" else _SCRBM_GRID,
                quick_model={"units": 8},
            )
        )
    # Convolutional baseline: n-gram convolutions, a softmax per position.
    add(
        Recipe(
            name=f"{stem}_conv",
            dataset=dataset,
            builder="conv_text_model",
            model={"filters": 100, "widths": (3, 5)},
            description=f"n-gram convolutions (widths 3, 5), per-step softmax, on {dataset} {options or ''}".strip(),
            data_options=options,
            train_split=train_split,
            valid_split=valid_split,
            epochs=2000,
            monitor="val_sequence_error",
            monitor_mode="min",
            **_SCRBM_EARLY_STOPPING,
            grid=_LABELLING_GRID,
            quick_model={"filters": 4},
        )
    )

# Melody next-pitch prediction, cross-entropy in bits (SCRBM Table 1: the
# paper's 2.712 bits is the mean over 8 folk/chorale sets, not these two).
# Its model selection (Sec. 4.1): a grid over the learning rate, the
# regularisation and the hidden units; the baselines get the labelling grid.
for dataset in ("bach_melodies", "kinderlieder"):
    for kind in ("scrbm", "lstm", "simple_rnn"):
        add(
            Recipe(
                name=f"{dataset}_{kind}",
                dataset=dataset,
                builder="labelling_model",
                model={"kind": kind, "units": 100},
                description=f"{kind} next-pitch prediction on {dataset}",
                monitor="val_bits_per_event",
                monitor_mode="min",
                **_SCRBM_EARLY_STOPPING,
                paper=PaperNumber(2.712, "bits_per_event", _SCRBM + " (mean of 8 melody sets)")
                if kind == "scrbm"
                else None,
                grid=_SCRBM_GRID if kind == "scrbm" else _LABELLING_GRID,
                quick_model={"units": 8},
            )
        )
    # Count-based baseline (zoo/ngram.py, numpy): order and smoothing chosen
    # on the validation split; no Keras model, no epochs. Orders up to 24, so
    # that the choice is inside the range: on Bach melodies validation bits
    # fall up to order 16 (2.13, against 2.17 at order 8: chorale tunes recur
    # across pieces), on Kinderlieder they are lowest at order 8.
    add(
        Recipe(
            name=f"{dataset}_ngram",
            dataset=dataset,
            builder="ngram_model",
            model={"max_order": 24, "add_k": (0.01, 0.03, 0.1, 0.3, 1.0)},
            description=f"smoothed pitch n-gram (order <= 24, Witten-Bell or add-k) on {dataset}",
            monitor="val_bits_per_event",
            monitor_mode="min",
            paper=PaperNumber(
                2.957, "bits_per_event", _SCRBM + ", Table 1 bounded n-gram, context 2 (mean of 8 melody sets)"
            ),
            quick_model={"max_order": 2, "add_k": (0.1,)},
        )
    )

# Sequential / permuted MNIST, one label per sequence: convolutional baseline
# (no validation split: fixed epochs).
for dataset in ("seq_mnist", "permuted_mnist"):
    add(
        Recipe(
            name=f"{'sequential_mnist' if dataset == 'seq_mnist' else dataset}_conv",
            dataset=dataset,
            builder="conv_text_model",
            model={"filters": 64, "widths": (3, 5, 7)},
            description=f"n-gram convolutions (widths 3, 5, 7) + max over time on {dataset}",
            batch_size=64,
            epochs=20,
            valid_split=None,
            monitor="val_accuracy",
            monitor_mode="max",
            quick_model={"filters": 4},
        )
    )

# TrellisNet (Bai, Kolter & Koltun, ICLR 2019): the reference code's
# hyperparameters (emb / hidden / out, levels, optimiser, dropouts out / in /
# h / wdrop / emb, aux weight / frequency, batch). The paper gives no epoch
# counts: the Recipe default is kept. The reference's `--nhid` excludes the
# output channels (its state is nhid + nout wide, TrellisNet/trellisnet.py),
# while `hidden_units` here counts them: hidden_units = nhid + nout.
_TRELLIS = "Bai, Kolter & Koltun, Trellis Networks for Sequence Modeling (ICLR 2019)"
_TRELLIS_QUICK = {"hidden_units": 8, "output_units": 4, "num_levels": 2, "dilations": (1, 2)}
for dataset, accuracy in (("seq_mnist", 0.9920), ("permuted_mnist", 0.9813)):
    add(
        Recipe(
            name=f"{'sequential_mnist' if dataset == 'seq_mnist' else dataset}_trellisnet",
            dataset=dataset,
            builder="trellisnet_model",
            model={
                "hidden_units": 120 + 10,
                "output_units": 10,
                "num_levels": 11,
                "dilations": (1, 1) + tuple(2**i for i in range(1, 10)),
                "output_dropout": 0.1,
                "input_dropout": 0.2,
                "dropout": 0.2,
                "weight_dropout": 0.1,
                "learning_rate": 4e-3,
            },
            description=f"TrellisNet on {dataset}, dilations 1, 1, 2, ..., 512, last-step classifier",
            batch_size=64,
            valid_split=None,  # MNIST has train / test only: fixed epochs
            epochs=200,
            monitor="val_accuracy",
            monitor_mode="max",
            paper=PaperNumber(accuracy, "accuracy", _TRELLIS),
            quick_model=_TRELLIS_QUICK,
        )
    )
add(
    Recipe(
        name="ptb_char_trellisnet",
        dataset="ptb_char",
        builder="trellisnet_model",
        model={
            "embedding_dim": 200,
            "hidden_units": 1050 + 200,
            "output_units": 200,
            "num_levels": 140,
            "output_dropout": 0.1,
            "input_dropout": 0.1,
            "dropout": 0.29,
            "weight_dropout": 0.26,
            "embedding_dropout": 0.02,
            "aux_weight": 0.3,
            "aux_frequency": 80,
            "stateful": True,
            "learning_rate": 2e-3,
        },
        description="TrellisNet character LM on PTB: stateful history repackaging, deep supervision",
        batch_size=24,
        monitor="val_bits_per_event",
        monitor_mode="min",
        paper=PaperNumber(1.158, "bits_per_event", _TRELLIS),
        quick_model={"embedding_dim": 8, "hidden_units": 16, "output_units": 8, "num_levels": 3, "aux_frequency": 2},
    )
)
add(
    Recipe(
        name="ptb_char_trellisnet_cpu",
        dataset="ptb_char",
        builder="trellisnet_model",
        # Shrunk for one CPU core: an epoch of width 128 x 16 levels took
        # about 7.5 minutes there, width 64 x 8 levels about 2.2 (2026-12-04).
        # At Adam 2e-3 throughout, validation crept down by about 0.002 bits
        # an epoch after epoch 15 (2.030 at epoch 22, seed 0), so patience
        # alone would run for hours: the rate falls tenfold at plateaus, as
        # the reference divides its rate by 10 twice in a run (at epochs 220
        # and 350 of 400), and a run has converged once 5 epochs in a row
        # gain no more than 0.001 bits.
        model={
            "embedding_dim": 32,
            "hidden_units": 64,
            "output_units": 32,
            "num_levels": 8,
            "output_dropout": 0.1,
            "input_dropout": 0.1,
            "dropout": 0.1,
            "weight_dropout": 0.1,
            "aux_weight": 0.3,
            "aux_frequency": 4,
            "stateful": True,
            "learning_rate": 2e-3,
        },
        description="ptb_char_trellisnet shrunk to CPU size (width 64, 8 levels)",
        batch_size=24,
        patience=5,
        min_delta=0.001,
        anneal=Annealing(patience=2, factor=0.1, min_delta=0.002, min_learning_rate=2e-5),
        monitor="val_bits_per_event",
        monitor_mode="min",
        paper=PaperNumber(1.158, "bits_per_event", _TRELLIS + " (full-size model)"),
        quick_model={"embedding_dim": 8, "hidden_units": 16, "output_units": 8, "num_levels": 3, "aux_frequency": 2},
    )
)
add(
    Recipe(
        name="ptb_word_trellisnet",
        dataset="ptb_word",
        builder="trellisnet_model",
        # 15 experts: the mixture-of-softmaxes count of Yang et al.'s PTB
        # model (the spec leaves it open).
        model={
            "embedding_dim": 400,
            "hidden_units": 1000 + 400,
            "output_units": 400,
            "num_levels": 58,
            "output_dropout": 0.45,
            "input_dropout": 0.45,
            "dropout": 0.28,
            "weight_dropout": 0.5,
            "embedding_dropout": 0.1,
            "aux_weight": 0.05,
            "aux_frequency": 12,
            "num_experts": 15,
            "stateful": True,
            "optimizer": "sgd",
            "learning_rate": 20.0,
            "clipnorm": 0.225,
        },
        description="TrellisNet word LM on PTB with a mixture of softmaxes, stateful, deep supervision",
        batch_size=16,
        monitor="val_perplexity",
        monitor_mode="min",
        paper=PaperNumber(54.19, "perplexity", _TRELLIS + " (with MoS; about 57 without)"),
        quick_model={
            "embedding_dim": 8,
            "hidden_units": 16,
            "output_units": 8,
            "num_levels": 3,
            "aux_frequency": 2,
            "num_experts": 2,
        },
    )
)
# Long-memory stress tests, as bench/long_memory.py trains them: the adding
# problem with its defaults (hidden 32, output 16, dilations 2^i, Adam 2e-3,
# gradient clip 1, batch 32); copy memory with the configuration that learns
# it at T=500 (9 levels, forget_bias 4, Adam 5e-3, batch 16; see the README).
# Both losses fall towards zero once the task is learned, so patience counts
# improvements of at least 1e-5 (the TCN paper's Table 1 reports its TCN at
# about that resolution: MSE 5.8e-5 on adding at T=600, cross-entropy 3.5e-5 on
# copy memory at T=1000).
add(
    Recipe(
        name="adding_trellisnet",
        dataset="adding",
        builder="trellisnet_model",
        model={
            "hidden_units": 32,
            "output_units": 16,
            "num_levels": 8,
            "dilations": tuple(2**i for i in range(8)),
            "learning_rate": 2e-3,
            "clipnorm": 1.0,
        },
        description="TrellisNet on adding (T=200), receptive field 256",
        epochs=1000,  # far above where early stopping ends it
        min_delta=1e-5,
        quick_model=_TRELLIS_QUICK,
        headline="loss",  # MSE, as the TCN paper reports it
    )
)
add(
    Recipe(
        name="copy_memory_trellisnet",
        dataset="copy_memory",
        builder="trellisnet_model",
        model={
            "hidden_units": 24,
            "output_units": 16,
            "num_levels": 9,
            "embedding_dim": 10,
            "dilations": tuple(2**i for i in range(9)),
            "forget_bias": 4.0,
            # At 5e-3 one seed of three stayed on a flat point for good; at 1e-3 all three learn.
            "learning_rate": 1e-3,
            "clipnorm": 1.0,
        },
        description="TrellisNet on copy_memory (T=500), receptive field 512, forget bias 4",
        batch_size=16,
        epochs=1000,  # far above where early stopping ends it
        min_delta=1e-5,
        quick_model=_TRELLIS_QUICK,
        headline="loss",  # per-step cross-entropy, as the TCN paper reports it
    )
)
add(
    Recipe(
        name="jsb_chorales_trellisnet",
        dataset="jsb_chorales",
        builder="trellisnet_model",
        # Not a paper setting: TrellisNet was not run on piano rolls.
        model={
            "hidden_units": 128,
            "output_units": 64,
            "num_levels": 16,
            "dilations": (1, 2, 4, 8),
            "dropout": 0.2,
            "input_dropout": 0.1,
            "output_dropout": 0.1,
        },
        description="TrellisNet next-frame prediction on jsb_chorales, frame-level accuracy",
        batch_size=16,
        **_PIANO_ROLL_STOPPING,
        quick_model=_TRELLIS_QUICK,
    )
)
