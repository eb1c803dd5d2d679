"""Every public layer, model, loader and preset function shows an example in
its docstring, and the examples run: `>>>` lines as doctests (their output
compared), ```python blocks executed, on the backend the tests run on."""

import doctest
import importlib
import inspect
import os
import re

import keras
import numpy as np
import pytest

MODULES = (
    "keras_seq.layers",
    "keras_seq.models",
    "keras_seq.data",
    "keras_seq.presets",
    "keras_seq.pretraining",
    "keras_seq.constraints",
)
FENCED = re.compile(r"```python\n(.*?)```", re.DOTALL)


def _public():
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isclass(value) or inspect.isfunction(value):
                yield f"{module_name}.{name}", value


PUBLIC = dict(_public())


def _namespace(value):
    """What an example may use unimported: numpy as np, keras, keras_seq,
    the public names of the modules above, and its own module's names."""
    names = {"keras": keras, "np": np, "keras_seq": importlib.import_module("keras_seq")}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        names.update({name: getattr(module, name) for name in module.__all__})
    return {**names, **vars(importlib.import_module(value.__module__))}


@pytest.fixture
def in_a_scratch_folder(tmp_path, monkeypatch, shared_data_dir):
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    monkeypatch.setenv("KERAS_SEQ_DATA_DIR", os.path.abspath(shared_data_dir))
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_the_docstring_example_runs(name, in_a_scratch_folder):
    value = PUBLIC[name]
    docstring = inspect.getdoc(value) or ""
    assert "Example" in docstring, f"{name} has no Example: in its docstring"
    fenced = FENCED.findall(docstring)
    tests = doctest.DocTestFinder().find(value, name, globs=_namespace(value))
    doctests = [t for t in tests if t.examples]
    assert fenced or doctests, f"{name}: its Example has neither a ```python block nor >>> lines"
    for block in fenced:
        exec(compile(block, f"<{name} example>", "exec"), _namespace(value))
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in doctests:
        runner.run(test)
    assert runner.failures == 0, f"{name}: {runner.failures} doctest line(s) failed (output above)"
