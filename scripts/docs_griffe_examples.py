"""Griffe extension for the docs: Keras-style `Example:` sections (the
example unindented below the title, as in Keras' own docstrings) are read
as Google-style `Examples:` sections, so `>>>` lines render as code."""

import re

import griffe

SECTION = re.compile(r"^(?:Example|Examples):[ \t]*$", re.MULTILINE)
NEXT_SECTION = re.compile(r"^[A-Z][A-Za-z ]*:[ \t]*$")


def indent_examples(text):
    lines = text.split("\n")
    out, inside, opening = [], False, False
    for line in lines:
        if SECTION.match(line):
            out.append("Examples:")
            inside, opening = True, True
            continue
        if inside and opening and not line.strip():  # Google sections start on the next line
            continue
        opening = False
        if inside and NEXT_SECTION.match(line):
            inside = False
        out.append(("    " + line if line.strip() else "") if inside else line)
    return "\n".join(out)


class KerasStyleExamples(griffe.Extension):
    def on_instance(self, *, obj, **kwargs):
        if obj.docstring is not None and SECTION.search(obj.docstring.value):
            obj.docstring.value = indent_examples(obj.docstring.value)
