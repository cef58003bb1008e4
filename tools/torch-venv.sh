#!/bin/sh
# tools/torch-venv.sh VERSION: a venv with torch==VERSION (+ numpy) under .venv-torch/, made once
# and reused (the registry's builds of other versions are CUDA builds of several GB). Prints the
# venv's python. Exact pins only; PIP_CONSTRAINT=/dev/null lifts this machine's cap at 2.14.1,
# which 2.15 needs (the exact pin below is the only constraint that matters). The libraries the
# suites' model files import (transformers) go in beside it, at the main venv's versions
# (tools/worker_extras.py), re-checked whenever those change.
set -eu
version="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv-torch/torch-$version"
stamp="$venv/.installed"
if [ ! -f "$stamp" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  PIP_CONSTRAINT=/dev/null "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "torch==$version" "numpy==2.4.6" >&2
  "$venv/bin/python" -c "import torch; assert torch.__version__.split('+')[0] == '$version', torch.__version__" >&2
  touch "$stamp"
fi
main="$root/${VENV:-.venv}/bin/python"
extras="$venv/.extras-$("$main" "$root/tools/worker_extras.py" | cksum | cut -d' ' -f1)"
if [ ! -f "$extras" ]; then
  missing="$("$main" "$root/tools/worker_extras.py" --missing-in "$venv/bin/python")"
  if [ -n "$missing" ]; then
    # shellcheck disable=SC2086 # one pin per word
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps $missing >&2
  fi
  "$venv/bin/python" -c "import torch, transformers" >&2
  rm -f "$venv"/.extras-*
  touch "$extras"
fi
echo "$venv/bin/python"
