"""Keep the README and the docs true: regenerate their printed excerpts, values and figures from
the demo run.

The README and the documentation pages (``docs/**/*.md``) mark what the code prints:

- a block ``<!-- excerpt: NAME -->`` + a fenced code block + ``<!-- /excerpt -->``: the fenced
  block's body is the lines ``EXCERPTS[NAME]`` selects from what its source prints;
- an inline ``<!-- value: NAME -->0.135<!-- /value -->``: ``VALUES[NAME]`` of the demo summary.

Every source runs once (the demo run, ``agenteval run data/agentic_demo.jsonl --k 3 --mode
bayesian --out DIR``, as ``make demo``; ``out/demo`` with ``--screenshot``); nothing is typed in by hand, so a change of the
code's numbers (a new estimator default) shows up as a difference.

    python tools/readme_excerpts.py            # rewrite README.md and docs/*.md,
                                               # docs/img/demo_pass_posterior*.png
                                               # and (with pdflatex) docs/img/summary_table.png
    python tools/readme_excerpts.py --check    # exit 1 and show the differences (the test's check)
    python tools/readme_excerpts.py --screenshot   # also docs/img/report.png (headless Chromium)
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = REPO / "docs"


def documented() -> list[Path]:
    """The files whose marks are kept current: the README, then the site's pages (the API pages
    are generated from docstrings and print nothing)."""
    pages = sorted(p for p in DOCS.rglob("*.md") if "api" not in p.relative_to(DOCS).parts[:1])
    return [README, *pages]
FIGURE = REPO / "docs" / "img" / "demo_pass_posterior.png"
SCREENSHOT = REPO / "docs" / "img" / "report.png"
TABLE = REPO / "docs" / "img" / "summary_table.png"
COLUMN_FIGURE = REPO / "docs" / "img" / "demo_pass_posterior_column.png"
DEMO = ["run", "data/agentic_demo.jsonl", "--k", "3", "--mode", "bayesian"]
"""The demo run of ``make demo`` (``--out`` is added: a temporary folder)."""
DEMO_LABELS = [*DEMO, "--labels", "data/agentic_demo_labels.jsonl"]
"""The same run with the demo's human labels (its printout is the source ``labels-stdout``)."""


@dataclass(frozen=True)
class Excerpt:
    """Lines of one source: ``stdout`` (the run's printout) or a file the run wrote in --out."""

    source: str
    select: tuple[str, ...] = ()   # regexes; a line is kept when one matches; () = every line
    after: str = ""                # regex: selection starts at the first line matching it


EXCERPTS: dict[str, Excerpt] = {
    "run-demo-comparisons": Excerpt("stdout", after=r"^agent comparisons \(", select=(
        r"^agent comparisons \(", r"^  A=agent-gpt-small vs B=agent-planner-v2",
        r"^    (success|pass\^3) ", r"^ranking by ", r"^  agent-planner-v2 +mean ",
        r"^quality \(", r"^  agent-planner-v2 +pass@3 ")),
    "run-demo-summary-tex": Excerpt("summary.tex"),
    "run-demo-labels-quality": Excerpt("labels-stdout", after=r"^quality \(", select=(
        r"^quality \(", r"^judge-only quality \(", r"^  agent-\S+ +pass@3 \d")),
}

VALUES: dict[str, Callable[[dict], str]] = {
    "run-demo-pooled-pass-pow-all": lambda s: f"{s['rows'][0]['pooled_pass_pow_k']:.3f}",
    "run-demo-task-pass-pow-all": lambda s: f"{s['rows'][0]['task_pass_pow_k']:.3f}",
}

_BLOCK = re.compile(r"(<!-- excerpt: (?P<name>[\w.-]+) -->\n```[^\n]*\n)(?P<body>.*?)"
                    r"(```\n<!-- /excerpt -->)", re.S)
_VALUE = re.compile(r"(<!-- value: (?P<name>[\w.-]+) -->)(?P<body>.*?)(<!-- /value -->)")


def run_demo(out: Path) -> dict[str, str]:
    """Run the demo as ``make demo`` does; return its printout and the text files it wrote, and
    (``labels-stdout``) the printout of the same run with the demo's human labels."""
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "COLUMNS": "200", "NO_COLOR": "1"}
    script = Path(sys.executable).with_name("agenteval")   # the console script a user runs
    base = ([str(script)] if script.exists() else
            [sys.executable, "-c", "import sys; from agenteval.cli import main; sys.exit(main())"])
    shown = out.relative_to(REPO) if out.is_relative_to(REPO) else out  # as the README types it
    cmd = [*base, *DEMO, "--out", str(shown)]
    run = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        raise SystemExit(f"the demo run failed ({run.returncode}):\n{run.stderr[-4000:]}")
    sources = {"stdout": run.stdout}
    labelled = subprocess.run([*base, *DEMO_LABELS], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=600)
    if labelled.returncode != 0:
        raise SystemExit(f"the labelled demo run failed ({labelled.returncode}):\n"
                         f"{labelled.stderr[-4000:]}")
    sources["labels-stdout"] = labelled.stdout
    for path in out.iterdir():
        if path.suffix in (".tex", ".json", ".csv"):
            sources[path.name] = path.read_text(encoding="utf-8")
    return sources


def excerpt_text(excerpt: Excerpt, sources: dict[str, str]) -> str:
    lines = sources[excerpt.source].splitlines()
    if excerpt.after:
        start = [i for i, ln in enumerate(lines) if re.search(excerpt.after, ln)]
        lines = lines[start[0]:] if start else []
    if excerpt.select:
        rules = [re.compile(r) for r in excerpt.select]
        lines = [ln for ln in lines if any(r.search(ln) for r in rules)]
    if not lines:
        raise SystemExit(f"excerpt from {excerpt.source}: no line selected (did the output change?)")
    return "\n".join(ln.rstrip() for ln in lines) + "\n"


def render(readme: str, sources: dict[str, str], seen: set[str] | None = None) -> str:
    """The text with every marked excerpt and value replaced by what the code prints now; the
    names it marks are added to ``seen`` (given), else every name must be marked in this text."""
    summary = json.loads(sources["results.json"])["summary"]
    marked: set[str] = set()

    def block(m: re.Match[str]) -> str:
        name = m["name"]
        if name not in EXCERPTS:
            raise SystemExit(f"a page marks an unknown excerpt {name!r} (tools/readme_excerpts.py)")
        marked.add(name)
        return m.group(1) + excerpt_text(EXCERPTS[name], sources) + m.group(4)

    def value(m: re.Match[str]) -> str:
        name = m["name"]
        if name not in VALUES:
            raise SystemExit(f"a page marks an unknown value {name!r} (tools/readme_excerpts.py)")
        marked.add(name)
        return m.group(1) + VALUES[name](summary) + m.group(4)

    out = _VALUE.sub(value, _BLOCK.sub(block, readme))
    if seen is None:
        _check_marked(marked)
    else:
        seen |= marked
    return out


def _check_marked(seen: set[str]) -> None:
    missing = (set(EXCERPTS) | set(VALUES)) - seen
    if missing:
        raise SystemExit(f"README and docs lack the marked excerpts {sorted(missing)}")


def render_all(sources: dict[str, str], texts: dict[Path, str] | None = None) -> dict[Path, str]:
    """Every documented file rendered (``texts`` overrides what is read from disk); every
    excerpt and value must be marked in at least one of them."""
    texts = texts or {p: p.read_text(encoding="utf-8") for p in documented()}
    seen: set[str] = set()
    out = {path: render(text, sources, seen) for path, text in texts.items()}
    _check_marked(seen)
    return out


def differences(old: str, new: str, name: str = "README.md") -> str:
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                        f"{name} (committed)", f"{name} (code prints)"))


def column_figure(out: Path, png: Path) -> None:
    """The same posterior figure at a paper's column width (3.3 in), from the run's stored
    results (reloaded, nothing sampled)."""
    code = ("import sys, matplotlib; matplotlib.use('Agg'); import agenteval; "
            "from agenteval import plots; r = agenteval.load_results(sys.argv[1]); "
            "fig = plots.plot_pass_posterior(r, width='column'); "
            "plots.export(fig, sys.argv[2], formats=('png',), dpi=200)")
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    subprocess.run([sys.executable, "-c", code, str(out), str(png.with_suffix(""))], check=True,
                   cwd=REPO, env=env, timeout=300)


def table_png(tex: Path, png: Path) -> bool:
    """The run's summary.tex compiled with pdflatex + booktabs at a two-column paper's text width
    (6.9 in), as a cropped PNG; False (and nothing written) without a TeX installation."""
    if not (shutil.which("pdflatex") and shutil.which("pdftoppm")):
        return False
    from PIL import Image, ImageChops

    with tempfile.TemporaryDirectory(prefix="agenteval-table-") as tmp:
        doc = Path(tmp) / "table.tex"
        doc.write_text("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{booktabs}\n"
                       "\\usepackage[letterpaper,margin=0.8in]{geometry}\n\\pagestyle{empty}\n"
                       "\\begin{document}\n" + tex.read_text(encoding="utf-8") + "\\end{document}\n",
                       encoding="utf-8")
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name],
                       cwd=tmp, check=True, capture_output=True, timeout=120)
        subprocess.run(["pdftoppm", "-r", "160", "-png", "-singlefile", "table.pdf", "table"],
                       cwd=tmp, check=True, timeout=120)
        image = Image.open(Path(tmp) / "table.png").convert("RGB")
        box = ImageChops.difference(image, Image.new("RGB", image.size, "white")).getbbox()
        image.crop((box[0] - 12, box[1] - 12, box[2] + 12, box[3] + 12)).save(png, optimize=True)
    return True


def screenshot(report: Path) -> None:
    subprocess.run([sys.executable, str(REPO / "docs" / "report_screenshot.py"), str(report),
                    str(SCREENSHOT)], check=True, cwd=REPO, timeout=300)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 on a difference")
    parser.add_argument("--screenshot", action="store_true", help="also docs/img/report.png")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="agenteval-readme-") as tmp:
        # the screenshot shows the run's command line: run it where `make demo` writes
        out = REPO / "out" / "demo" if args.screenshot else Path(tmp) / "demo"
        sources = run_demo(out)
        old = {p: p.read_text(encoding="utf-8") for p in documented()}
        new = render_all(sources, old)
        changed = [p for p in old if new[p] != old[p]]
        if args.check:
            diff = "".join(differences(old[p], new[p], str(p.relative_to(REPO))) for p in changed)
            if diff:
                print(diff + "\nexcerpts differ from what the code prints: run "
                      "python tools/readme_excerpts.py", file=sys.stderr)
                return 1
            print("README and docs excerpts match the code")
            return 0
        for path in changed:
            path.write_text(new[path], encoding="utf-8")
        shutil.copyfile(out / "figures" / "pass_posterior.png", FIGURE)
        column_figure(out, COLUMN_FIGURE)
        wrote = [FIGURE, COLUMN_FIGURE] + ([TABLE] if table_png(out / "summary.tex", TABLE) else [])
        if args.screenshot:
            screenshot(out / "report.html")
        wrote += [SCREENSHOT] if args.screenshot else []
        print(f"updated {[str(p.relative_to(REPO)) for p in changed] or 'nothing'}; wrote "
              + ", ".join(str(p.relative_to(REPO)) for p in wrote))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
