# `make run`: set up, then check the bundled examples. `make test`: set up, then every test.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: setup run test lint typecheck unit bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	rm -f $(VENV)/.installed-* && touch $@

# Exit status 1 means "findings", which is what the examples are for.
run: setup
	$(VENV)/bin/exportlens check examples/ || test $$? -eq 1

lint: setup
	$(VENV)/bin/ruff check server tests bench examples
	$(VENV)/bin/ruff format --check server tests bench

typecheck: setup
	$(VENV)/bin/mypy

unit: setup
	$(PY) -m pytest -q tests

test: lint typecheck unit

bench: setup
	$(PY) bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

# The VS Code client's targets (setup, build, package, tests) live beside it.
include extension/extension.mk
