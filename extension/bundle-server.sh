#!/bin/sh
# Installs the server's pure-Python dependencies into dist/libs (shipped in the .vsix; the
# server's launcher puts them on the server's sys.path only, see extension/src/launch.ts).
# Wheels only, any platform, pure Python: what is bundled runs on every CPython >= 3.10.
# Re-runs only when extension/bundled-requirements.txt changes.
set -eu
cd "$(dirname "$0")/.."
REQ=extension/bundled-requirements.txt
LIBS=dist/libs
STAMP="dist/.libs-$(cksum < "$REQ" | cut -d' ' -f1)"
if [ -f "$STAMP" ]; then
  echo "bundle-server: $LIBS is up to date"
  exit 0
fi
PY="${PYTHON:-python3}"
command -v "$PY" >/dev/null || { echo "bundle-server: $PY not found" >&2; exit 1; }
rm -rf "$LIBS"
"$PY" -m pip install --quiet --disable-pip-version-check --no-deps --no-compile \
  --only-binary=:all: --implementation py --platform any --python-version 3.10 \
  --target "$LIBS" -r "$REQ"
rm -rf "$LIBS"/bin
touch "$STAMP"
echo "bundle-server: $(ls "$LIBS" | grep -v dist-info | tr '\n' ' ')"
