#!/bin/sh
# `make run`: the packaged extension in a real VS Code (code-server 4.100.3) on 127.0.0.1,
# with examples/ open and the repo's .venv (torch 2.13.0) as the interpreter. Prints the URL;
# Ctrl+C stops it. RUN_SECONDS=N stops it after N seconds (used to check this script).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUN="$ROOT/dist/run/examples"
ENTRY="$ROOT/extension/editor/node_modules/code-server/out/node/entry.js"
VSIX="$ROOT/dist/exportlens.vsix"
PORT=${PORT:-8765}
for need in "$ENTRY" "$VSIX" "$ROOT/.venv/bin/python"; do
  [ -e "$need" ] || { echo "open-examples: missing $need (run: make run)" >&2; exit 1; }
done
rm -rf "$RUN"
mkdir -p "$RUN/home" "$RUN/data/User" "$RUN/extensions" "$RUN/tmp"
cp -r "$ROOT/examples" "$RUN/workspace"
cat > "$RUN/data/User/settings.json" <<JSON
{
  "exportlens.interpreter": "$ROOT/.venv/bin/python",
  "workbench.startupEditor": "none",
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "git.enabled": false,
  "security.workspace.trust.startupPrompt": "never"
}
JSON
printf 'auth: none\ncert: false\n' > "$RUN/config.yaml"
export HOME="$RUN/home" XDG_CONFIG_HOME="$RUN/home/.config" XDG_DATA_HOME="$RUN/home/.local/share" \
  XDG_CACHE_HOME="$RUN/home/.cache" TMPDIR="$RUN/tmp"
COMMON="--config $RUN/config.yaml --user-data-dir $RUN/data --extensions-dir $RUN/extensions"
node "$ENTRY" $COMMON --install-extension "$VSIX" >/dev/null
setsid node "$ENTRY" $COMMON --bind-addr "127.0.0.1:$PORT" --auth none --disable-telemetry \
  --disable-update-check --disable-getting-started-override --ignore-last-opened \
  "$RUN/workspace" > "$RUN/code-server.log" 2>&1 &
PID=$!
trap 'kill -- -$PID 2>/dev/null; exit 0' INT TERM EXIT
for _ in $(seq 60); do
  curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
  sleep 1
done
echo "ExportLens in VS Code: http://127.0.0.1:$PORT/?folder=$RUN/workspace  (Ctrl+C to stop)"
if [ -n "${RUN_SECONDS:-}" ]; then sleep "$RUN_SECONDS"; else wait "$PID"; fi
