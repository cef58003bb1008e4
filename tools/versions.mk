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

# The transformers tests on a second release a year older than pyproject.toml's (issue 44): pins in
# tools/transformers-older.txt, its venv made once by tools/transformers-venv.sh (cached under
# .venv-transformers/, ~10 s, ~135 MB); pytest runs in $(VENV), the worker in that venv (~8 min: the
# cache fix's ~3, the ten tiny models' of test_transformers_models.py ~3).
# The in-process decode-step test is left out: it imports this interpreter's transformers.
TRANSFORMERS_TESTS ?= tests/realcode/test_transformers_cache.py tests/realcode/test_decode_step.py \
  tests/realcode/test_cache_wrapper_fix.py tests/fixes/test_cache_wrapper_copies.py \
  tests/realcode/test_transformers_models.py \
  'tests/compile/test_compile_training.py::test_each_break_torch_reports_in_a_training_step_is_found_on_its_line[hf_bert-train_bert_hf.py]'
TRANSFORMERS_DESELECT ?= --deselect tests/realcode/test_decode_step.py::test_the_decode_step_puts_the_cache_back

.PHONY: test-transformers-older
test-transformers-older: setup
	python=$$(VENV=$(VENV) sh tools/transformers-venv.sh) && \
	  EXPORTLENS_TEST_PYTHON=$$python $(PY) -m pytest -q -p no:cacheprovider $(TRANSFORMERS_TESTS) $(TRANSFORMERS_DESELECT)
