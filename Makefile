# `make run`: set up, check the bundled examples with the CLI, then open them in a real VS Code
# (code-server on 127.0.0.1) with the packaged extension. `make test`: set up, then every test;
# `make test-fast`: only those that start no process (under a minute).
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: setup sys-deps run check-examples test test-fast lint typecheck unit bench screenshots wheel clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	rm -f $(VENV)/.installed-* && touch $@

# Exit status 1 means "findings", which is what the examples are for; 3, that a check ran out of
# time (a busy machine), which the output says: the editor still opens.
check-examples: setup
	$(VENV)/bin/exportlens check examples/ || test $$? -eq 1 -o $$? -eq 3

run: check-examples ext-setup ext-package
	sh extension/open-examples.sh

lint: setup
	$(VENV)/bin/ruff check server tests bench examples
	$(VENV)/bin/ruff format --check server tests bench

typecheck: setup
	$(VENV)/bin/mypy

# Neovim: the second real LSP client the reliability suite drives (tests/reliability/test_neovim.py).
sys-deps:
	@command -v nvim >/dev/null || { \
	  if [ "$$(id -u)" != 0 ]; then echo "sys-deps: run as root: apt-get install -y neovim" >&2; exit 1; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends neovim; }

unit: setup sys-deps
	$(PY) -m pytest -q tests

test: lint typecheck unit ext-check

# The fast set: every test that starts no worker, server, Neovim or subprocess (the `slow` marker,
# tests/slow.py), in under a minute; pytest's last line counts them (passed, deselected).
test-fast: setup
	$(PY) -m pytest -q -m "not slow" tests

# Every figure of the performance issues, one measurement at a time (~20 min on an idle 2-core
# machine): prints the table and writes bench/results/latest.md and latest.json. The real-editor
# figure runs the packaged extension in code-server; its runner sits beside the UI tests' (it
# uses their editor.ts).
bench: setup ext-setup ext-package
	npx esbuild bench/editor_first_diagnostic.ts --bundle --platform=node --target=node20 --format=cjs \
	  --external:playwright-core --outfile=dist/test/runner/editor_first_diagnostic.js --log-level=warning
	$(PY) bench/all.py

# The README's screenshots. Tests write theirs under dist/ only (a clone stays clean after
# `make test`); this runs the UI scenario and, only if it passed, replaces docs/screenshots/.
screenshots: ext-ui
	cp dist/screenshots/*.png docs/screenshots/
	@echo "screenshots: docs/screenshots/ updated; look at each before committing"

# The Python package (`pip install dist/exportlens-*.whl`): the CLI, the server with the `server`
# extra, and the docs its findings link to (setup.py). Built with the venv's pinned setuptools.
wheel: setup
	$(PY) -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation -w dist .
	rm -rf build server/exportlens.egg-info
	@ls dist/exportlens-*.whl

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build

# The VS Code client's targets (setup, build, package, tests) live beside it.
include extension/extension.mk

# The torch version matrix (make test-versions, make examples-diff).
include tools/versions.mk
