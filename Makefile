# ddzlab: `make report` runs every notebook and regenerates figures/; `make test` runs the tests.
# Both create the virtual environment .venv first (from pyproject.toml) if it is missing.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup report report-full lint test bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,notebooks,peers]'
	# douzero declares torch (a multi-GB CUDA build); its env modules need only numpy
	$(BIN)/pip install -q --no-deps douzero==1.1.0
	touch $(STAMP)

report: setup
	$(BIN)/ddzlab report $(ARGS)

report-full: setup
	$(BIN)/ddzlab report --full $(ARGS)

lint: setup
	$(BIN)/ruff check ddzlab tests benchmarks
	$(BIN)/lint-imports

test: setup lint
	DDZLAB_SCALE=test MPLBACKEND=Agg $(BIN)/python -m pytest $(ARGS)

bench: setup
	for b in benchmarks/bench_*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
