/**
 * `make ext-test`: runs the extension-host suites inside a real code-server (the repository
 * loaded as the development extension), relays their results, exits non-zero on any failure
 * or when the workbench showed an error notification the tests did not expect.
 *   - test/host/index.ts      trusted folder (test/fixtures)
 *   - test/host/untrusted.ts  untrusted folder (test/fixtures-untrusted), workspace trust on
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { EXTENSION_ID } from '../extensionId';
import { ROOT, need, startEditor, stopOnSignals } from './editor';
import { describe, openNotificationCenter } from './notifications';
import { outputLogFile, outputLogProblems } from './outputLog';

const PREFIX = 'EXPORTLENS-TEST ';
const EXPECTED_ERROR = '# expected error notification: '; // test/host/harness.ts
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

/** A venv whose `torch` is a stand-in that says it is 2.9.0 (older than ExportLens supports):
 * the probe reads the version from its metadata, as it does a real torch's. */
function oldTorchPython(): string {
  const venv = path.join(ROOT, 'dist', 'oldtorch-venv');
  const python = path.join(venv, 'bin', 'python');
  if (!existsSync(python)) {
    const made = spawnSync('python3', ['-m', 'venv', '--without-pip', venv], { encoding: 'utf8' });
    if (made.status !== 0) {
      throw new Error(`python3 -m venv failed: ${made.stderr}`);
    }
  }
  const site = spawnSync(python, ['-c', "import sysconfig; print(sysconfig.get_paths()['purelib'])"], { encoding: 'utf8' });
  if (site.status !== 0) {
    throw new Error(`${python} did not say where its packages go: ${site.stderr}`);
  }
  const packages = site.stdout.trim();
  mkdirSync(path.join(packages, 'torch'), { recursive: true });
  writeFileSync(path.join(packages, 'torch', '__init__.py'), '__version__ = "2.9.0"  # a stand-in: too old\n');
  mkdirSync(path.join(packages, 'torch-2.9.0.dist-info'), { recursive: true });
  writeFileSync(path.join(packages, 'torch-2.9.0.dist-info', 'METADATA'), 'Metadata-Version: 2.1\nName: torch\nVersion: 2.9.0\n');
  return python;
}

function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The page may show a long message shortened. */
function sameMessage(a: string, b: string): boolean {
  return a === b || (b.length >= 40 && a.startsWith(b)) || (a.length >= 40 && b.startsWith(a));
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
  const expected: string[] = [];
  editor.page.on('console', (message) => {
    const text = message.text();
    const at = text.indexOf(PREFIX);
    if (at >= 0) {
      const line = text.slice(at + PREFIX.length);
      console.log(line);
      if (line.startsWith(EXPECTED_ERROR)) {
        expected.push(squash(line.slice(EXPECTED_ERROR.length)));
      }
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
    // The tests' own watch sees only what goes through their vscode API object: this one sees
    // the page, where the workbench's own errors (a failed activation, a crashed host) show too.
    const rows = await openNotificationCenter(editor.page, path.join(editor.runDir, 'notification-center.png'));
    for (const notice of editor.notices.all()) {
      console.log(`  notification [${notice.severity}] at ${(notice.at / 1000).toFixed(1)} s: ${notice.message}`);
    }
    const allowed = (message: string): boolean => expected.some((e) => sameMessage(e, squash(message)));
    const errors = editor.notices.errorsSince(0, allowed);
    if (errors.length > 0) {
      console.log(`not ok suite ${suite.name}: ${describe(errors)}`);
      code = 1;
    } else {
      console.log(`ok suite ${suite.name}: no unexpected error notification (${editor.notices.all().length} notification(s), ${rows} in the center)`);
    }
  } finally {
    await editor.stop();
  }
  const log = outputLogFile(editor.runDir, EXTENSION_ID, 'ExportLens');
  const problems = outputLogProblems(log);
  if (problems.length > 0) {
    console.log(`not ok suite ${suite.name}: the ExportLens output channel (${log}):\n  ${problems.join('\n  ')}`);
    code = 1;
  } else {
    console.log(`ok suite ${suite.name}: each line of the ExportLens output channel once`);
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
  process.env.EXPORTLENS_TEST_OLD_TORCH_PYTHON = oldTorchPython();
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
