"""Writes the Colab notebooks in colab/ from the cells below.

The notebooks are committed without outputs; this script is their source,
so that a change is reviewed here, in plain Python, and every notebook shares
the same install and accelerator cells. tests/test_notebooks.py checks that
the committed files equal what this script writes, and executes them.

    python scripts/make_notebooks.py          # rewrite colab/*.ipynb
    python scripts/make_notebooks.py --check  # exit 1 if a notebook is stale
"""

import json
import os
import sys
import textwrap

import tomllib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
FOLDER = os.path.join(ROOT, "colab")
BRANCH = "main"


def source_url():
    """The package's public source, as pyproject.toml's [project.urls] states it."""
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]["urls"]["Source"]


SOURCE = source_url()
REPOSITORY = SOURCE.removeprefix("https://github.com/")  # owner/name, for the Colab badges
PIP_TARGET = f"keras-seq[zoo,tune] @ git+{SOURCE}"


def badge(name):
    return (
        "[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
        f"(https://colab.research.google.com/github/{REPOSITORY}/blob/{BRANCH}/colab/{name}.ipynb)"
    )


INSTALL = f'''
# Installs keras-seq from GitHub (one pip install; a minute on Colab). Skipped where
# keras-seq is already installed, e.g. in a clone with `pip install -e ".[zoo,tune]"`.
import importlib
import importlib.util

if importlib.util.find_spec("keras_seq") is None:
    %pip install -q "{PIP_TARGET}"
    importlib.invalidate_caches()
'''

SETUP = """
import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")  # Colab's backend (JAX works too)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# The tests execute this notebook headless with KERAS_SEQ_NOTEBOOK_QUICK=1:
# tiny data and models, one or two epochs, on CPU.
QUICK = os.environ.get("KERAS_SEQ_NOTEBOOK_QUICK") == "1"

import keras

from keras_seq import distribute

# TPU attached -> TPUStrategy; several GPUs -> MirroredStrategy; otherwise the
# default strategy (TensorFlow places the ops on the one GPU if there is one,
# else on the CPU). On JAX: a DataParallel over several devices, else None.
strategy = distribute.training_strategy("auto")
runtime = distribute.describe(strategy)
accelerator, replicas, scope = runtime.accelerator, runtime.replicas, runtime.scope
print(f"{runtime}{', quick mode' if QUICK else ''}")
"""

RUNTIME_NOTE = (
    "Pick the hardware with *Runtime → Change runtime type* (CPU, a GPU, or a TPU) and run all "
    "cells: the setup cell selects the accelerator itself and falls back to the CPU."
)


def summary_cell(expression):
    """The last cell of every notebook: one JSON line the tests read."""
    return f"""
import json

summary = {expression}
print("SUMMARY", json.dumps(summary, default=float))
"""


QUICK_START = [
    (
        "markdown",
        f"""
# keras-seq quick start

{badge("quick_start")}

Installs [keras-seq](https://github.com/{REPOSITORY}) from the repository and starts from its
trained models (presets): tags a sentence and writes a chorale as a MIDI file, with no training
and no download, in under a minute. Then it trains two recipes of its model zoo — a Linear
Memory Network whose weights are first fitted in closed form (`*_lmn_b_pretrained`) and an LSTM
baseline — on the Bach chorales that ship inside `music21`, prints their scores in one table
and plots learning curves and predicted piano rolls: about five more minutes on a Colab CPU
runtime; faster on a GPU.

{RUNTIME_NOTE}
""",
    ),
    ("code", INSTALL),
    ("code", SETUP),
    (
        "markdown",
        """
## A trained model, no training

A preset is a trained model with its preprocessing, shipped inside the package: loading one by
name needs no data and no network. `keras-seq presets` lists them with their test metrics; the
same table here.
""",
    ),
    (
        "code",
        """
from IPython.display import Image, Markdown, display

from keras_seq import presets
from keras_seq.zoo import preset_cli

display(Markdown(preset_cli.presets_table()))
tagger = presets.load("wsj_pos_2000_lexical_scrbm")
sentence = "The market fell sharply .".split()
tags = tagger.label([sentence])[0]
print(" ".join(f"{word}/{tag}" for word, tag in zip(sentence, tags)))
""",
    ),
    (
        "markdown",
        """
A chorale model samples a piece frame by frame (one frame a quarter note); `generate` can also
continue a MIDI or MusicXML file given as `primer`, and `score` rates a piece.
""",
    ),
    (
        "code",
        """
from keras_seq.zoo import report

music = presets.load("jsb_chorales_lstm")
roll = music.generate(frames=32, temperature=0.7, seed=0)
music.write_midi(roll, "chorale.mid")
report.roll_image(roll, "chorale.png", music.preprocessor.lowest_midi)
display(Image(filename="chorale.png"))
print("wrote chorale.mid;", "its score under the model:", music.score("chorale.mid"))
""",
    ),
    (
        "markdown",
        """
## The zoo

A recipe is one row of a paper's table: a dataset, a model builder and its arguments, the
training settings and the published number. `keras-seq list` prints all of them.
""",
    ),
    (
        "code",
        """
from keras_seq.zoo import recipes

# Colab: the music21 chorales (converted once, 10-25 s). Quick mode (the tests): JSB Chorales,
# read from the project's data folder ($KERAS_SEQ_DATA_DIR).
DATASET = "jsb_chorales" if QUICK else "bach_chorales"
RECIPE_NAMES = [f"{DATASET}_lmn_b_pretrained", f"{DATASET}_lstm"]
EPOCHS = 1 if QUICK else None  # None: until early stopping ends each run (a few minutes on a CPU)
print(f"{len(recipes.RECIPES)} recipes; on {DATASET}:")
for name in sorted(recipes.RECIPES):
    if name.startswith(DATASET + "_"):
        print(f"  {name}: {recipes.RECIPES[name].description}")
""",
    ),
    (
        "markdown",
        """
## Compare two recipes

`compare.run` is what `keras-seq compare` runs: every model trains under the first recipe's
stopping rule (model selection on validation frame accuracy; early stopping once neither it nor
the validation NLL has improved for 20 epochs), then is tested; each run leaves a `.keras` model,
a JSON record and PNG plots in its own directory under `OUTPUT` (a killed run resumes from its
last epoch when run again). The table says whether each run converged, and the
summary names a better model only when all did. `recipe_defaults=True` trains the recipes' own
small sizes (LMN-B 100+250, LSTM 100 units); without it, the sizes chosen on validation that
RESULTS and the presets report (250+500 and 500 units; about twice as long). The same from a
shell: `keras-seq compare bach_chorales_lmn_b_pretrained bach_chorales_lstm --recipe-defaults
--strategy auto`.
""",
    ),
    (
        "code",
        """
from IPython.display import Markdown, display

from keras_seq.zoo import compare
from keras_seq.zoo import report
from keras_seq.zoo import train

OUTPUT = "runs/quick_start"
with scope():  # the models are built inside compare.run, hence under the strategy
    records = compare.run(RECIPE_NAMES, epochs=EPOCHS, quick=QUICK, output=OUTPUT, recipe_defaults=True)
display(Markdown(report.comparison_table(records)))
print(report.comparison_summary(records))
""",
    ),
    (
        "markdown",
        """
## Plots

Per recipe: the learning curve, and the predicted probability of each key next to the true
next frames of a test chorale.
""",
    ),
    (
        "code",
        """
from IPython.display import Image

for record in records:  # each run has its own directory: OUTPUT/<recipe>/seed-<seed>/
    folder = record["run_directory"]
    display(Image(filename=f"{folder}/curve.png"), Image(filename=f"{folder}/roll.png"))
""",
    ),
    (
        "markdown",
        """
## Reload a saved model

The `.keras` files reload with plain `keras.saving.load_model` (the layers are registered
Keras objects; no `custom_objects`). `keras-seq evaluate RECIPE` does the same from a shell.
""",
    ),
    (
        "code",
        """
name = RECIPE_NAMES[0]
scores = train.evaluate(recipes.get(name), f"{records[0]['run_directory']}/model.keras", quick=QUICK)
metric = report.headline(records[0])
print(f"{name}, reloaded: test {metric} {scores[metric]:.4f}")
assert abs(scores[metric] - records[0]["test"][metric]) < 1e-4, "the reloaded model scores differently"
""",
    ),
    (
        "code",
        summary_cell("""{
    "presets": {"tags": tags, "chorale_frames": len(roll), "chorale_notes": len(music.preprocessor.notes(roll))},
    "runs": {r["recipe"]: {"metric": report.headline(r), "test": r["test"][report.headline(r)],
                           "epochs": r["epochs_run"], "parameters": r["parameters"],
                           "converged": report.converged(r)}
             for r in records},
}"""),
    ),
]


DROP_IN = [
    (
        "markdown",
        f"""
# keras-seq layers in an existing Keras model

{badge("drop_in_layers")}

An ordinary Keras model with an LSTM, and the same model with the LSTM replaced by each
[keras-seq](https://github.com/{REPOSITORY}) layer: a Linear Memory Network (`LMN`, or its
`LinearMemoryCell` inside `keras.layers.RNN`), a `TrellisBlock`, and an SCRBM cell (which
replaces the LSTM *and* the softmax layer: it outputs class probabilities itself). Nothing else
changes: `compile`, `fit`, `evaluate`, saving and reloading `.keras` files without
`custom_objects`. A minute or two on any runtime.

{RUNTIME_NOTE}
""",
    ),
    ("code", INSTALL),
    ("code", SETUP),
    (
        "markdown",
        """
## A small sequence-labelling task

Sequences of random symbols, one-hot encoded; the label at each step is the symbol seen `DELAY`
steps earlier, so the model has to remember. The first `DELAY` steps have nothing to recall
and get sample weight 0. Chance accuracy is `1 / SYMBOLS`.
""",
    ),
    (
        "code",
        """
import numpy as np

from keras_seq.data import synthetic

SYMBOLS, DELAY, STEPS, UNITS = 4, 2, 24, 32
N = 256 if QUICK else 2048
EPOCHS = 1 if QUICK else 10

x_train, y_train, w_train = synthetic.delayed_recall(N, STEPS, SYMBOLS, DELAY, seed=0)
x_test, y_test, w_test = synthetic.delayed_recall(N // 4, STEPS, SYMBOLS, DELAY, seed=1)
print(x_train.shape, y_train.shape)
""",
    ),
    (
        "markdown",
        """
## The existing model, and its variants

`make_model` is the model as one would write it with an LSTM; each variant passes another
recurrent layer. All of them map `(batch, time, SYMBOLS)` to per-step class probabilities.
""",
    ),
    (
        "code",
        """
from keras_seq.layers import LMN, LinearMemoryCell, SCRBMCell, TrellisBlock


def make_model(recurrent, name, head=True):
    layers = [keras.Input((None, SYMBOLS)), recurrent]
    if head:
        layers.append(keras.layers.Dense(SYMBOLS, activation="softmax"))
    model = keras.Sequential(layers, name=name)
    model.compile(keras.optimizers.Adam(3e-3), "sparse_categorical_crossentropy", weighted_metrics=["accuracy"])
    return model


variants = {
    "LSTM (the original)": lambda: make_model(keras.layers.LSTM(UNITS, return_sequences=True), "lstm"),
    "LMN-B (keras_seq.layers.LMN)": lambda: make_model(
        LMN(UNITS, memory_units=UNITS, return_sequences=True), "lmn_b"),
    "LMN-A (LinearMemoryCell in keras.layers.RNN)": lambda: make_model(
        keras.layers.RNN(LinearMemoryCell(UNITS, UNITS, output="functional"), return_sequences=True), "lmn_a"),
    "TrellisBlock": lambda: make_model(
        TrellisBlock(hidden_units=UNITS, output_units=UNITS // 2, num_levels=4), "trellis"),
    "SCRBM (SCRBMCell in keras.layers.RNN, no Dense)": lambda: make_model(
        keras.layers.RNN(SCRBMCell(UNITS, SYMBOLS), return_sequences=True), "scrbm", head=False),
}
""",
    ),
    (
        "markdown",
        """
## Train and compare

Each model is built under the strategy's scope (TPU, several GPUs, or one device) and trained
with plain `model.fit`.
""",
    ),
    (
        "code",
        """
import time

from IPython.display import Markdown, display

models, rows = {}, []
for label, make in variants.items():
    keras.utils.set_random_seed(0)
    with scope():
        model = make()
    start = time.perf_counter()
    model.fit(x_train, y_train, sample_weight=w_train, batch_size=64, epochs=EPOCHS, verbose=0)
    seconds = time.perf_counter() - start
    scores = model.evaluate(x_test, y_test, sample_weight=w_test, verbose=0, return_dict=True)
    models[label] = model
    rows.append({"model": label, "parameters": model.count_params(), "test_accuracy": scores["accuracy"],
                 "seconds": seconds})
    print(f"{label}: test accuracy {scores['accuracy']:.3f} ({seconds:.1f} s)")

table = ["| model | parameters | test accuracy | fit s |", "|---|---:|---:|---:|"]
table += [f"| {r['model']} | {r['parameters']:,} | {100 * r['test_accuracy']:.1f} % | {r['seconds']:.1f} |"
          for r in rows]
display(Markdown("\\n".join(table)))
""",
    ),
    (
        "markdown",
        """
## Save and reload

`model.save("name.keras")` and `keras.saving.load_model` work as for built-in layers: the
keras-seq layers are registered serializable Keras objects.
""",
    ),
    (
        "code",
        """
for label, model in models.items():
    path = f"{model.name}.keras"
    model.save(path)
    reloaded = keras.saving.load_model(path)
    np.testing.assert_allclose(
        reloaded.predict(x_test[:8], verbose=0), model.predict(x_test[:8], verbose=0), rtol=1e-4, atol=1e-5)
    print(f"{path}: reloaded, same predictions")
""",
    ),
    (
        "code",
        summary_cell("""{r["model"]: {"parameters": r["parameters"], "test_accuracy": r["test_accuracy"]}
           for r in rows}"""),
    ),
]


KERASTUNER = [
    (
        "markdown",
        f"""
# A KerasTuner search over a keras-seq recipe

{badge("kerastuner_search")}

`keras_seq.tuning` has one `keras_tuner.HyperModel` per model family (LMN, SCRBM, TrellisNet,
SimpleRNN/GRU/LSTM) whose trial is exactly a zoo training run, and named search spaces: the
papers' grids (`paper`) and small ones (`compact`). Here: a random search over the LMN paper's
grid of unit pairs and L2 on the Bach chorales (no download). About ten minutes on a Colab CPU
runtime; less on a GPU. The search is resumable: rerun the search cell and completed trials are
kept (`overwrite=True` starts afresh). From a shell: `keras-seq tune bach_chorales_lmn_b
--space paper --tuner random --max-trials 8 --epochs 20`.

{RUNTIME_NOTE}
""",
    ),
    ("code", INSTALL),
    ("code", SETUP),
    (
        "markdown",
        """
## The recipe and its search space
""",
    ),
    (
        "code",
        """
from keras_seq import tuning
from keras_seq.zoo import recipes

# Quick mode (the tests): JSB Chorales from $KERAS_SEQ_DATA_DIR, the compact space, 2 trials.
RECIPE = "jsb_chorales_lmn_b" if QUICK else "bach_chorales_lmn_b"
SPACE = "compact" if QUICK else "paper"
MAX_TRIALS = 2 if QUICK else 8
EPOCHS = None if QUICK else 20  # per trial; quick mode trains one epoch on 12 sequences

family = tuning.family_of(recipes.get(RECIPE))
space = tuning.search_space(family, SPACE)
print(f"{RECIPE}: family {family}, space {space.name} ({space.source}), {space.size()} points")
for name, points in space.grid().items():
    print(f"  {name}: {points}")
""",
    ),
    (
        "markdown",
        """
## Search

`tuning.search` builds the hypermodel and a KerasTuner tuner (`random`, `bayesian`, `hyperband`
or `grid`), runs the trials (each under the strategy's scope) and writes `trials.md`,
`trials.csv`, `best.json`, `best.keras` and a score-vs-hyperparameter plot into the project
folder. The objective is the predicting model's validation score.
""",
    ),
    (
        "code",
        """
summary = tuning.search(
    RECIPE, space=SPACE, tuner="random", max_trials=MAX_TRIALS, epochs=EPOCHS, quick=QUICK,
    directory="runs/tuning", distribution_strategy=strategy if hasattr(strategy, "scope") else None,
    verbose=0 if QUICK else 1,
)
print(f"{summary['trials_completed']} trials completed "
      f"({summary['trials_before']} before this run)")
""",
    ),
    (
        "code",
        """
from IPython.display import Image, Markdown, display

display(Markdown(open(summary["files"]["markdown"]).read()))
display(Image(filename=summary["files"]["plot"]))
print("best hyperparameters:", summary["best_hyperparameters"])
print(f"best {summary['objective']['name']} ({summary['objective']['direction']}): {summary['best_score']:.4f}")
""",
    ),
    (
        "markdown",
        """
## The best model on the test set

`best.keras` is the best trial's predicting model; it reloads without `custom_objects`.
""",
    ),
    (
        "code",
        """
from keras_seq.zoo import train

test_scores = train.evaluate(recipes.get(RECIPE), summary["files"]["model"], quick=QUICK)
print({k: round(v, 4) for k, v in test_scores.items()})
""",
    ),
    (
        "code",
        summary_cell("""{
    "recipe": summary["recipe"], "trials_completed": summary["trials_completed"],
    "best_hyperparameters": summary["best_hyperparameters"], "best_score": summary["best_score"],
    "test": test_scores,
}"""),
    ),
]


TPU_GPU = [
    (
        "markdown",
        f"""
# keras-seq on a TPU or GPU

{badge("tpu_gpu")}

Trains the zoo's TrellisNet recipe (`jsb_chorales_trellisnet`: next-frame prediction on JSB
Chorales, 16 weight-tied levels) on whatever the runtime has. `keras_seq.distribute.
training_strategy()` picks a `TPUStrategy` when a TPU is attached, a `MirroredStrategy` over
several GPUs, and otherwise the default strategy (the one GPU, or the CPU). The model is built
under the strategy's scope, compiled with XLA (`jit_compile=True`) on an accelerator, and the
global batch is the per-replica batch times `strategy.num_replicas_in_sync`. Every batch is
padded to one length and the last partial batch dropped, so XLA compiles once.

This notebook asks Colab for a GPU runtime; *Runtime → Change runtime type* switches to a TPU
or the CPU. TensorFlow finds a TPU only where the runtime's TensorFlow has TPU support; with
JAX, set `KERAS_BACKEND=jax` in the setup cell and the same code trains data-parallel over the
TPU cores. Without an accelerator it runs on the CPU (slowly: TrellisNet does about
`num_levels` times an LSTM's arithmetic, which parallel hardware absorbs).
""",
    ),
    ("code", INSTALL),
    ("code", SETUP),
    (
        "code",
        """
if keras.backend.backend() == "tensorflow":
    import tensorflow as tf

    for device in tf.config.list_logical_devices():
        print(device.device_type, device.name)
""",
    ),
    (
        "markdown",
        """
## Data: fixed shapes for XLA

JSB Chorales (229 / 76 / 77 chorales, downloaded once, checksum verified), batched by the zoo's
own pipeline (`train.recipe_dataset`) with `fixed_shapes=True`: every batch of a split padded to
its longest chorale, and the training split's last partial batch dropped (a different one each
epoch, as it is shuffled), so XLA compiles one training step. JSB is small: on a v2-8 TPU's 8
replicas an epoch is only a few steps; on a larger dataset raise `PER_REPLICA_BATCH`.
""",
    ),
    (
        "code",
        """
from keras_seq.zoo import recipes
from keras_seq.zoo import train

recipe = recipes.get("jsb_chorales_trellisnet")
PER_REPLICA_BATCH = 4 if QUICK else 8
GLOBAL_BATCH = PER_REPLICA_BATCH * replicas
EPOCHS = 2 if QUICK else 20
datasets = {  # quick mode: the first 12 chorales of each split
    split: train.recipe_dataset(recipe, split, quick=QUICK, shuffle=split == "train", fixed_shapes=True,
                                batch_size=GLOBAL_BATCH)
    for split in ("train", "valid", "test")
}
print(f"global batch {GLOBAL_BATCH} ({PER_REPLICA_BATCH} x {replicas} replicas), "
      f"batch shapes {dict((split, tuple(d.element_spec[0].shape)) for split, d in datasets.items())}")
""",
    ),
    (
        "markdown",
        """
## The model, built under the strategy

`train.build` is the zoo's builder for the recipe (quick mode: a tiny TrellisNet), compiled
inside `scope()` so that its variables live on the replicas, with XLA (`jit_compile`) on an
accelerator and, on a TPU, several steps per compiled call (`steps_per_execution`) to save
host round trips.
""",
    ),
    (
        "code",
        """
STEPS_PER_EXECUTION = 8 if accelerator == "TPU" else 1
with scope():
    (trainer, predictor), arguments = train.build(
        recipe, quick=QUICK, jit_compile=True if accelerator != "CPU" else "auto",  # auto: JAX jits on CPU too
        steps_per_execution=STEPS_PER_EXECUTION)
print(f"TrellisNet: {trainer.count_params():,} parameters, {arguments['num_levels']} levels, "
      f"jit_compile={trainer.jit_compile}, steps_per_execution={STEPS_PER_EXECUTION}")
""",
    ),
    (
        "markdown",
        """
## Train, timed

The first epoch includes tracing and XLA compilation; the later ones show the throughput.
""",
    ),
    (
        "code",
        """
from keras_seq.zoo.callbacks import EpochTimes

times = EpochTimes()  # training seconds per epoch, validation excluded
history = trainer.fit(datasets["train"], validation_data=datasets["valid"], epochs=EPOCHS,
                      callbacks=[times], verbose=2)
steps = sum(1 for _ in datasets["train"])
sequences_per_second = steps * GLOBAL_BATCH / times.steady_seconds()
print(f"{accelerator}, {replicas} replica(s): first epoch {times.seconds[0]:.1f} s (with compilation), "
      f"then {times.steady_seconds():.2f} s of training per epoch of {steps} steps = "
      f"{sequences_per_second:.0f} chorales/s")
test_scores = predictor.evaluate(datasets["test"], return_dict=True, verbose=0)
print({k: round(float(v), 4) for k, v in test_scores.items()})
""",
    ),
    (
        "code",
        summary_cell("""{
    "accelerator": accelerator, "strategy": type(strategy).__name__, "replicas": replicas,
    "global_batch": GLOBAL_BATCH, "jit_compile": trainer.jit_compile, "epochs": len(times.seconds),
    "first_epoch_seconds": times.seconds[0], "epoch_seconds": times.steady_seconds(),
    "sequences_per_second": sequences_per_second, "test": test_scores,
}"""),
    ),
]


NOTEBOOKS = {
    "quick_start": QUICK_START,
    "drop_in_layers": DROP_IN,
    "kerastuner_search": KERASTUNER,
    "tpu_gpu": TPU_GPU,
}


def notebook(name):
    """The notebook as a JSON-ready dict (nbformat 4.5, no outputs)."""
    cells = []
    for index, (kind, text) in enumerate(NOTEBOOKS[name]):
        lines = textwrap.dedent(text).strip("\n").splitlines(keepends=True)
        cell = {"cell_type": kind, "id": f"{name.replace('_', '-')}-{index:02d}", "metadata": {}, "source": lines}
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        cells.append(cell)
    metadata = {
        "colab": {"provenance": [], "name": f"{name}.ipynb"},
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    if name == "tpu_gpu":  # Colab opens it on a GPU runtime
        metadata["accelerator"] = "GPU"
        metadata["colab"]["gpuType"] = "T4"
    return {"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}


def text(name):
    """The file's exact text, formatted as nbformat writes it."""
    return json.dumps(notebook(name), indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def path(name):
    return os.path.normpath(os.path.join(FOLDER, f"{name}.ipynb"))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    stale = []
    for name in NOTEBOOKS:
        current = open(path(name), encoding="utf-8").read() if os.path.exists(path(name)) else None
        if current == text(name):
            continue
        stale.append(name)
        if "--check" not in argv:
            with open(path(name), "w", encoding="utf-8") as f:
                f.write(text(name))
            print(f"wrote {path(name)}")
    if "--check" in argv and stale:
        print(f"stale notebooks (run python scripts/make_notebooks.py): {', '.join(stale)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
