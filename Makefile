# Two commands matter: `make demo` (set up + run the main job) and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: setup demo test bench lock clean

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c constraints.txt -e '.[dev]'
	touch $(STAMP)

## Main job: the bundled demo data, offline judge, exact Bayesian mode.
demo: setup
	$(BIN)/agenteval run data/agentic_demo.jsonl --k 3 --mode bayesian --out out/demo

test: setup
	$(BIN)/python -m pytest

bench: setup
	$(BIN)/python benchmarks/run_all.py

## Re-resolve pinned versions in a scratch venv.
lock:
	rm -rf .cache/lock && $(PYTHON) -m venv .cache/lock
	.cache/lock/bin/pip install -q -e '.[dev]'
	.cache/lock/bin/pip freeze --exclude-editable | grep -v '^agenteval' > constraints.txt

clean:
	rm -rf $(VENV) out .pytest_cache
