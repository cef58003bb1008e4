# Targets for the VS Code client; included by the top-level Makefile. All run from the repo root.
#
#   make ext-setup    system packages (chromium, ripgrep, ...), npm ci (root + extension/editor)
#   make ext-build    dist/extension.js (esbuild) + dist/libs (the server's bundled pure-Python deps)
#   make ext-lint     tsc --noEmit (strict) + eslint
#   make ext-unit     unit tests of the client's own logic (node --test)
#   make ext-package  dist/exportlens.vsix (@vscode/vsce)
#   make ext-test     extension-host tests inside a real code-server 4.100.3
#   make ext-ui       Playwright UI scenarios on the installed .vsix (ui.ts, then the graph panel's
#                     graphUi.ts, an ONNX refusal's onnxUi.ts, a notebook's notebookUi.ts);
#                     screenshots in dist/screenshots/
#                     (`make screenshots` copies them into docs/screenshots/)
#   make ext-check    all of the above
#   make ext-icon     re-render extension/media/icon.png from icon.svg (the PNG is committed)
#
# Nothing is skipped: a missing tool stops the target with a message that says how to get it.

EXT_APT := chromium libkrb5-dev pkg-config ripgrep
EXT_ROOT_STAMP := node_modules/.ci-$(shell cksum < package-lock.json | cut -d' ' -f1)
EXT_EDITOR_STAMP := extension/editor/node_modules/.ci-$(shell cksum < extension/editor/package-lock.json | cut -d' ' -f1)
EXT_SOURCES := $(wildcard extension/src/*.ts extension/src/graph/*.ts extension/src/graph/webview/*.ts) package.json tsconfig.json extension/esbuild.mjs

.PHONY: ext-setup ext-apt ext-build ext-lint ext-unit ext-package ext-test ext-ui ext-check ext-icon ext-clean

ext-setup: setup ext-apt $(EXT_ROOT_STAMP) $(EXT_EDITOR_STAMP)

# chromium: the browser Playwright drives; ripgrep replaces @vscode/ripgrep's GitHub download;
# libkrb5-dev + pkg-config: code-server's kerberos module builds from source.
ext-apt:
	@missing=""; for p in $(EXT_APT); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then echo "ext-apt: missing$$missing; run as root: apt-get install -y$$missing" >&2; exit 1; fi; \
	  echo "ext-apt: installing$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(EXT_ROOT_STAMP): package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# code-server 4.100.3 (the last release that installs on Node 20): its postinstalls need
# unsafe-perm/yes as root, and @vscode/ripgrep's download is replaced by Debian's rg.
$(EXT_EDITOR_STAMP): extension/editor/package-lock.json | ext-apt
	sh extension/editor/seed-ripgrep.sh
	cd extension/editor && npm_config_unsafe_perm=true npm_config_yes=true \
	  npm ci --foreground-scripts --no-audit --no-fund --loglevel=error
	test -f extension/editor/node_modules/code-server/out/node/entry.js
	touch $@

dist/extension.js: $(EXT_SOURCES) $(EXT_ROOT_STAMP)
	node extension/esbuild.mjs

# a no-op while extension/bundled-requirements.txt is unchanged
ext-build: $(EXT_ROOT_STAMP) dist/extension.js
	sh extension/bundle-server.sh

ext-lint: $(EXT_ROOT_STAMP)
	npx tsc -p . --noEmit
	npx tsc -p extension/test --noEmit
	npx eslint extension eslint.config.mjs

ext-unit: $(EXT_ROOT_STAMP)
	node extension/esbuild.mjs --unit
	node --test --test-reporter=spec dist/test/unit/

ext-package: $(EXT_ROOT_STAMP)
	npm run -s package

ext-test: ext-setup ext-build
	node extension/esbuild.mjs --tests
	node dist/test/runner/host.js

ext-ui: ext-setup ext-package
	node extension/esbuild.mjs --tests
	node dist/test/runner/ui.js
	node dist/test/runner/graphUi.js
	node dist/test/runner/onnxUi.js
	node dist/test/runner/notebookUi.js

ext-check: ext-lint ext-unit ext-test ext-ui

ext-icon: ext-apt $(EXT_ROOT_STAMP)
	node extension/media/render-icon.mjs

ext-clean:
	rm -rf dist node_modules extension/editor/node_modules
