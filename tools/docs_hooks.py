"""MkDocs hooks: the pages that live outside ``docs/`` and the notebooks, executed, in the site.

- ``notebooks/*.ipynb`` are committed without outputs; each is executed here in the project's
  kernel (``agenteval``, from ``notebooks/`` as in JupyterLab) and the executed copy is what
  mkdocs-jupyter renders. The copy is kept in ``.cache/docs/notebooks`` under a key of the
  notebook, the package's source and the data, so a rebuild re-executes only what changed.
- ``data/README.md`` (the data formats) and ``benchmarks/README.md`` (every speed figure) are
  pages of the site as they are (``data-format.md``, ``benchmarks/index.md``), not copies.
- MathJax comes from the ``jupyter-server-mathjax`` package into ``assets/mathjax``: formulas
  render offline (a CDN script would leave them as TeX source without a network). The package
  ships the STIX web fonts only, so every page that has formulas gets a configuration naming
  them (MathJax's default TeX web font would be missing: "Math Processing Error").
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / ".cache" / "docs" / "notebooks"
KERNEL = "agenteval"
CELL_TIMEOUT = 180   # s; the slowest cell (notebook 05's PyMC fit, cold compile) needs under 60
EXTERNAL_PAGES = {"data-format.md": "data/README.md", "benchmarks/index.md": "benchmarks/README.md",
                  "benchmarks/results.json": "benchmarks/results.json"}
log = logging.getLogger("mkdocs.hooks.agenteval")


def _source_key(notebook: Path) -> str:
    """Everything an executed notebook's outputs depend on that lives in the repository."""
    digest = hashlib.sha256(notebook.read_bytes())
    for folder, pattern in (("agenteval", "*.py"), ("data", "*")):
        for path in sorted((REPO / folder).rglob(pattern)):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def execute(notebook: Path) -> Path:
    """The executed copy of ``notebook`` (executed now unless a current copy is cached).

    Each notebook runs in its own process (``python tools/docs_hooks.py NOTEBOOK OUT``): a kernel
    driven from inside the MkDocs build was seen to sit idle and never reply, while the same
    notebook executed in a process of its own took ten seconds. A stalled kernel (no reply to a
    cell within ``CELL_TIMEOUT``) gets one retry on a fresh kernel, then fails the build.
    """
    target = CACHE / f"{notebook.stem}-{_source_key(notebook)}" / "notebooks" / notebook.name
    if target.is_file():
        return target
    for old in CACHE.glob(f"{notebook.stem}-*"):            # one current copy per notebook
        shutil.rmtree(old)
    target.parent.mkdir(parents=True)
    for attempt in (1, 2):
        log.info("executing %s (kernel %s)", notebook.relative_to(REPO), KERNEL)
        run = subprocess.run([sys.executable, __file__, str(notebook), str(target)], cwd=REPO,
                             capture_output=True, text=True)
        if run.returncode == 0:
            return target
        if run.returncode != STALLED or attempt == 2:
            raise RuntimeError(f"{notebook.relative_to(REPO)} did not execute:\n{run.stderr[-3000:]}")
        log.warning("%s: the kernel stalled; once more on a fresh kernel", notebook.name)
    raise AssertionError("unreachable")


STALLED = 3   # the executing process's exit code for a cell that got no reply in time


def _execute_here(notebook: Path, target: Path) -> int:
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError

    nb = nbformat.read(notebook, as_version=4)
    client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name=KERNEL,
                            resources={"metadata": {"path": str(notebook.parent)}})
    try:
        client.execute()
    except CellTimeoutError as error:
        print(f"{notebook.name}: {error}", file=sys.stderr)
        return STALLED
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    if errors:
        print(f"{notebook.name}: {errors[0].ename}: {errors[0].evalue}", file=sys.stderr)
        return 1
    tmp = target.with_suffix(".tmp")
    nbformat.write(nb, tmp)
    os.replace(tmp, target)
    return 0


def mathjax_dir() -> Path:
    import jupyter_server_mathjax

    return Path(jupyter_server_mathjax.__file__).parent / "static"


@event_priority(100)   # before mkdocs-jupyter's on_files, which wraps the notebooks it sees
def on_files(files: Files, config) -> Files:
    for uri, source in EXTERNAL_PAGES.items():
        files.append(File.generated(config, uri, abs_src_path=str(REPO / source)))
    for notebook in sorted((REPO / "notebooks").glob("*.ipynb")):
        # a File read from its own folder (mkdocs-jupyter's wrapper needs a plain File)
        executed = execute(notebook)
        files.append(File(f"notebooks/{notebook.name}", src_dir=str(executed.parents[1]),
                          dest_dir=config["site_dir"], use_directory_urls=config["use_directory_urls"]))
    static = mathjax_dir()
    for path in sorted(static.rglob("*")):
        if path.is_file():
            files.append(File.generated(config, f"assets/mathjax/{path.relative_to(static).as_posix()}",
                                        abs_src_path=str(path)))
    return files


_MATHJAX_CONFIG = """<script type="text/x-mathjax-config">
MathJax.Hub.Config({"HTML-CSS": {availableFonts: [], preferredFont: null, webFont: "STIX-Web",
                                 imageFont: null},
                    tex2jax: {inlineMath: [INLINE["\\\\(", "\\\\)"]],
                              displayMath: [DISPLAY["\\\\[", "\\\\]"]],
                              processEscapes: true, processEnvironments: true},
                    messageStyle: "none"});
</script>
"""
# notebooks write $...$ (Jupyter's convention); the Markdown pages only \( \) and \[ \]
# (arithmatex's output), so a "$5" in their text stays text
NOTEBOOK_CONFIG = _MATHJAX_CONFIG.replace("INLINE", '["$", "$"], ').replace("DISPLAY", '["$$", "$$"], ')
PAGE_CONFIG = _MATHJAX_CONFIG.replace("INLINE", "").replace("DISPLAY", "")
MATHJAX_SCRIPT = "assets/mathjax/MathJax.js"


def on_post_page(output: str, page, config) -> str:
    """MathJax, served by the site, on every page with a formula, configured for its fonts."""
    up = "../" * page.file.url.count("/")
    loaded = f'<script src="{up}{MATHJAX_SCRIPT}'
    if loaded in output:                          # a notebook: nbconvert's template loads it
        return output.replace(loaded, NOTEBOOK_CONFIG + loaded, 1)
    if 'class="arithmatex"' in output:           # a Markdown page with \( \) or \[ \]
        script = f'<script src="{up}{MATHJAX_SCRIPT}?config=TeX-AMS-MML_HTMLorMML-full"></script>\n'
        return output.replace("</body>", PAGE_CONFIG + script + "</body>", 1)
    return output


if __name__ == "__main__":
    raise SystemExit(_execute_here(Path(sys.argv[1]), Path(sys.argv[2])))
