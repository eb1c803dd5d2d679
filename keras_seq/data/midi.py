"""Standard MIDI files: `write` makes one from notes and `read_notes` reads
one, with no other package; `read_roll` reads a user's MIDI piece, or a
MusicXML one with music21 (`pip install music21`, or keras-seq[music]),
into a piano roll, and `read_melody` into its top line of pitches."""

import math
import os
import struct

import numpy as np

TICKS_PER_QUARTER = 480
MIDI_SUFFIXES = (".mid", ".midi", ".smf")
MUSICXML_SUFFIXES = (".xml", ".musicxml", ".mxl")


def _variable_length(value):
    """A MIDI variable-length quantity."""
    groups = [value & 0x7F]
    value >>= 7
    while value:
        groups.append((value & 0x7F) | 0x80)
        value >>= 7
    return bytes(reversed(groups))


def midi_bytes(notes, tempo=100, velocity=80, channel=0):
    """The bytes of a type-0 MIDI file of `notes`: `(midi note, start tick,
    length in ticks)` triples, `TICKS_PER_QUARTER` ticks a quarter note,
    `tempo` quarter notes a minute."""
    if not 0 < tempo <= 1000:
        raise ValueError(f"tempo must be in (0, 1000] quarter notes a minute; got {tempo!r}.")
    if not 1 <= velocity <= 127:
        raise ValueError(f"velocity must be in [1, 127]; got {velocity!r}.")
    events = []
    for note, start, length in notes:
        if not 0 <= note <= 127 or length <= 0 or start < 0:
            raise ValueError(f"not a playable note: MIDI {note}, start {start}, length {length}.")
        events.append((start + length, 0, 0x80 | channel, note, 0))  # offs before ons at one tick
        events.append((start, 1, 0x90 | channel, note, velocity))
    events.sort()
    microseconds = round(60_000_000 / tempo)
    track = bytearray(b"\x00\xff\x51\x03" + microseconds.to_bytes(3, "big"))
    now = 0
    for tick, _, status, note, value in events:
        track += _variable_length(tick - now) + bytes((status, note, value))
        now = tick
    track += b"\x00\xff\x2f\x00"
    header = b"MThd" + struct.pack(">IHHH", 6, 0, 1, TICKS_PER_QUARTER)
    return header + b"MTrk" + struct.pack(">I", len(track)) + bytes(track)


def write(path, notes, tempo=100, velocity=80):
    """Writes `midi_bytes(notes, ...)` to `path` through a temporary file
    renamed into place; returns `path`."""
    data = midi_bytes(notes, tempo, velocity)
    temporary = f"{path}.tmp-{os.getpid()}"
    with open(temporary, "wb") as f:
        f.write(data)
    os.replace(temporary, path)
    return path


def _check_file(path):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no music file at {path}")
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in MIDI_SUFFIXES + MUSICXML_SUFFIXES:
        raise ValueError(
            f"{path}: expected a MIDI ({', '.join(MIDI_SUFFIXES)}) or MusicXML ({', '.join(MUSICXML_SUFFIXES)}) file."
        )
    if suffix in MIDI_SUFFIXES:
        with open(path, "rb") as f:
            if f.read(4) != b"MThd":
                raise ValueError(f"{path}: not a MIDI file (it does not start with a MIDI header).")


def _read_variable_length(data, position):
    value = 0
    while True:
        if position >= len(data):
            raise ValueError("a MIDI track ends inside a variable-length number")
        byte = data[position]
        position += 1
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, position


def _track_notes(data, ticks_per_quarter):
    """(midi note, start, length) in quarter notes of one track's bytes;
    percussion (channel 10) left out."""
    notes, sounding = [], {}
    position, now, status = 0, 0, None
    while position < len(data):
        delta, position = _read_variable_length(data, position)
        now += delta
        if position >= len(data):
            raise ValueError("a MIDI track ends after a delta time")
        if data[position] & 0x80:
            status = data[position]
            position += 1
        if status is None:
            raise ValueError("a MIDI event with no status byte")
        if status == 0xFF:  # meta event
            position += 1
            length, position = _read_variable_length(data, position)
            position += length
        elif status in (0xF0, 0xF7):  # system exclusive
            length, position = _read_variable_length(data, position)
            position += length
        else:
            kind, channel = status & 0xF0, status & 0x0F
            size = 1 if kind in (0xC0, 0xD0) else 2
            values = data[position : position + size]
            position += size
            if kind not in (0x80, 0x90) or channel == 9 or len(values) < 2:
                continue
            note, velocity = values
            key = (channel, note)
            if kind == 0x90 and velocity:
                if key in sounding:  # a new attack ends the note before it
                    notes.append((note, sounding[key], now - sounding[key]))
                sounding[key] = now
            elif key in sounding:
                notes.append((note, sounding[key], now - sounding.pop(key)))
    for (_, note), start in sounding.items():  # never released: up to the track's end
        notes.append((note, start, now - start))
    return [(n, start / ticks_per_quarter, length / ticks_per_quarter) for n, start, length in notes if length > 0]


def read_notes(path):
    """(midi note, start, length) triples, in quarter notes, of every note of
    the MIDI file at `path` but percussion; a ValueError names a file that
    is not a readable MIDI file."""
    _check_file(path)
    with open(path, "rb") as f:
        data = f.read()
    try:
        length, file_format, count, division = struct.unpack(">IHHH", data[4:14])
        if division & 0x8000:
            raise ValueError("its time base is SMPTE frames, not beats; save it with beats (ticks per quarter note)")
        position, notes = 8 + length, []
        for _ in range(count):
            if data[position : position + 4] != b"MTrk":
                raise ValueError(f"expected a track at byte {position}")
            (size,) = struct.unpack(">I", data[position + 4 : position + 8])
            notes += _track_notes(data[position + 8 : position + 8 + size], division)
            position += 8 + size
    except (struct.error, ValueError, IndexError) as error:
        raise ValueError(f"{path}: not a readable MIDI file ({error}).") from None
    return notes


def _musicxml_notes(path):
    try:
        import music21
    except ImportError:
        raise ImportError("reading MusicXML files needs music21: pip install music21 (or keras-seq[music]).") from None
    try:
        score = music21.converter.parse(path)
    except Exception as error:  # music21 raises its own exception kinds
        raise ValueError(f"{path}: music21 could not read it ({type(error).__name__}: {error}).") from None
    return [
        (pitch.midi, float(element.offset), float(element.quarterLength))
        for element in score.flatten().notes
        for pitch in element.pitches
    ]


def read_roll(path, keys=88, lowest_midi=21, frame_quarters=1.0):
    """A (frames, keys) float32 piano roll of every note of the piece at
    `path` (MIDI, or MusicXML through music21), a frame every
    `frame_quarters` quarter notes: a note sets the frames from the one its
    start falls in up to the one before its end (as
    `keras_seq.data.music21_corpus.piano_roll` samples the chorales); the
    roll ends with the last note."""
    _check_file(path)
    is_midi = os.path.splitext(path)[1].lower() in MIDI_SUFFIXES
    spans = []
    for note, start, length in read_notes(path) if is_midi else _musicxml_notes(path):
        key = note - lowest_midi
        if length > 0 and 0 <= key < keys:
            spans.append(
                (math.ceil(start / frame_quarters - 1e-9), math.ceil((start + length) / frame_quarters - 1e-9), key)
            )
    roll = np.zeros((max((end for _, end, _ in spans), default=0), keys), dtype="float32")
    for first, end, key in spans:
        roll[first:end, key] = 1
    if not roll.any():
        raise ValueError(f"{path}: no notes within the model's range (MIDI {lowest_midi}-{lowest_midi + keys - 1}).")
    return roll


def read_melody(path):
    """The melody of the piece at `path` (MIDI, or MusicXML through
    music21): the highest pitch starting at each onset, in time order, as
    an int32 array of MIDI pitches (a chord's top note, the line a
    monophonic melody is; rests skipped, as the corpus melodies are read)."""
    _check_file(path)
    is_midi = os.path.splitext(path)[1].lower() in MIDI_SUFFIXES
    top = {}
    for note, start, length in read_notes(path) if is_midi else _musicxml_notes(path):
        if length > 0:
            onset = round(start * TICKS_PER_QUARTER)
            top[onset] = max(note, top.get(onset, -1))
    if not top:
        raise ValueError(f"{path}: the piece has no notes.")
    return np.asarray([top[onset] for onset in sorted(top)], dtype="int32")
