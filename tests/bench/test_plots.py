"""bench/plots.py reads the committed report's training-step ratios and
draws the docs' speed plot."""

import os

from bench import plots

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_speed_plot_reads_every_backend_of_the_report(tmp_path):
    with open(os.path.join(ROOT, "bench", "REPORT.md")) as f:
        report = f.read()
    found = plots.ratios(report)
    ocr = dict(found["OCR letters"])
    for backend in ("tensorflow, no XLA", "jax, XLA", "torch, no XLA"):
        assert f"SCRBM (100 units, Algorithm 1) — {backend}" in ocr
    assert not any("floor" in label for rows in found.values() for label, _ in rows)
    assert all(value > 0 for rows in found.values() for _, value in rows)
    path = tmp_path / "speed.png"
    plots.plot(report, str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert os.path.isfile(os.path.join(ROOT, "docs", "assets", "speed.png"))
