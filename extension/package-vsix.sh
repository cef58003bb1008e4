#!/bin/sh
# Packs dist/exportlens.vsix from a staging folder that holds only what .vscodeignore lets in:
# vsce lists every file under its folder before filtering, and the repository's folder holds the
# venvs (.venv-torch is many GB), which made packing take minutes. Same allow-list, same .vsix.
set -eu
cd "$(dirname "$0")/.."
STAGE=dist/vsix-stage
rm -rf "$STAGE"
mkdir -p "$STAGE/extension/media" "$STAGE/dist/webview" "$STAGE/docs" "$STAGE/server"
cp package.json LICENSE .vscodeignore "$STAGE/"
cp extension/media/icon.png "$STAGE/extension/media/"
cp extension/README.md "$STAGE/extension/"
cp docs/codes.md "$STAGE/docs/"
cp dist/extension.js "$STAGE/dist/"
cp dist/webview/graph.js "$STAGE/dist/webview/"
cp -R dist/libs "$STAGE/dist/libs"
cp -R server/exportlens "$STAGE/server/exportlens"
cd "$STAGE"
../../node_modules/.bin/vsce package --no-dependencies --allow-missing-repository \
  --readme-path extension/README.md --out ../exportlens.vsix
