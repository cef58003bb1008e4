#!/bin/sh
# tools/transformers-venv.sh: a venv with tools/transformers-older.txt's transformers, made once and
# reused under .venv-transformers/ (git-ignored). Prints its python. Only those pins are installed
# (--no-deps, ~135 MB, ~10 s); a .pth line appends the main venv's site-packages (torch and the
# rest), after the venv's own, so its transformers shadows the main one. Its code sits under a real
# site-packages with its dist-info, as a user's install does.
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
pins="$root/tools/transformers-older.txt"
main="$root/${VENV:-.venv}/bin/python"
version="$(sed -n 's/^transformers==//p' "$pins")"
venv="$root/.venv-transformers/transformers-$version"
stamp="$venv/.installed-$(cksum < "$pins" | cut -d' ' -f1)"
if [ ! -f "$stamp" ]; then
  rm -rf "$venv"
  base="$("$main" -c 'import sys; print(sys.base_prefix)')/bin/python3"
  "$base" -m venv --without-pip "$venv"
  "$main" -m pip install --quiet --disable-pip-version-check --no-deps \
    --target "$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" \
    -r "$pins" >&2
  "$main" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' \
    > "$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/exportlens-main-venv.pth"
  "$venv/bin/python" -c "import transformers, torch; assert transformers.__version__ == '$version', transformers.__version__" >&2
  touch "$stamp"
fi
echo "$venv/bin/python"
