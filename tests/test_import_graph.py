"""The package's import graph: data flows one way (data -> pipeline ->
builders -> run loop -> reports; the command line on top), so there is no
import circle between modules or subpackages, and no module imports
another package's private name."""

import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# installed name -> source folder (pyproject's package-dir)
PACKAGES = {"keras_seq": "keras_seq", "keras_seq.zoo": "zoo", "keras_seq.tuning": "tuning"}


def _modules():
    found = {}
    for package, folder in PACKAGES.items():
        for directory, _, files in os.walk(os.path.join(ROOT, folder)):
            for file in files:
                if not file.endswith(".py"):
                    continue
                relative = os.path.relpath(os.path.join(directory, file), os.path.join(ROOT, folder))[:-3]
                parts = relative.split(os.sep)
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                found[".".join([package, *parts])] = os.path.join(directory, file)
    return found


def _imports(path, modules):
    """(imported module, imported name or None) of every import statement,
    those inside functions included."""
    for node in ast.walk(ast.parse(open(path).read())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("keras_seq"):
                    yield alias.name, None
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("keras_seq"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                yield (full, None) if full in modules else (node.module, alias.name)


def _graph():
    modules = _modules()
    edges, private = {}, []
    for name, path in modules.items():
        edges[name] = set()
        for target, imported in _imports(path, modules):
            if target in modules and target != name:
                edges[name].add(target)
            if imported and imported.startswith("_") and _package(target) != _package(name):
                private.append(f"{name} imports {target}.{imported}")
    return edges, private


def _package(module):
    """The subpackage a module belongs to: keras_seq.zoo.train -> keras_seq.zoo."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else module


def _cycle(edges):
    """One cycle of the directed graph, or None (depth-first search)."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for target in sorted(edges.get(node, ())):
            if state.get(target) == "open":
                return stack[stack.index(target) :] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_import_circle_between_modules():
    edges, _ = _graph()
    assert "keras_seq.zoo.train" in edges and "keras_seq.zoo.cli" in edges
    assert _cycle(edges) is None, " -> ".join(_cycle(edges))


def test_no_import_circle_between_subpackages():
    edges, _ = _graph()
    packages = {}
    for module, targets in edges.items():
        if module == "keras_seq":  # the package's lazy front door
            continue
        packages.setdefault(_package(module), set()).update(
            _package(t) for t in targets if _package(t) != _package(module) and t != "keras_seq"
        )
    assert packages["keras_seq.tuning"] >= {"keras_seq.zoo"}  # the search runs the zoo's recipes
    assert _cycle(packages) is None, " -> ".join(_cycle(packages))


def test_no_private_names_across_packages():
    _, private = _graph()
    assert private == []


def test_the_cycle_finder_finds_cycles():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
