# VRAM Lab: `make run` sets everything up and starts the app; `make test` sets everything up and runs the checks.
# The virtual environment (.venv) is (re)installed only when pyproject.toml or constraints.txt change.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint bench screenshots constraints clean

$(STAMP): pyproject.toml setup.py constraints.txt tools/venv.sh
	@PYTHON=$(PYTHON) sh tools/venv.sh $(VENV)

run: $(STAMP)
	$(BIN)/vramlab

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

# Every check runs even when an earlier one fails; the exit status is non-zero if any failed.
test: $(STAMP)
	@status=0; \
	echo "== ruff"; $(BIN)/ruff check --output-format concise . || status=1; \
	echo "== mypy"; $(BIN)/mypy || status=1; \
	echo "== pytest"; QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest || status=1; \
	exit $$status

bench: $(STAMP)
	$(BIN)/python bench/startup.py

screenshots: $(STAMP)
	$(BIN)/vramlab --screenshot docs/screenshots

# Regenerate constraints.txt from a clean venv (needs the network).
constraints:
	rm -rf build/constraints-venv
	$(PYTHON) -m venv build/constraints-venv
	build/constraints-venv/bin/pip install --quiet --upgrade pip
	build/constraints-venv/bin/pip install --quiet ".[test,dist]"
	{ head -n 2 constraints.txt; build/constraints-venv/bin/pip freeze --exclude vramlab; } > constraints.new
	mv constraints.new constraints.txt

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
