"""MkDocs hook: an API page's `<!-- api: MODULE -->` line becomes one
mkdocstrings block per name in that module's `__all__`, at the path where
the name is defined, so the reference lists every public name and is never
written by hand."""

import importlib
import inspect
import re
import sys

MARKER = re.compile(r"^<!-- api: ([\w.]+) -->$", re.MULTILINE)


def public_objects(module_name):
    """`[(name, dotted path of its definition)]` for the names in `module_name.__all__`."""
    module = importlib.import_module(module_name)
    found = []
    for name in module.__all__:
        value = getattr(module, name)
        if inspect.ismodule(value):
            path = value.__name__
        elif inspect.isclass(value) or inspect.isfunction(value):
            path = f"{value.__module__}.{value.__qualname__}"
        else:  # a constant: documented in the module that defines it
            path = f"{_defining_module(module_name, name, value)}.{name}"
        found.append((name, _source_path(path)))
    return found


def _defining_module(package, name, value):
    submodules = sorted(m for m in sys.modules if m.startswith(package + "."))
    for module in submodules:
        if getattr(sys.modules[module], name, None) is value:
            return module
    return package


def _source_path(path):
    # keras_seq.zoo and keras_seq.tuning are installed from the zoo/ and tuning/ folders
    # (pyproject's package-dir), where mkdocstrings reads them.
    for package, folder in (("keras_seq.zoo", "zoo"), ("keras_seq.tuning", "tuning")):
        if path == package or path.startswith(package + "."):
            return folder + path[len(package) :]
    return path


def reference(module_name):
    """The mkdocstrings blocks of `module_name`'s public names."""
    module = importlib.import_module(module_name)
    blocks = []
    for name, path in public_objects(module_name):
        blocks += [f"**`{module_name}.{name}`**", "", f"::: {path}"]
        if inspect.ismodule(getattr(module, name)):  # a subpackage: its own page lists its names
            blocks.append("    options:\n      members: false")
        blocks.append("")
    return "\n".join(blocks)


def on_page_markdown(markdown, page, config, files):
    return MARKER.sub(lambda match: reference(match.group(1)), markdown)
