# The torch versions users have (issue #14): the diagnosis and fix suites against each, through the
# worker's interpreter (pytest itself runs in $(VENV)); 2.13.0 is the main venv's own torch. Venvs
# of the others are made once by tools/torch-venv.sh (cached under .venv-torch/).
TORCH_VERSIONS ?= 2.10.0 2.13.0 2.14.1 2.15.0

.PHONY: test-versions test-versions-fast examples-diff

# Prints the table version x suite (passed / failed counts); exit status 1 on any failure.
test-versions: setup
	$(PY) tools/versions_matrix.py $(TORCH_VERSIONS)

# The same without the slow real-code and property files.
test-versions-fast: setup
	$(PY) tools/versions_matrix.py --fast $(TORCH_VERSIONS)

# The CLI's JSON on examples/ on each version against the main venv's (docs/torch-versions.md says
# which differences are torch's own).
examples-diff: setup
	$(PY) tools/examples_diff.py $(TORCH_VERSIONS)
