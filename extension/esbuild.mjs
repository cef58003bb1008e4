// Bundles the extension into dist/extension.js, and the tests into dist/test/.
//   node extension/esbuild.mjs [--production] [--watch] [--unit] [--tests]
import * as esbuild from 'esbuild';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const production = args.has('--production');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: args.has('--unit') || args.has('--tests') ? 'warning' : 'info',
  absWorkingDir: root,
};

const entries = (dir) =>
  readdirSync(join(root, dir))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));

const builds = [];
if (args.has('--unit')) {
  builds.push({ ...common, entryPoints: entries('extension/test/unit'), outdir: 'dist/test/unit', external: ['vscode'] });
} else if (args.has('--tests')) {
  builds.push(
    {
      ...common,
      entryPoints: ['extension/test/host/index.ts', 'extension/test/host/untrusted.ts'],
      outdir: 'dist/test/host',
      external: ['vscode'],
    },
    {
      ...common,
      entryPoints: entries('extension/test/runner'),
      outdir: 'dist/test/runner',
      external: ['playwright-core'],
    },
  );
} else {
  builds.push(
    {
      ...common,
      entryPoints: ['extension/src/extension.ts'],
      outfile: 'dist/extension.js',
      external: ['vscode'],
    },
    {
      // the graph panel's page, dagre included: the webview loads nothing else
      ...common,
      platform: 'browser',
      target: 'chrome110',
      format: 'iife',
      entryPoints: ['extension/src/graph/webview/main.ts'],
      outfile: 'dist/webview/graph.js',
    },
  );
}

if (args.has('--watch')) {
  for (const options of builds) {
    await (await esbuild.context(options)).watch();
  }
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
}
