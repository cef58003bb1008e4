#!/bin/sh
# @vscode/ripgrep's postinstall downloads rg from GitHub, which this machine cannot reach.
# Pre-seed its download cache with Debian's /usr/bin/rg instead (apt-get install ripgrep).
set -eu
RG=$(command -v rg) || { echo "seed-ripgrep: rg not found: apt-get install ripgrep" >&2; exit 1; }
CACHE="$(node -p 'require("os").tmpdir()')/vscode-ripgrep-cache-1.15.11"
mkdir -p "$CACHE"
WORK=$(mktemp -d)
cp "$RG" "$WORK/rg"
tar -C "$WORK" -czf "$CACHE/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" rg
rm -rf "$WORK"
echo "seed-ripgrep: $CACHE"
