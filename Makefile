# ddzlab: `make report` runs every notebook and regenerates figures/; `make test` runs the tests.
# Both create the virtual environment .venv first (from pyproject.toml) if it is missing.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# pinned versions (the committed figures and numbers depend on them); CONSTRAINTS= to install unpinned
CONSTRAINTS ?= constraints.txt

.PHONY: setup report report-full lint test bench clean browser screenshot constraints mutation mutation-core
CHROMIUM ?= /usr/bin/chromium

setup: $(STAMP)

$(STAMP): pyproject.toml $(CONSTRAINTS)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q $(if $(CONSTRAINTS),-c $(CONSTRAINTS)) -e '.[dev,notebooks,peers,env,douzero]'
	# torch comes from the douzero extra (pinned: the CPU build of 2.13.0 on this project's machines);
	# douzero itself without its declared dependencies (an unpinned torch would pull a CUDA build)
	$(BIN)/pip install -q --no-deps douzero==1.1.0
	touch $(STAMP)

report: setup
	$(BIN)/ddzlab report $(ARGS)
	@if test -x $(CHROMIUM); then $(MAKE) --no-print-directory screenshot; \
	  else echo "NOTE: no Chromium at $(CHROMIUM): figures/00_hand_inspector.png not refreshed (make browser)"; fi

report-full: setup
	$(BIN)/ddzlab report --full $(ARGS)

lint: setup
	$(BIN)/ruff check ddzlab tests benchmarks
	$(BIN)/lint-imports
	$(BIN)/mypy

test: setup lint
	@test -x $(CHROMIUM) || echo "NOTE: no Chromium at $(CHROMIUM): the browser test will fail; run 'make browser' (apt-get install -y chromium, as root)"
	# the peers (douzero, rlcard) are installed by setup: a missing one fails the run, never skips
	DDZLAB_REQUIRE_PEERS=1 DDZLAB_SCALE=test DDZLAB_CHROMIUM=$(CHROMIUM) MPLBACKEND=Agg $(BIN)/python -m pytest $(ARGS)

# the Chromium that tests/frontends/test_widgets_browser.py drives (Debian/Ubuntu package; never `playwright install`)
browser:
	@test -x $(CHROMIUM) || { apt-get update && apt-get install -y chromium; } || \
	  { echo "could not install Chromium: run 'sudo apt-get install -y chromium'"; exit 1; }

# figures/00_hand_inspector.png: the browser test at report scale (needs Chromium)
screenshot: setup browser
	DDZLAB_SCALE=quick DDZLAB_CHROMIUM=$(CHROMIUM) MPLBACKEND=Agg $(BIN)/python -m pytest -q tests/frontends/test_widgets_browser.py

# mutation testing: `make mutation MODULE=records` mutates one module (a key of
# SELECTION in tests/mutation.py) against only the tests that exercise it, niced, one child,
# resumable (state in .mutation/MODULE/); prints the counts and the score. Not in CI.
# Scores and the equivalent survivors: tests/MUTATION.md
mutation: setup
	$(BIN)/pip install -q "mutmut==3.8.1"
	$(BIN)/python tests/mutation.py $(MODULE) $(ARGS)

# the numba kernels, which mutmut cannot mutate: cosmic-ray on a seeded sample (tests/mutation_core.py)
mutation-core: setup
	$(BIN)/pip install -q "cosmic-ray==8.7.0"
	$(BIN)/python tests/mutation_core.py $(ARGS)

bench: setup
	for b in benchmarks/bench_*.py; do $(BIN)/python $$b || exit 1; done

# refresh constraints.txt after changing dependencies: make clean && make setup CONSTRAINTS= && make constraints
constraints: setup
	{ sed -n '1,4p' constraints.txt; $(BIN)/pip freeze --exclude-editable | grep -v '^ddzlab'; } > constraints.new
	mv constraints.new constraints.txt

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
