"""The speed plot of the docs: each model's training step against the LSTM
of equal width, per backend and XLA setting, read from a `python -m bench`
report.

    python -m bench.plots bench/REPORT.md docs/assets/speed.png
"""

import argparse
import re

SECTIONS = ("OCR letters", "JSB Chorales", "Sequential MNIST", "Character-level PTB")
KEPT = re.compile(r"^(SCRBM \(|SCRBM teacher|LMN|TrellisNet|GRU, equal width|SimpleRNN, equal width)")


def ratios(report):
    """`{section: [(label, ratio)]}`: the training-step ratio to the LSTM of
    equal width of each model row (the floor rows left out), labelled with
    its backend and XLA setting."""
    found, backend, section = {}, None, None
    for line in report.splitlines():
        if line.startswith("## Backend: "):
            backend = line.split(": ", 1)[1].strip()
        elif line.startswith("### "):
            section = next((s for s in SECTIONS if line[4:].startswith(s)), None)
        elif section and line.startswith("| ") and not line.startswith(("| jit_compile", "| ---")):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) < 5 or not KEPT.match(cells[1]):
                continue
            try:
                ratio = float(cells[4])
            except ValueError:
                continue
            xla = "XLA" if cells[0] == "True" else "no XLA"
            found.setdefault(section, []).append((f"{cells[1]} — {backend}, {xla}", ratio))
    return found


def plot(report, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    found = ratios(report)
    if not found:
        raise ValueError("no training-step rows found: is this a `python -m bench` report?")
    heights = [len(rows) for rows in found.values()]
    figure, axes = plt.subplots(
        len(found),
        1,
        figsize=(10, 0.28 * sum(heights) + 1.2 * len(found)),
        gridspec_kw={"height_ratios": heights},
        squeeze=False,
    )
    for ax, (section, rows) in zip(axes[:, 0], found.items()):
        labels, values = zip(*rows)
        ax.barh(range(len(rows)), values, color=["C0" if v <= 1 else "C3" for v in values])
        ax.set_yticks(range(len(rows)), labels, fontsize=7)
        ax.invert_yaxis()
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_title(section, fontsize=9, loc="left")
        ax.tick_params(axis="x", labelsize=7)
    axes[-1, 0].set_xlabel("training step time / LSTM of equal width (same backend and XLA setting)", fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=90, metadata={"Software": None})
    plt.close(figure)
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", help="a `python -m bench` Markdown report")
    parser.add_argument("output", help="the PNG to write")
    args = parser.parse_args(argv)
    with open(args.report) as f:
        found = plot(f.read(), args.output)
    print(f"wrote {args.output}: {sum(len(rows) for rows in found.values())} rows")


if __name__ == "__main__":
    main()
