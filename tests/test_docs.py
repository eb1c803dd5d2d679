"""The documentation: the docs site builds in strict mode with an API
reference of every public name, the README stays one short page whose
numbers are RESULTS.md's, and RESULTS.md stays findings, not a notebook.
Backend-independent: run in the TensorFlow run only (tests/conftest.py)."""

import importlib
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import docs_api_reference  # noqa: E402

API_PAGES = {  # module whose __all__ a page of docs/api lists -> page
    "keras_seq": "keras_seq",
    "keras_seq.layers": "layers",
    "keras_seq.models": "models",
    "keras_seq.presets": "presets",
    "keras_seq.data": "data",
    "keras_seq.pretraining": "pretraining",
    "keras_seq.zoo": "zoo",
    "keras_seq.tuning": "tuning",
}


def _read(*path):
    with open(os.path.join(ROOT, *path), encoding="utf-8") as f:
        return f.read()


def test_the_docs_site_builds_strictly_with_every_public_name_in_its_api_reference(tmp_path):
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "TF_CPP_MIN_LOG_LEVEL": "3"}
    mkdocs = os.path.join(os.path.dirname(sys.executable), "mkdocs")
    build = subprocess.run(
        [mkdocs, "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    for module, page in API_PAGES.items():
        html = (site / "api" / page / "index.html").read_text(encoding="utf-8")
        names = importlib.import_module(module).__all__
        assert names
        for name, path in docs_api_reference.public_objects(module):
            assert f'id="{path}"' in html, f"{module}.{name} ({path}) is missing from api/{page}"
    for module in ("metrics", "constraints", "distribute", "saving"):
        assert f'id="keras_seq.{module}"' in (site / "api" / "utilities" / "index.html").read_text()


def test_the_readme_is_one_short_page_with_the_two_commands_on_its_first_screen():
    readme = _read("README.md")
    assert len(readme.splitlines()) <= 200
    first_screen = "\n".join(readme.splitlines()[:40])
    assert 'pip install -e ".[zoo]" && keras-seq compare bach_chorales_lmn_b_pretrained' in first_screen
    assert "bash scripts/test.sh" in first_screen
    for link in re.findall(r"\]\(((?!https?:)[^)#]+)", readme):
        assert os.path.exists(os.path.join(ROOT, link)), f"README links to a missing file: {link}"


def test_the_readme_headline_numbers_are_the_results_rows():
    readme, results = _read("README.md"), _read("RESULTS.md")
    section = readme[readme.index("## Headline results") :]
    table = section[: section.index("\n## ")]
    rows = [line for line in table.splitlines() if re.match(r"\| [a-z0-9_]+ \|", line) and "| recipe |" not in line]
    assert len(rows) >= 8
    for row in rows:
        recipe, _, ours, _, converged = (cell.strip() for cell in row.strip("|").split("|"))
        matches = [line for line in results.splitlines() if line.startswith(f"| {recipe} ")]
        assert len(matches) == 1, recipe
        assert f"| {ours} |" in matches[0], f"{recipe}: README says {ours}, RESULTS.md does not"
        assert f"| {converged} |" in matches[0], f"{recipe}: README says {converged} converged"


def test_results_md_is_findings_not_a_notebook():
    results = _read("RESULTS.md")
    assert len(results.encode()) <= 40_000
    long = [line[:60] for line in results.splitlines() if len(line) > 400]
    assert not long, long
    for page in re.findall(r"\(docs/findings/([a-z0-9_]+\.md)\)", results):
        assert os.path.exists(os.path.join(ROOT, "docs", "findings", page)), page


def test_no_file_speaks_of_the_work_sessions():
    """Words about how the project was worked on say nothing to a reader;
    vocabulary files of the presets hold the English word, which is data."""
    pattern = re.compile(r"\bsessions?\b", re.IGNORECASE)
    found = []
    for top in ("README.md", "RESULTS.md", "CHANGELOG.md", "docs", "records", "keras_seq", "zoo", "tuning", "bench"):
        path = os.path.join(ROOT, top)
        files = [path] if os.path.isfile(path) else [os.path.join(d, f) for d, _, names in os.walk(path) for f in names]
        for file in files:
            if not file.endswith((".md", ".py", ".json")) or file.endswith(os.path.join("assets", "words.json")):
                continue
            text = open(file, encoding="utf-8").read()
            found += [f"{os.path.relpath(file, ROOT)}: {m.group(0)}" for m in pattern.finditer(text)]
    assert not found, found[:20]
