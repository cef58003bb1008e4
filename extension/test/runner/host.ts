/**
 * `make ext-test`: runs the extension-host suites inside a real code-server (the repository
 * loaded as the development extension), relays their results, exits non-zero on any failure.
 *   - test/host/index.ts      trusted folder (test/fixtures)
 *   - test/host/untrusted.ts  untrusted folder (test/fixtures-untrusted), workspace trust on
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { ROOT, need, startEditor, stopOnSignals } from './editor';

const PREFIX = 'EXPORTLENS-TEST ';
const TIMEOUT_MS = 15 * 60 * 1000;

function noTorchPython(): string {
  const venv = path.join(ROOT, 'dist', 'notorch-venv');
  const python = path.join(venv, 'bin', 'python');
  if (!existsSync(python)) {
    const made = spawnSync('python3', ['-m', 'venv', '--without-pip', venv], { encoding: 'utf8' });
    if (made.status !== 0) {
      throw new Error(`python3 -m venv failed: ${made.stderr}`);
    }
  }
  return python;
}

interface Suite {
  name: string;
  fixtures: string;
  tests: string;
  trustAll: boolean;
}

async function runSuite(suite: Suite, interpreter: string): Promise<number> {
  need(suite.tests, 'the compiled extension-host tests');
  console.log(`# suite ${suite.name}`);
  const started = Date.now();
  const editor = await startEditor({
    name: `host-${suite.name}`,
    fixtures: suite.fixtures,
    settings: { 'exportlens.interpreter': interpreter, 'exportlens.trace.server': 'messages' },
    extensionTests: suite.tests,
    trustAll: suite.trustAll,
  });
  stopOnSignals(() => editor.stop());
  editor.page.on('console', (message) => {
    const text = message.text();
    const at = text.indexOf(PREFIX);
    if (at >= 0) {
      console.log(text.slice(at + PREFIX.length));
    } else if (/\[Extension Host\].*(error|Error)/.test(text)) {
      console.log(`  (exthost) ${text.slice(0, 400)}`);
    }
  });
  let code: number;
  try {
    code = await Promise.race([
      editor.testsExit,
      new Promise<number>((resolve) =>
        setTimeout(() => {
          console.error(`suite ${suite.name} did not finish within ${TIMEOUT_MS / 60000} min`);
          resolve(1);
        }, TIMEOUT_MS),
      ),
    ]);
  } finally {
    await editor.stop();
  }
  console.log(`# suite ${suite.name}: exit ${code} in ${((Date.now() - started) / 1000).toFixed(0)} s; logs under ${editor.runDir}`);
  return code;
}

async function main(): Promise<number> {
  const interpreter = path.join(ROOT, '.venv', 'bin', 'python');
  need(interpreter, 'the project venv (make setup)');
  need(path.join(ROOT, 'dist', 'extension.js'), 'the built extension (make ext-build)');
  need(path.join(ROOT, 'dist', 'libs', 'pygls'), 'the bundled server libraries (make ext-build)');
  process.env.EXPORTLENS_TEST_NO_TORCH_PYTHON = noTorchPython();
  const only = process.argv[2];
  const suites: Suite[] = [
    {
      name: 'trusted',
      fixtures: path.join(ROOT, 'extension', 'test', 'fixtures'),
      tests: path.join(ROOT, 'dist', 'test', 'host', 'index.js'),
      trustAll: true,
    },
    {
      name: 'untrusted',
      fixtures: path.join(ROOT, 'extension', 'test', 'fixtures-untrusted'),
      tests: path.join(ROOT, 'dist', 'test', 'host', 'untrusted.js'),
      trustAll: false,
    },
  ];
  let failed = 0;
  for (const suite of suites.filter((s) => only === undefined || s.name === only)) {
    if ((await runSuite(suite, interpreter)) !== 0) {
      failed++;
    }
  }
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.stack : error);
    process.exit(1);
  },
);
