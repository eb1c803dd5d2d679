"""Recipes: one per row of a paper table. A recipe is data (dataset, model
builder and its arguments, training settings, the published number), not a
code path: adding a task means adding an entry here."""

import dataclasses


@dataclasses.dataclass(frozen=True)
class PaperNumber:
    value: float
    metric: str  # a key of the evaluation results, e.g. "sequence_error"
    source: str


@dataclasses.dataclass(frozen=True)
class Recipe:
    name: str
    dataset: str
    builder: str  # a function of zoo.builders
    model: dict
    description: str = ""
    data_options: dict = dataclasses.field(default_factory=dict)
    batch_size: int = 32
    epochs: int = 200
    patience: int = 10  # early stopping on the validation metric, in epochs
    monitor: str = "val_loss"
    monitor_mode: str = "min"
    valid_split: str | None = "valid"  # None: fixed epochs, no model selection
    paper: PaperNumber | None = None
    # --quick: tiny data and model, one epoch: checks the recipe runs.
    quick_model: dict = dataclasses.field(default_factory=dict)

    @property
    def teacher_forcing(self):
        return self.model.get("kind") == "scrbm"


RECIPES = {}


def add(recipe):
    if recipe.name in RECIPES:
        raise ValueError(f"Recipe {recipe.name!r} is defined twice.")
    RECIPES[recipe.name] = recipe


def get(name):
    if name not in RECIPES:
        raise ValueError(f"Unknown recipe {name!r}. Known recipes: {', '.join(sorted(RECIPES))}.")
    return RECIPES[name]


_SCRBM = "Tran et al., Linear-Time Sequence Classification using RBMs"
_LMN = "Bacciu et al., Linear Memory Networks (numbers lost in the source text)"

# Polyphonic music, next-frame prediction (LMN paper, Table 2 grid points).
for dataset in ("jsb_chorales", "bach_chorales", "nottingham", "piano_midi", "musedata"):
    for kind, model in (
        ("lstm", {"units": 100}),
        ("gru", {"units": 100}),
        ("simple_rnn", {"units": 100}),
        ("lmn_a", {"units": 100, "memory_units": 100}),
        ("lmn_b", {"units": 100, "memory_units": 100}),
    ):
        add(
            Recipe(
                name=f"{dataset}_{kind}",
                dataset=dataset,
                builder="piano_roll_model",
                model={"kind": kind, **model},
                description=f"{kind} on {dataset}, frame-level accuracy",
                batch_size=16,
                patience=20,
                monitor="val_frame_accuracy",
                monitor_mode="max",
                quick_model={"units": 8, **({"memory_units": 8} if "memory_units" in model else {})},
            )
        )

    add(
        Recipe(
            name=f"{dataset}_lmn_b_pretrained",
            dataset=dataset,
            builder="pretrained_lmn_model",
            model={"units": 100, "memory_units": 250, "window": 10},
            description=f"LMN-B with closed-form pretraining on {dataset}, then fine-tuned",
            batch_size=16,
            patience=20,
            monitor="val_frame_accuracy",
            monitor_mode="max",
            quick_model={"units": 4, "memory_units": 8, "window": 2, "pretrain_epochs": 1},
        )
    )

# Sequence labelling (SCRBM paper Tables 2-4).
_LABELLING = (
    # dataset, data options, valid split, name stem, {kind: paper error %}
    ("ocr_letters", {"protocol": "cv", "fold": 0}, None, "ocr_cv",
     {"scrbm": 4.03}),
    ("ocr_letters", {"protocol": "ms", "fold": 0}, "valid", "ocr_ms",
     {"scrbm": 14.81, "lstm": 13.33, "gru": 15.85, "simple_rnn": 22.92}),
    ("conll2000_chunking", {}, "valid", "conll2000",
     {"scrbm": 8.286, "lstm": 8.561, "gru": 8.759, "simple_rnn": 9.303}),
    ("wsj_pos", {"train_sentences": 2000}, "valid", "wsj_pos_2000",
     {"scrbm": 9.178}),
)
for dataset, options, valid_split, stem, published in _LABELLING:
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
                valid_split=valid_split,
                epochs=200 if valid_split else 30,
                monitor="val_sequence_error",
                monitor_mode="min",
                patience=10,
                paper=PaperNumber(published[kind] / 100, "sequence_error", _SCRBM) if kind in published else None,
                quick_model={"units": 8},
            )
        )

# Melody next-pitch prediction, cross-entropy in bits (SCRBM Table 1: the
# paper's 2.712 bits is the mean over 8 folk/chorale sets, not these two).
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
                paper=PaperNumber(2.712, "bits_per_event", _SCRBM + " (mean of 8 melody sets)")
                if kind == "scrbm" else None,
                quick_model={"units": 8},
            )
        )
