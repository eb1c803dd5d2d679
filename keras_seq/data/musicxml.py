"""A small, fast MusicXML reader for the music21 Bach chorale files.

`music21.corpus.parse` builds a full object model and takes about a second
per chorale; this reader takes milliseconds. It reads only what the
`bach_chorales` and `bach_melodies` datasets need (part names, note offsets,
lengths, pitches and ties) and reproduces music21's timing rules for that
(measure offsets, pickups, over-full measures, full-measure rests, Finale's
`<forward>` rests) and its tie merging (`Stream.stripTies`). Anything outside
that subset raises `UnsupportedMusicXML`, naming the file, so the caller can
fall back to music21 instead of returning something subtly different.

Only the standard library is used: a `.mxl` file is a zip whose
`META-INF/container.xml` names the score inside; `.xml`/`.musicxml` files
are read directly. Repeats are not expanded (music21 does not either).
"""

import dataclasses
import zipfile
from fractions import Fraction
from xml.etree import ElementTree

from keras_seq.data import archives

# The largest chorale of music21's corpus is a few hundred KB of MusicXML;
# a file or archive member beyond this is not read into memory.
MAX_MEMBER_BYTES = 32 * 1024 * 1024

STEP_SEMITONES = {"C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11}
DEFAULT_DIVISIONS = 10080  # music21's default when a part never sets <divisions>
DEFAULT_BAR_LENGTH = Fraction(4)  # 4/4 when no time signature is given
# Measure children without notes that music21 turns into zero-length objects
# at the current offset (so they can lengthen a measure that ends in a
# <forward>), and those that add nothing at the current offset.
ZERO_LENGTH_OBJECTS = ("attributes", "direction", "sound")
IGNORED_CHILDREN = ("print", "barline")


class UnsupportedMusicXML(ValueError):
    """The file uses something this reader does not reproduce exactly."""


@dataclasses.dataclass
class Event:
    """A note, chord or rest. `offset` is in quarter notes from the start of
    the part; `pitches` are MIDI numbers (empty for a rest) and `spelled`
    the same pitches as (step, alter, octave)."""

    offset: Fraction
    length: Fraction
    pitches: tuple = ()
    spelled: tuple = ()
    tie: str = None
    is_chord: bool = False
    # How music21's flattened part orders events that start together.
    order: tuple = ()
    # Rest details used by music21's full-measure-rest rule.
    full_measure: bool = False
    notated_whole: bool = False
    # Made from a Finale <forward>, which music21 turns into a hidden rest.
    from_forward: bool = False

    @property
    def is_rest(self):
        return not self.pitches


@dataclasses.dataclass
class Part:
    """One <part>: its name, its events in document order, and its length
    in quarter notes (music21's `part.highestTime`)."""

    name: str
    events: list
    highest_time: Fraction


def read_root(path):
    """The parsed <score-partwise> element of a .mxl, .xml or .musicxml file."""
    path = str(path)
    try:
        if path.endswith(".mxl"):
            with zipfile.ZipFile(path) as archive:
                container = ElementTree.fromstring(
                    archives.read_member(archive, "META-INF/container.xml", MAX_MEMBER_BYTES, path, "MusicXML file")
                )
                rootfile = next(e for e in container.iter() if e.tag.endswith("rootfile"))
                member = rootfile.get("full-path")
                data = archives.read_member(archive, member, MAX_MEMBER_BYTES, f"{path}:{member}", "MusicXML score")
        elif path.endswith((".xml", ".musicxml")):
            with open(path, "rb") as handle:
                data = handle.read(MAX_MEMBER_BYTES + 1)
            if len(data) > MAX_MEMBER_BYTES:
                raise ValueError(
                    f"{path}: more than {MAX_MEMBER_BYTES:,} bytes, more than a MusicXML score holds; not reading it."
                )
        else:
            raise UnsupportedMusicXML(f"{path}: not a MusicXML file")
        root = ElementTree.fromstring(data)
    except (OSError, KeyError, StopIteration, zipfile.BadZipFile, ElementTree.ParseError) as error:
        raise UnsupportedMusicXML(f"{path}: cannot read MusicXML ({error!r})") from error
    if root.tag != "score-partwise":
        raise UnsupportedMusicXML(f"{path}: root element <{root.tag}> is not <score-partwise>")
    return root


def read_parts(path):
    """The parts of a score, in file order, as `Part`s."""
    root = read_root(path)
    try:
        return _parts_of(root)
    except UnsupportedMusicXML as error:
        raise UnsupportedMusicXML(f"{path}: {error}") from None
    except (ValueError, TypeError, AttributeError, KeyError, ZeroDivisionError) as error:
        raise UnsupportedMusicXML(f"{path}: unexpected MusicXML ({error!r})") from error


def _parts_of(root):
    names = {}
    for score_part in root.iter("score-part"):
        name = (score_part.findtext("part-name") or "").strip().replace("\n", " ")
        if not name:
            raise UnsupportedMusicXML(f"part {score_part.get('id')} has no <part-name>")
        names[score_part.get("id")] = name
    written_by_finale = _written_by_finale(root)
    return [_read_part(part, names[part.get("id")], written_by_finale) for part in root.findall("part")]


def _written_by_finale(root):
    """music21 applies its Finale workarounds when the first <software> says Finale."""
    for software in root.iter("software"):
        if (software.text or "").strip():
            return "Finale" in software.text
    return False


class _PartState:
    """What carries over from one measure to the next."""

    def __init__(self):
        self.divisions = DEFAULT_DIVISIONS
        self.bar_length = DEFAULT_BAR_LENGTH


def _read_part(part_element, name, written_by_finale):
    state = _PartState()
    measures = []
    measure_offset = Fraction(0)
    ends = []  # where each measure's last object ends, from the part's start
    for element in part_element.iterfind("measure"):
        measure = _read_measure(element, state, written_by_finale)
        length = measure.highest_time()
        measures.append((measure_offset, measure))
        ends.append(measure_offset + length)
        measure_offset += _offset_shift(length, state.bar_length)
    if written_by_finale and measures and _drop_ending_forward_rest(measures[-1][1]):
        ends[-1] = measures[-1][0] + measures[-1][1].highest_time()
    highest_time = max(ends, default=Fraction(0))
    events = []
    for index, (offset, measure) in enumerate(measures):
        for event in measure.events:
            event.offset += offset
            event.order = (index,) + event.order
            events.append(event)
    return Part(name, events, highest_time)


def _offset_shift(highest_time, bar_length):
    """How far the next measure starts after this one (music21's
    `PartParser.adjustTimeAttributesFromMeasure`): the measure's own length,
    unless it overflows the time signature by a small, odd amount."""
    if highest_time <= bar_length:
        return highest_time
    excess = highest_time - bar_length
    if excess > Fraction(1, 2) or _near_multiple(excess, Fraction(1, 16)) or _near_multiple(excess, Fraction(1, 12)):
        return highest_time
    return bar_length


def _near_multiple(value, unit):
    return abs(value - round(value / unit) * unit) < Fraction(1, 10**6)


def _drop_ending_forward_rest(measure):
    """music21 removes the hidden rest of a Finale <forward> that ends the
    piece; returns whether there was one."""
    rest = measure.trailing_forward_rest
    if rest is None or measure.uses_voices:
        return False
    if max(measure.events, key=lambda e: (e.offset, e.order)) is not rest:
        return False
    measure.events.remove(rest)
    return True


class _Measure:
    """The events of one <measure>, offsets relative to its start."""

    def __init__(self, element):
        self.events = []
        self.latest_object = Fraction(0)  # offset of the last zero-length object
        self.trailing_forward_rest = None
        voice_ids = {(c.findtext("voice") or "").strip() for c in element if c.tag in ("note", "forward")}
        voice_ids.discard("")
        self.voice_rank = {voice: rank for rank, voice in enumerate(sorted(voice_ids))}
        self.uses_voices = len(voice_ids) > 1
        # Counted as music21 does to find a full-measure rest.
        self.counts = {"notes": 0, "rests": 0, "full_measure_rest": False}

    def highest_time(self):
        ends = [e.offset + e.length for e in self.events]
        return max(ends + [self.latest_object])


def _read_measure(element, state, written_by_finale):
    measure = _Measure(element)
    children = list(element)
    offset = Fraction(0)
    chord_notes = []
    for position, child in enumerate(children):
        if child.tag == "note":
            next_is_chord = position + 1 < len(children) and _is_chord_member(children[position + 1])
            offset = _read_note(child, next_is_chord, chord_notes, offset, state, measure)
            measure.trailing_forward_rest = None
        elif child.tag == "backup":
            offset = max(offset - _duration(child, state), Fraction(0))
        elif child.tag == "forward":
            length = _duration(child, state)
            if written_by_finale:
                rest = Event(offset, length, order=_order(child, measure), from_forward=True)
                rest.notated_whole = _derived_whole(length)
                measure.events.append(rest)
                measure.trailing_forward_rest = rest
            offset += length
        elif child.tag in ZERO_LENGTH_OBJECTS:
            if child.tag == "attributes":
                _read_attributes(child, state, offset)
            if child.tag == "direction" and child.find("offset") is not None:
                raise UnsupportedMusicXML("<direction> with <offset>")
            measure.latest_object = max(measure.latest_object, offset)
        elif child.tag not in IGNORED_CHILDREN:
            raise UnsupportedMusicXML(f"unsupported measure element <{child.tag}>")
    if chord_notes:
        raise UnsupportedMusicXML("unfinished chord")
    _apply_full_measure_rest(measure, state.bar_length)
    if not measure.events and measure.latest_object == 0:
        # music21 fills an empty measure with a rest as long as the bar
        measure.events.append(Event(Fraction(0), state.bar_length, order=(0, len(measure.events))))
    return measure


def _is_chord_member(element):
    return element.tag == "note" and element.find("chord") is not None


def _order(element, measure):
    """(voice rank, position): music21 puts each voice's notes in its own
    stream, voices sorted by id, and keeps document order inside one."""
    if not measure.uses_voices:
        return (0, len(measure.events))
    voice = (element.findtext("voice") or "").strip()
    if voice not in measure.voice_rank:
        raise UnsupportedMusicXML("note without <voice> in a measure with several voices")
    return (measure.voice_rank[voice], len(measure.events))


def _duration(element, state):
    text = element.findtext("duration")
    if not text or not text.strip():
        return Fraction(0)
    text = text.strip()
    if text.isdigit() and isinstance(state.divisions, int):
        return Fraction(int(text), state.divisions)
    return Fraction(text) / state.divisions


def _read_attributes(element, state, offset):
    divisions = element.findtext("divisions")
    if divisions:
        divisions = Fraction(divisions.strip())
        state.divisions = int(divisions) if divisions.denominator == 1 else divisions
    if int(element.findtext("staves") or 1) > 1:
        raise UnsupportedMusicXML("a part with several staves")
    if element.find("transpose") is not None:
        raise UnsupportedMusicXML("<transpose>")
    times = element.findall("time")
    if times:
        if len(times) > 1 or offset != 0:
            raise UnsupportedMusicXML("time signature not at the start of a measure")
        beats, beat_type = times[0].findtext("beats"), times[0].findtext("beat-type")
        if not (beats and beat_type and beats.strip().isdigit() and beat_type.strip().isdigit()):
            raise UnsupportedMusicXML("unsupported <time>")
        state.bar_length = Fraction(4 * int(beats), int(beat_type))


def _read_note(element, next_is_chord, chord_notes, offset, state, measure):
    """Reads one <note>; returns the offset after it. Chord members wait in
    `chord_notes` until the chord's last note."""
    for unsupported in ("cue", "unpitched", "time-modification"):
        if element.find(unsupported) is not None:
            raise UnsupportedMusicXML(f"<{unsupported}> in a note")
    if _is_chord_member(element) or next_is_chord:
        if _is_chord_member(element) and not chord_notes:
            raise UnsupportedMusicXML("<chord/> note that does not follow a note")
        chord_notes.append(element)
        if next_is_chord:
            return offset
        event = _chord_event(chord_notes, offset, state, measure)
        chord_notes.clear()
    elif element.find("rest") is not None:
        measure.counts["rests"] += 1
        event = _rest_event(element, offset, state, measure)
        measure.counts["full_measure_rest"] |= event.full_measure
    else:
        measure.counts["notes"] += 1
        event = _note_event(element, offset, state, measure)
    measure.events.append(event)
    return offset + event.length


def _note_length(element, state):
    """Quarter notes; grace notes (and notes without <duration>) last 0."""
    if element.find("grace") is not None:
        return Fraction(0)
    return _duration(element, state)


def _note_event(element, offset, state, measure):
    spelled = _spelled_pitch(element)
    return Event(
        offset,
        _note_length(element, state),
        pitches=(_midi(spelled),),
        spelled=(spelled,),
        tie=_tie(element),
        order=_order(element, measure),
    )


def _chord_event(notes, offset, state, measure):
    lengths = {_note_length(n, state) for n in notes}
    if len(lengths) > 1 or 0 in lengths:
        raise UnsupportedMusicXML("chord with mixed lengths or grace notes")
    if any(n.find("rest") is not None for n in notes):
        raise UnsupportedMusicXML("rest inside a chord")
    if any(_tie(n) is not None for n in notes):
        raise UnsupportedMusicXML("tied chord")
    voiced = next((n for n in notes if n.find("voice") is not None), notes[-1])
    spelled = tuple(_spelled_pitch(n) for n in notes)
    return Event(
        offset,
        lengths.pop(),
        pitches=tuple(_midi(s) for s in spelled),
        spelled=spelled,
        is_chord=True,
        order=_order(voiced, measure),
    )


def _rest_event(element, offset, state, measure):
    length = _note_length(element, state)
    if length == 0:
        raise UnsupportedMusicXML("rest without duration")
    notated = (element.findtext("type") or "").strip()
    event = Event(offset, length, order=_order(element, measure))
    if notated:
        event.notated_whole = notated in ("whole", "breve") and not element.findall("dot")
    else:
        event.notated_whole = _derived_whole(length)
    measure_yes = element.find("rest").get("measure") == "yes"
    event.full_measure = measure_yes and (not notated or notated in ("whole", "breve"))
    return event


def _derived_whole(length):
    """Whether music21 calls a rest of this length, given without <type>, an
    undotted whole or breve."""
    return length in (4, 8)


def _apply_full_measure_rest(measure, bar_length):
    """music21 stretches a lone whole rest (or one marked measure="yes")
    to the length of the bar."""
    counts = measure.counts
    if not (counts["full_measure_rest"] or (counts["rests"] == 1 and counts["notes"] == 0)):
        return
    if measure.uses_voices:
        raise UnsupportedMusicXML("full-measure rest in a measure with voices")
    rests = [e for e in measure.events if e.is_rest]
    first = min(rests, key=lambda e: (e.offset, e.order))
    if first.full_measure or (first.length != bar_length and first.notated_whole):
        first.length = bar_length


def _spelled_pitch(element):
    pitch = element.find("pitch")
    if pitch is None:
        raise UnsupportedMusicXML("note without <pitch>")
    step = pitch.findtext("step").strip()
    alter = Fraction(pitch.findtext("alter") or 0)
    if alter.denominator != 1:
        raise UnsupportedMusicXML("microtonal <alter>")
    return step, int(alter), int(pitch.findtext("octave"))


def _midi(spelled):
    step, alter, octave = spelled
    return 12 * (octave + 1) + STEP_SEMITONES[step] + alter


def _tie(element):
    """None, "start", "stop" or "continue" (both stop and start), as music21 reads <tie>."""
    types = [t.get("type") for t in element.findall("tie")]
    if not types:
        return None
    if len(types) == 1 and types[0] in ("start", "stop", "continue"):
        return types[0]
    if len(types) == 2 and set(types) == {"start", "stop"}:
        return "continue"
    raise UnsupportedMusicXML(f"unexpected ties {types}")


def sounding_order(part):
    """The part's notes, chords and rests with a length, in the order of
    music21's `part.flatten().notesAndRests`."""
    events = [e for e in part.events if e.length > 0]
    return sorted(events, key=lambda e: (e.offset, e.order))


def strip_ties(events):
    """The events left after merging tied notes, as music21's
    `Stream.stripTies()` (matchByPitch=True) does on a flattened part:
    every note that continues a tie chain is dropped."""
    connected = []  # positions of the open tie chain
    dropped = set()
    for i, event in enumerate(events):
        last_connected = i > 0 and (i - 1) in connected
        previous = events[i - 1] if i > 0 else None
        ends_chain = None
        if event.tie == "start":
            connected = connected + [i] if last_connected else [i]
            ends_chain = False
        elif event.tie == "continue":
            if connected and _ends_tie(event, previous, last_connected):
                connected.append(i)
            else:
                connected = [i]
            ends_chain = False
        if ends_chain is None:
            ends_chain = _ends_tie(event, previous, last_connected)
        if ends_chain:
            connected.append(i)
            dropped.update(connected[1:])
            connected = []
    return [e for i, e in enumerate(events) if i not in dropped]


def _ends_tie(event, previous, previous_connected):
    """music21's `updateEndMatch`: a tie stop, or the same pitch(es) as the
    previous, connected event."""
    if not event.is_chord and event.tie == "stop":
        return True
    if previous is None or not previous_connected:
        return False
    if not event.is_chord and not event.is_rest and not previous.is_chord and not previous.is_rest:
        return event.spelled == previous.spelled
    if event.is_chord or event.is_rest:
        if len(previous.pitches) != len(event.pitches):
            return False
        return all(a[0] == b[0] and _midi(a) == _midi(b) for a, b in zip(previous.spelled, event.spelled))
    return False
