"""The preset commands of `keras-seq`: `presets` (the built-ins and their
metrics), `export` (a trained run as a preset), `label` (tags of a user's
sentences or letter images; the next pitch after each note of a melody),
`generate` (music as MIDI, or text) and `score` (a user's piece, melody or
text). Each module-level `add_*` defines one
command's arguments; `keras_seq.zoo.cli` registers them."""

import os
import sys


def add_presets(parser):
    parser.add_argument("--markdown", default=None, help="also write the table to this file")


def presets_table():
    """The built-in presets as a Markdown table."""
    from keras_seq import presets
    from keras_seq.zoo import report

    lines = [
        "| preset | loads into | dataset | test metric | paper | parameters | size |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in presets.list_presets():
        metric = row["metric"] or ""
        value = "" if row["value"] is None else report.format_value(metric, row["value"])
        paper = "" if row["paper"] is None else report.format_value(metric, row["paper"])
        size = f"{row['size_bytes'] / 1e6:.1f} MB" if row["size_bytes"] else ""
        lines.append(
            f"| {row['name']} | {row['task_class']} | {row['dataset']} | {metric} {value} | {paper} | "
            f"{row['parameters']:,} | {size} |"
        )
    return "\n".join(lines)


def run_presets(args):
    table = presets_table()
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table + "\n")


def add_export(parser):
    parser.add_argument(
        "run_directory", metavar="RUN", help="a finished run's directory (holding model.keras and record.json)"
    )
    parser.add_argument("--output", required=True, help="the preset directory to write (must not exist)")
    parser.add_argument("--name", default=None, help="the preset's name (default: the recipe's)")
    parser.add_argument("--data-dir", default=None, help="the benchmark data folder (vocabularies, tag names)")
    parser.add_argument("--record", default=None, help="the run's kept record under records/ (cited in the metadata)")
    parser.add_argument("--description", default="", help="one line on what the model is")
    parser.add_argument("--intended-use", default="", help="what the model is for (the model card)")
    parser.add_argument("--allow-quick", action="store_true", help="export a --quick check run too (tests)")


def run_export(args):
    from keras_seq.zoo import presets

    metadata = presets.export(
        args.run_directory,
        args.output,
        name=args.name,
        data_dir=args.data_dir,
        record_path=args.record,
        description=args.description,
        intended_use=args.intended_use,
        allow_quick=args.allow_quick,
    )
    headline = metadata["headline"]
    print(
        f"wrote preset {metadata['name']} to {args.output}: test {headline['metric']} {headline['value']:.6g}, "
        f"{metadata['parameters']:,} parameters, {metadata['size_bytes'] / 1e6:.1f} MB"
    )


def add_label(parser):
    parser.add_argument("preset", help="a tagger preset (keras-seq presets), directory or URL")
    parser.add_argument("sentences", nargs="*", help="sentences, each one argument, its tokens separated by spaces")
    parser.add_argument(
        "--file",
        nargs="+",
        default=(),
        metavar="PATH",
        help="text files of one tokenised sentence a line, or .npy arrays of letter images",
    )
    parser.add_argument("--batch-size", type=int, default=32, help="sequences a prediction step")


def _read_sequences(path, letters):
    """The sequences of one input file: letter-image arrays (.npy) or lines of tokens."""
    import numpy as np

    if letters:
        if not path.endswith(".npy"):
            raise ValueError(f"{path}: letter images are read from .npy files (one word, shape (letters, 16, 8)).")
        return [np.load(path, allow_pickle=False)]
    with open(path, encoding="utf-8") as f:
        sentences = [line.split() for line in f if line.strip()]
    if not sentences:
        raise ValueError(f"{path}: no sentence in the file (one tokenised sentence a line).")
    return sentences


def run_label(args):
    from keras_seq import models
    from keras_seq import presets

    tagger = presets.load(args.preset)
    if isinstance(tagger, models.MelodyModel):
        return _label_melodies(tagger, args)
    if not isinstance(tagger, models.SequenceTagger):
        raise ValueError(
            f"{args.preset} is a {type(tagger).__name__}, not a tagger; `keras-seq presets` names "
            "the SequenceTagger presets."
        )
    letters = isinstance(tagger.preprocessor, models.LetterImagePreprocessor)
    if not args.sentences and not args.file:
        raise ValueError("give sentences to label (one argument each) or --file PATH ...")
    if args.sentences:
        if letters:
            raise ValueError(f"{args.preset} reads letter images: pass .npy files with --file.")
        sentences = [s.split() for s in args.sentences]
        _print_labels(sentences, tagger.label(sentences, batch_size=args.batch_size), letters)
    for i, path in enumerate(args.file):
        sequences = _read_sequences(path, letters)
        _print_labels(sequences, tagger.label(sequences, batch_size=args.batch_size), letters)
        if len(args.file) > 1:  # progress on stderr: stdout holds the labels alone
            sys.stdout.flush()
            print(
                f"\r[{i + 1}/{len(args.file)} files] {path}",
                end="\n" if i + 1 == len(args.file) else "",
                file=sys.stderr,
                flush=True,
            )


def _label_melodies(model, args):
    """Prints each note of each melody (MIDI pitches as arguments, or music files) with the pitch predicted next."""
    melodies = []
    for text in args.sentences:
        try:
            melodies.append([int(p) for p in text.replace(",", " ").split()])
        except ValueError:
            message = f'a melody is MIDI pitch numbers separated by spaces, e.g. "60 62 64"; got {text!r}.'
            raise ValueError(message) from None
    melodies += [model.preprocessor.read(path) for path in args.file]
    if not melodies:
        raise ValueError('give melodies to label ("60 62 64", one argument each) or --file PIECE.mid ...')
    for melody, following in zip(melodies, model.predict_next(melodies, batch_size=args.batch_size)):
        print(" ".join(f"{int(p)}->{n}" for p, n in zip(melody, following)))


def _print_labels(sequences, labels, letters):
    for sequence, tags in zip(sequences, labels):
        print("".join(tags) if letters else " ".join(f"{w}/{t}" for w, t in zip(sequence, tags)))


def add_generate(parser):
    parser.add_argument("preset", help="a music or character language-model preset")
    parser.add_argument(
        "--output", default=None, help="music: the MIDI file to write (required); text: also write the text here"
    )
    parser.add_argument("--png", default=None, help="music: also draw the piano roll into this PNG")
    parser.add_argument(
        "--frames", type=int, default=64, help="music: frames (a melody model: notes) to sample after the primer"
    )
    parser.add_argument(
        "--primer", default=None, help="music: a MIDI or MusicXML piece to continue (a melody: its top line)"
    )
    parser.add_argument("--prompt", default="the ", help="text: the text to continue")
    parser.add_argument("--length", type=int, default=200, help="text: symbols to sample")
    parser.add_argument("--temperature", type=float, default=1.0, help="divides the logits before sampling")
    parser.add_argument("--seed", type=int, default=None, help="seed of the sampling (None: fresh)")
    parser.add_argument("--tempo", type=float, default=100, help="music: quarter notes a minute in the MIDI file")


def run_generate(args):
    from keras_seq import models
    from keras_seq import presets

    model = presets.load(args.preset)
    if isinstance(model, models.PianoRollModel):
        if not args.output:
            raise ValueError("--output PATH.mid: where to write the piece")
        roll = model.generate(frames=args.frames, primer=args.primer, temperature=args.temperature, seed=args.seed)
        model.write_midi(roll, args.output, tempo=args.tempo)
        notes = len(model.preprocessor.notes(roll))
        print(f"wrote {args.output}: {len(roll)} frames, {notes} notes")
        if args.png:
            from keras_seq.zoo import report

            report.roll_image(roll, args.png, model.preprocessor.lowest_midi)
            print(f"wrote {args.png}")
    elif isinstance(model, models.MelodyModel):
        if not args.output:
            raise ValueError("--output PATH.mid: where to write the melody")
        melody = model.generate(
            primer=args.primer or (60,), notes=args.frames, temperature=args.temperature, seed=args.seed
        )
        model.write_midi(melody, args.output, tempo=args.tempo)
        print(f"wrote {args.output}: {len(melody)} notes, {' '.join(str(p) for p in melody)}")
    elif isinstance(model, models.CharacterLanguageModel):
        text = model.generate(args.prompt, length=args.length, temperature=args.temperature, seed=args.seed)
        print(text)
        if args.output:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(text + "\n")
    else:
        raise ValueError(
            f"{args.preset} is a {type(model).__name__}: `generate` needs a PianoRollModel, MelodyModel or "
            "CharacterLanguageModel preset (`keras-seq presets`)."
        )


def add_score(parser):
    parser.add_argument("preset", help="a music or character language-model preset")
    parser.add_argument("files", nargs="+", help="MIDI / MusicXML pieces, or text files")


def run_score(args):
    import json

    from keras_seq import models
    from keras_seq import presets

    model = presets.load(args.preset)
    if not isinstance(model, (models.PianoRollModel, models.MelodyModel, models.CharacterLanguageModel)):
        raise ValueError(
            f"{args.preset} is a {type(model).__name__}: `score` needs a PianoRollModel, MelodyModel or "
            "CharacterLanguageModel preset."
        )
    for path in args.files:
        if isinstance(model, models.CharacterLanguageModel):
            if not os.path.isfile(path):
                raise FileNotFoundError(f"no text file at {path}")
            with open(path, encoding="utf-8") as f:
                scores = model.score(f.read().rstrip("\n"))
        else:
            scores = model.score(path)
        print(json.dumps({"file": path, **scores}))


COMMANDS = (
    ("presets", "list the built-in presets (trained models) with their test metrics", add_presets, run_presets),
    ("export", "write a trained run as a preset directory", add_export, run_export),
    (
        "label",
        "tag sentences (or letter images) with a tagger preset; the next pitch of each note with a melody preset",
        add_label,
        run_label,
    ),
    ("generate", "sample music (MIDI) or text from a preset", add_generate, run_generate),
    ("score", "score pieces (frame accuracy, NLL) or texts (bits per character) with a preset", add_score, run_score),
)
