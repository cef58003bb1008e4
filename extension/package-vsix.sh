#!/bin/sh
# Packs dist/exportlens.vsix from a staging folder that holds only what .vscodeignore lets in:
# vsce lists every file under its folder before filtering, and the repository's folder holds the
# venvs (.venv-torch is many GB), which made packing take minutes. Same allow-list, same .vsix.
#
# The README is packed at the extension's root: its links into ../docs/ become docs/ and the
# files they name are packed too (the pictures, and the documents a finding links to), so they
# resolve inside VS Code. The manifest is package.json as vsix_stage.py stages it (the public
# address from pyproject.toml). Without a public address vsce cannot point the README's relative
# links at a repository for the Marketplace page: they are packed as they are.
set -eu
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
STAGE=dist/vsix-stage
rm -rf "$STAGE"
mkdir -p "$STAGE/extension/media" "$STAGE/dist/webview" "$STAGE/docs" "$STAGE/server"
"$PY" extension/vsix_stage.py manifest package.json pyproject.toml > "$STAGE/package.json"
cp LICENSE CHANGELOG.md .vscodeignore "$STAGE/"
cp extension/media/icon.png "$STAGE/extension/media/"
sed 's#](\.\./#](#g' extension/README.md > "$STAGE/extension/README.md"
for picture in $(grep -o '](\.\./docs/[^)]*\.png)' extension/README.md | sed 's#^](\.\./##; s#)$##'); do
  mkdir -p "$STAGE/$(dirname "$picture")"
  cp "$picture" "$STAGE/$picture"
done
PYTHONPATH=server "$PY" extension/vsix_stage.py docs | while read -r doc; do cp "$doc" "$STAGE/$doc"; done
cp dist/extension.js "$STAGE/dist/"
cp dist/webview/graph.js "$STAGE/dist/webview/"
cp -R dist/libs "$STAGE/dist/libs"
cp -R server/exportlens "$STAGE/server/exportlens"
find "$STAGE" -name __pycache__ -prune -exec rm -rf {} +  # what tests and the docs step compiled
if grep -q '"repository"' "$STAGE/package.json"; then
  LINKS=""
else
  LINKS="--allow-missing-repository --no-rewrite-relative-links"
fi
cd "$STAGE"
# shellcheck disable=SC2086 # LINKS holds two flags or none
../../node_modules/.bin/vsce package --no-dependencies $LINKS \
  --readme-path extension/README.md --out ../exportlens.vsix
