"""Write the API reference pages (``docs/api/*.md``) from the public modules' ``__all__``.

One page per public module: a table of its public names, each linked to its entry, then the
entries whose home is this module (``::: path``, rendered by mkdocstrings from the docstrings).
An object re-exported by several modules (``agenteval.AgenticResults`` is
``agenteval.results.agentic.AgenticResults``) has one entry, on the page of the module that
defines it (or the most specific public module that lists it), and a link everywhere else.

    python tools/api_pages.py           # rewrite docs/api/
    python tools/api_pages.py --check   # exit 1 when a page differs (tests/test_docs.py checks it)
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
API = REPO / "docs" / "api"

MODULES: tuple[str, ...] = (
    "agenteval", "agenteval.core", "agenteval.core.base", "agenteval.core.records",
    "agenteval.core.retriever", "agenteval.core.selection", "agenteval.schemas",
    "agenteval.schemas.run", "agenteval.schemas.argument_rules", "agenteval.statistical",
    "agenteval.judge", "agenteval.metrics.rag", "agenteval.results", "agenteval.results.agentic",
    "agenteval.results.comparisons", "agenteval.results.rag", "agenteval.results.failures",
    "agenteval.results.io", "agenteval.results.manifest", "agenteval.results.write",
    "agenteval.plots", "agenteval.present.html", "agenteval.present.report",
    "agenteval.present.widgets", "agenteval.present.text", "agenteval.present.tables",
    "agenteval.present.rag",
)
"""The documented public modules: those whose ``__all__`` tests/test_architecture.py pins, less
the private ``agenteval._util`` helpers (tests/test_docs.py holds the two lists together)."""


@dataclass(frozen=True)
class Entry:
    module: str      # the public module whose __all__ lists the name
    name: str
    target: str      # the dotted path mkdocstrings renders (where the object is defined)
    home: str        # the module page that holds the full entry
    summary: str     # the docstring's first line
    inherits_fields: bool = False   # a dataclass extending another: its page shows their fields


def _griffe_package():
    import griffe

    return griffe.load("agenteval", search_paths=[str(REPO)], resolve_aliases=True,
                       resolve_external=False)


def _static_target(package, module: str, name: str) -> str | None:
    """The definition's path of ``module.name`` as griffe sees the source (aliases followed)."""
    try:
        obj = package[f"{module}.{name}".split(".", 1)[1]] if module != "agenteval" else package[name]
    except KeyError:
        return None
    return obj.final_target.path if obj.is_alias else obj.path


def _target(package, module: str, name: str, obj: object) -> str:
    if inspect.isclass(obj) or inspect.isfunction(obj):
        path = f"{obj.__module__}.{obj.__qualname__}"
        if _static_target(package, obj.__module__, obj.__qualname__) == path:
            return path
    found = _static_target(package, module, name)
    if found:
        return found
    # a name exported lazily: the package's submodule that holds the same object
    for other, mod in sorted(sys.modules.items()):
        if other.startswith("agenteval.") and getattr(mod, name, None) is obj:
            found = _static_target(package, other, name)
            if found:
                return found
    raise SystemExit(f"{module}.{name}: no definition found in the source for the API page")


def _summary(obj: object) -> str:
    if not (inspect.isclass(obj) or inspect.isroutine(obj) or inspect.ismodule(obj)):
        return ""          # a constant's docstring is its type's
    doc = inspect.getdoc(obj) or ""
    line = doc.strip().split("\n\n", 1)[0].replace("\n", " ").strip()
    return line.replace("|", "\\|")


def entries() -> list[Entry]:
    package = _griffe_package()
    found: list[tuple[str, str, str, object]] = []
    for module in MODULES:
        mod = importlib.import_module(module)
        for name in sorted(mod.__all__):
            obj = getattr(mod, name)
            found.append((module, name, _target(package, module, name, obj), obj))
    listed: dict[str, list[str]] = {}
    for module, _, target, _ in found:
        listed.setdefault(target, []).append(module)

    def home(target: str) -> str:
        modules = listed[target]
        prefix = [m for m in modules if target.startswith(m + ".")]
        return max(prefix, key=len) if prefix else modules[0]

    return [Entry(module, name, target, home(target), _summary(obj), _inherits_fields(obj))
            for module, name, target, obj in found]


def _inherits_fields(obj: object) -> bool:
    """A dataclass whose fields partly come from a base dataclass (``RagSummary`` extends
    ``RagValues``): its entry lists the inherited fields too, as they are part of its shape."""
    return (inspect.isclass(obj) and dataclasses.is_dataclass(obj)
            and any(dataclasses.is_dataclass(base) for base in obj.__mro__[1:]))


def _module_summary(module: str) -> str:
    doc = inspect.getdoc(importlib.import_module(module)) or ""
    return doc.strip().split("\n\n", 1)[0].replace("\n", " ")


def page(module: str, all_entries: list[Entry]) -> str:
    mine = [e for e in all_entries if e.module == module]
    lines = [f"# `{module}`", "", _module_summary(module), "",
             "<!-- written by tools/api_pages.py from the module's __all__: do not edit -->", "",
             "| name | what |", "|---|---|"]
    lines += [f"| [`{e.name}`][{e.target}] | {e.summary} |" for e in mine]
    for target, inherits in dict.fromkeys((e.target, e.inherits_fields) for e in mine
                                          if e.home == module):
        lines += ["", f"::: {target}"]
        if inherits:
            lines += ["    options:", "      inherited_members: true"]
    return "\n".join(lines) + "\n"


def index(all_entries: list[Entry]) -> str:
    lines = ["# API reference", "",
             "Generated from the docstrings: one page per public module, every name of its "
             "`__all__` with a link to its entry (an object exported by several modules is "
             "documented once, where it is defined). `tests/test_docs.py` fails when a public name "
             "has no entry.", "",
             "<!-- written by tools/api_pages.py: do not edit -->", "",
             "| module | what | names |", "|---|---|---|"]
    for module in MODULES:
        count = sum(e.module == module for e in all_entries)
        lines.append(f"| [`{module}`]({module}.md) | {_module_summary(module)} | {count} |")
    return "\n".join(lines) + "\n"


def pages() -> dict[str, str]:
    all_entries = entries()
    out = {"index.md": index(all_entries)}
    out.update({f"{module}.md": page(module, all_entries) for module in MODULES})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 on a difference")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    wanted = pages()
    stale = sorted(n for n, text in wanted.items()
                   if not (API / n).is_file() or (API / n).read_text(encoding="utf-8") != text)
    extra = sorted(p.name for p in API.glob("*.md") if p.name not in wanted) if API.is_dir() else []
    if args.check:
        if stale or extra:
            print(f"docs/api is stale (differs: {stale}, not generated: {extra}): run "
                  "python tools/api_pages.py", file=sys.stderr)
            return 1
        print("docs/api matches the public modules")
        return 0
    API.mkdir(parents=True, exist_ok=True)
    for name in stale:
        (API / name).write_text(wanted[name], encoding="utf-8")
    for name in extra:
        (API / name).unlink()
    print(f"docs/api: {len(stale)} written, {len(extra)} removed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
