"""The zoo's presets: a trained run exported as a preset (`export`), a
preset measured again on its test split (`evaluate`), and the built-in
presets' recipes (`BUILTIN`).

    keras-seq export runs/jsb_chorales_lstm/seed-0 --name jsb_chorales_lstm --data-dir ../shared/data
    keras-seq evaluate --preset jsb_chorales_lstm --data-dir ../shared/data

A preset carries what its preprocessing needs, read from the recipe's
training data at export (vocabularies, tag names, pitch range), so loading
it (`keras_seq.presets.load`) needs no data and nothing from here.
"""

import dataclasses
import datetime
import json
import os

from keras_seq.zoo import recipes
from keras_seq.zoo import registry
from keras_seq.zoo import report
from keras_seq.zoo import runs
from keras_seq.zoo import selection

# The built-in presets: each the seed-0 run of its recipe at the grid point
# RESULTS reports (records/<recipe>/selected.json), trained until early
# stopping; (recipe, intended use) by preset name.
BUILTIN = {
    "bach_chorales_lstm": ("bach_chorales_lstm", "continue or sample four-part chorale textures; score a piece"),
    "bach_chorales_lmn_b_pretrained": (
        "bach_chorales_lmn_b_pretrained",
        "continue or sample four-part chorale textures; score a piece",
    ),
    "jsb_chorales_lstm": ("jsb_chorales_lstm", "continue or sample four-part chorale textures; score a piece"),
    "jsb_chorales_lmn_b_pretrained": (
        "jsb_chorales_lmn_b_pretrained",
        "continue or sample four-part chorale textures; score a piece",
    ),
    "nottingham_lstm": ("nottingham_lstm", "continue or sample folk-tune melodies with chords; score a piece"),
    "ocr_ms_scrbm": ("ocr_ms_scrbm", "read words written as 16x8 binary letter images"),
    "conll2000_scrbm": ("conll2000_scrbm", "chunk tokenised English sentences (IOB chunk tags)"),
    "wsj_pos_2000_lexical_scrbm": (
        "wsj_pos_2000_lexical_scrbm",
        "tag tokenised English sentences with Penn Treebank POS tags",
    ),
    "kinderlieder_scrbm": ("kinderlieder_scrbm", "predict the next pitch of a children's-song melody"),
    "adding_trellisnet": ("adding_trellisnet", "a long-memory benchmark model (the adding problem, T=200)"),
    "copy_memory_trellisnet": ("copy_memory_trellisnet", "a long-memory benchmark model (copy memory, T=500)"),
    "ptb_char_trellisnet_cpu": ("ptb_char_trellisnet_cpu", "continue or score lowercase English text"),
}

_PAPERS = {
    "scrbm": "Son N. Tran, Srikanth Cherla, Artur d'Avila Garcez, Tillman Weyde. Linear-Time Sequence "
    "Classification using Restricted Boltzmann Machines (arXiv 1710.02245).",
    "lmn": "Davide Bacciu, Antonio Carta, Alessandro Sperduti. Linear Memory Networks (ICANN 2019; arXiv 1811.03356).",
    "trellisnet": "Shaojie Bai, J. Zico Kolter, Vladlen Koltun. Trellis Networks for Sequence Modeling "
    "(ICLR 2019; arXiv 1810.06682).",
    "lstm": "Sepp Hochreiter, Juergen Schmidhuber. Long Short-Term Memory (Neural Computation 9(8), 1997).",
}
_MUSIC_FRAMES = {  # quarter notes a frame, when a roll is written as MIDI
    "jsb_chorales": 1.0,
    "bach_chorales": 1.0,
    # Boulanger-Lewandowski et al.'s other sets: their frame length is not in
    # the data files; an eighth note is assumed when writing MIDI.
    "nottingham": 0.5,
    "piano_midi": 0.5,
    "musedata": 0.5,
}

MELODY_DATASETS = ("kinderlieder", "bach_melodies")  # pitch ids of keras_seq.data.music21_corpus.melody_sequences


def preprocessor(recipe, data_dir=None):
    """The preprocessor of `recipe`'s inputs, from its training data."""
    from keras_seq.data import text_vocabularies
    from keras_seq.data import wsj_pos
    from keras_seq.models import preprocessors

    options = dict(recipe.data_options)
    if recipe.dataset in ("wsj_pos", "conll2000_chunking"):
        if options.get("features", "words") not in ("words", "words+lexical"):
            raise ValueError(
                f"{recipe.name}: a preset of {options['features']!r} inputs is not supported "
                "(its preprocessor would need the user's POS tags)."
            )
        vocabulary_options = {k: v for k, v in options.items() if k in ("lowercase", "min_count", "vocabulary_from")}
        words = text_vocabularies.vocabulary(recipe.dataset, data_dir, **vocabulary_options)
        suffixes = wsj_pos.suffix_vocabularies(data_dir) if options.get("features") == "words+lexical" else None
        return preprocessors.WordPreprocessor(
            words,
            text_vocabularies.class_names(recipe.dataset, data_dir),
            suffixes=suffixes,
            lowercase=options.get("lowercase", False),
        )
    if recipe.dataset == "ocr_letters":
        return preprocessors.LetterImagePreprocessor()
    if recipe.dataset in _MUSIC_FRAMES:
        return preprocessors.PianoRollPreprocessor(frame_quarters=_MUSIC_FRAMES[recipe.dataset])
    if recipe.dataset in MELODY_DATASETS:
        return preprocessors.MelodyPreprocessor()
    if recipe.dataset == "ptb_char":
        return preprocessors.CharacterPreprocessor(text_vocabularies.vocabulary("ptb_char", data_dir))
    return None


def task_class(recipe):
    """The `keras_seq.models` task a preset of `recipe` loads into."""
    from keras_seq import models

    task = recipe.dataset_info.task
    if task == "next_frame":
        return models.PianoRollModel
    if task == "next_token" and recipe.dataset == "ptb_char":
        return models.CharacterLanguageModel
    if recipe.dataset in MELODY_DATASETS:
        return models.MelodyModel
    if task in ("labelling", "next_token") and recipe.dataset not in ("copy_memory",):
        return models.SequenceTagger
    return models.Task


def build_task(recipe, data_dir=None, predictor=None, quick=False, name=None):
    """The `keras_seq.models` task of `recipe`, the class its presets load
    into: the recipe's predictor (built untrained by its builder, or the
    trained `predictor` given) with the preprocessor of its training data.

    >>> tagger = build_task(recipes.selected("wsj_pos_2000_lexical_scrbm"))
    >>> tags = tagger.label([["The", "market", "fell", "."]])  # untrained: arbitrary tags
    """
    if predictor is None:
        from keras_seq.zoo import train

        _, predictor = train.build(recipe, quick=quick, data_dir=data_dir)[0]
    return task_class(recipe)(predictor, preprocessor(recipe, data_dir), name=name or recipe.name)


def _family(recipe):
    """The model family of `recipe` that `_PAPERS` cites."""
    kind = recipe.model.get("kind")
    if recipe.builder == "pretrained_lmn_model" or kind in ("lmn_a", "lmn_b"):
        return "lmn"
    if recipe.builder == "trellisnet_model":
        return "trellisnet"
    return kind


def _citation(recipe):
    cites = [_PAPERS[_family(recipe)]] if _family(recipe) in _PAPERS else []
    if recipe.paper and not any(recipe.paper.source.split(" (")[0].split(", ")[-1] in c for c in cites):
        cites.append(recipe.paper.source)
    return cites + [f"Data: {recipe.dataset_info.source}."]


def _recipe_of(record):
    """`(recipe, model arguments)` of a run record: the recipe at the
    arguments it was trained with (its `--set` or grid point), and those
    arguments less the ones the builder reads from the dataset."""
    recipe = recipes.get(record["recipe"].split("+")[0])
    family = registry.family(recipe.builder)
    from_data = set(family.data_arguments(recipe.dataset_info, recipe)) if family.data_arguments else set()
    arguments = {
        k: tuple(v) if isinstance(v, list) else v
        for k, v in record["model"].items()
        if k != "builder" and k not in from_data
    }
    return dataclasses.replace(recipe, model=arguments), arguments


def metadata_of(record, recipe, name, arguments, description="", intended_use="", record_path=None):
    """The preset metadata of a finished run's `record`."""
    metric = report.headline(record)
    paper = dataclasses.asdict(recipe.paper) if recipe.paper else None
    point = {k: arguments[k] for k in selection.grid_arguments(recipe.grid) if k in arguments}
    stopping = record.get("stopping") or {}
    return {
        "name": name,
        "description": description or recipe.description,
        "intended_use": intended_use,
        "recipe": recipe.name,
        "arguments": {k: list(v) if isinstance(v, tuple) else v for k, v in arguments.items()},
        "point": point or None,
        "dataset": recipe.dataset,
        "data_options": recipe.data_options,
        "splits": {"train": recipe.train_split, "valid": recipe.valid_split, "test": "test"},
        "seed": record["seed"],
        "quick": bool(record.get("quick")),
        "test": record["test"],
        "headline": {"metric": metric, "value": record["test"].get(metric)},
        "paper": paper,
        "chance": record.get("chance"),
        "stopping": {
            k: stopping.get(k)
            for k in ("reason", "converged", "best_epoch", "last_epoch", "epoch_limit", "monitor", "patience")
        },
        "training": {
            "wall_seconds": record.get("wall_seconds"),
            "hardware": record.get("hardware"),
            "epochs": record.get("epochs_run"),
            "updates": (record.get("updates") or {}).get("total"),
        },
        "record": record_path,
        "command": record.get("command"),
        "citation": _citation(recipe),
        "date": datetime.date.today().isoformat(),
    }


def model_card(metadata):
    """The Markdown model card of a preset, from its metadata."""
    headline, paper, test = metadata["headline"], metadata.get("paper"), metadata["test"]
    training, stopping = metadata["training"], metadata["stopping"]
    lines = [
        f"# {metadata['name']}",
        "",
        f"{metadata['description']}. A keras-seq preset: `keras_seq.presets.load({metadata['name']!r})` "
        f"returns a `keras_seq.models.{metadata['task_class']}`.",
        "",
        "## Data",
        "",
        f"Dataset `{metadata['dataset']}` (options {json.dumps(metadata['data_options'])}); trained on its "
        f"`{metadata['splits']['train']}` split, selected on `{metadata['splits']['valid']}`, tested on `test`.",
        "",
        "## Metrics (test split)",
        "",
        "| metric | this model | paper |",
        "|---|---|---|",
    ]
    for key in sorted(test):
        theirs = f"{paper['value']:g}" if paper and paper.get("metric") == key else ""
        lines.append(f"| {key}{' (headline)' if key == headline['metric'] else ''} | {test[key]:.6g} | {theirs} |")
    if paper:
        lines += ["", f"Paper: {paper['source']}."]
    lines += [
        "",
        "## Training",
        "",
        f"Recipe `{metadata['recipe']}` at {json.dumps(metadata['arguments'])}, seed {metadata['seed']}; "
        f"{training['epochs']} epochs, ended by {stopping['reason']} "
        f"({'converged' if stopping['converged'] else 'not converged'}; best epoch {stopping['best_epoch']}), "
        f"{training['wall_seconds']:.0f} s on {training['hardware']}.",
        "",
        f"Rebuild: `{metadata['command']}`, then `keras-seq export` of its run directory."
        if metadata.get("command")
        else "",
        f"Record: `{metadata['record']}`." if metadata.get("record") else "",
        "",
        "## Intended use and limits",
        "",
        f"Intended use: {metadata['intended_use'] or 'as the benchmark it was trained on'}.",
        f"It knows only its training data ({metadata['dataset']}): inputs unlike it (other languages, "
        "genres, writing) get worse results than the test metric above. A benchmark model, not a product.",
        "",
        "## Size",
        "",
        f"{metadata['parameters']:,} parameters.",
        "",
        "## Citation",
        "",
        *[f"- {c}" for c in metadata["citation"]],
        "",
    ]
    return "\n".join(line for i, line in enumerate(lines) if line or (i and lines[i - 1]))


def export(
    run_directory,
    output,
    name=None,
    data_dir=None,
    record_path=None,
    description="",
    intended_use="",
    allow_quick=False,
):
    """Writes the finished run at `run_directory` (its `model.keras` and
    record) as a preset at `output` (a new directory); the preprocessor is
    read from the recipe's training data (`data_dir`); `allow_quick`: a
    --quick check run too (tests). Returns the metadata."""
    from keras_seq import presets
    from keras_seq import saving

    record_file = os.path.join(run_directory, runs.RECORD)
    model_file = os.path.join(run_directory, "model.keras")
    for path in (record_file, model_file):
        if not os.path.isfile(path):
            raise FileNotFoundError(
                f"{run_directory}: no {os.path.basename(path)}; export a finished run (`keras-seq train` writes one)."
            )
    with open(record_file) as f:
        record = json.load(f)
    if record.get("quick") and not allow_quick:
        raise ValueError(f"{run_directory} is a --quick run (a check, not a trained model); export a full run.")
    recipe, arguments = _recipe_of(record)
    intended_use = intended_use or BUILTIN.get(name or recipe.name, (None, ""))[1]
    if record_path and os.path.isfile(record_path):
        with open(record_path) as f:
            record = {**record, "command": json.load(f).get("command")}
    backbone = saving.load_model(model_file, compile=False)  # weights only: no optimizer state in a preset
    task = build_task(recipe, data_dir, predictor=backbone, name=name)
    metadata = metadata_of(record, recipe, name or recipe.name, arguments, description, intended_use, record_path)
    return presets.save(task, output, metadata, card=model_card)


def evaluate(handle, data_dir=None, split="test"):
    """The metrics of the preset `handle` measured again on `split` of its
    recipe's dataset, as its record measured them (the --quick subset for a
    preset of a --quick run)."""
    from keras_seq import presets
    from keras_seq.zoo import tasks
    from keras_seq.zoo import train

    task = presets.load(handle)
    meta = task.preset
    arguments = {k: tuple(v) if isinstance(v, list) else v for k, v in meta["arguments"].items()}
    recipe = dataclasses.replace(recipes.get(meta["recipe"]), data_options=meta["data_options"], model=arguments)
    backbone = task.backbone
    backbone.compile(**tasks.task(recipe.dataset_info.task).compile_arguments())
    dataset = train.predictor_inputs(recipe, train.recipe_dataset(recipe, split, data_dir, quick=meta.get("quick")))
    from keras_seq.models import ResetStates

    callbacks = [ResetStates()] if arguments.get("stateful") else []
    scores = backbone.evaluate(dataset, return_dict=True, verbose=0, callbacks=callbacks)
    return {k: float(v) for k, v in scores.items()}
