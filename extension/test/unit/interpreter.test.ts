import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, chmodSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  checkInterpreter,
  expandSetting,
  findOnPath,
  resolveInterpreter,
  type InterpreterSources,
  type RunResult,
} from '../../src/interpreter';

function sources(overrides: Partial<InterpreterSources>): InterpreterSources {
  return {
    setting: '',
    workspaceFolder: '/ws',
    pythonExtension: () => Promise.resolve(undefined),
    findOnPath: () => Promise.resolve(undefined),
    isExecutable: () => Promise.resolve(true),
    ...overrides,
  };
}

test('the setting wins over the Python extension and PATH', async () => {
  const resolved = await resolveInterpreter(
    sources({
      setting: '/opt/torch/bin/python',
      pythonExtension: () => Promise.resolve('/from/extension/python'),
      findOnPath: () => Promise.resolve('/usr/bin/python3'),
    }),
  );
  assert.deepEqual(resolved, { kind: 'resolved', path: '/opt/torch/bin/python', source: 'setting' });
});

test('a setting that is not executable is an error, not a silent fallback', async () => {
  const resolved = await resolveInterpreter(
    sources({ setting: '/nope/python', isExecutable: () => Promise.resolve(false), findOnPath: () => Promise.resolve('/usr/bin/python3') }),
  );
  assert.equal(resolved.kind, 'unresolved');
  assert.match('message' in resolved ? resolved.message : '', /exportlens\.interpreter is "\/nope\/python"/);
});

test('a bare name in the setting is looked up on PATH', async () => {
  const resolved = await resolveInterpreter(
    sources({ setting: 'python3.11', findOnPath: (n) => Promise.resolve(n === 'python3.11' ? '/usr/bin/python3.11' : undefined) }),
  );
  assert.deepEqual(resolved, { kind: 'resolved', path: '/usr/bin/python3.11', source: 'setting' });
});

test('without a setting: the Python extension, then python3, then python on PATH', async () => {
  const fromExtension = await resolveInterpreter(
    sources({ pythonExtension: () => Promise.resolve('/venv/bin/python'), findOnPath: () => Promise.resolve('/usr/bin/python3') }),
  );
  assert.deepEqual(fromExtension, { kind: 'resolved', path: '/venv/bin/python', source: 'python-extension' });
  const broken = await resolveInterpreter(
    sources({ pythonExtension: () => Promise.reject(new Error('api changed')), findOnPath: (n) => Promise.resolve(n === 'python' ? '/usr/bin/python' : undefined) }),
  );
  assert.deepEqual(broken, { kind: 'resolved', path: '/usr/bin/python', source: 'path' });
  const none = await resolveInterpreter(sources({}));
  assert.equal(none.kind, 'unresolved');
});

test('settings expand ~, ${workspaceFolder}, ${userHome} and workspace-relative paths', () => {
  assert.equal(expandSetting('~/py/bin/python', '/ws', '/home/u'), '/home/u/py/bin/python');
  assert.equal(expandSetting('${workspaceFolder}/.venv/bin/python', '/ws', '/home/u'), '/ws/.venv/bin/python');
  assert.equal(expandSetting('${userHome}/x/python', '/ws', '/home/u'), '/home/u/x/python');
  assert.equal(expandSetting('.venv/bin/python', '/ws', '/home/u'), '/ws/.venv/bin/python');
  assert.equal(expandSetting('python3', '/ws', '/home/u'), 'python3');
});

test('findOnPath finds the first executable', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'exportlens-unit-'));
  try {
    const a = path.join(dir, 'a');
    const b = path.join(dir, 'b');
    for (const d of [a, b]) {
      rmSync(d, { recursive: true, force: true });
    }
    await import('node:fs/promises').then((fs) => Promise.all([fs.mkdir(a), fs.mkdir(b)]));
    writeFileSync(path.join(a, 'python3'), 'not executable');
    writeFileSync(path.join(b, 'python3'), '#!/bin/sh\n');
    chmodSync(path.join(b, 'python3'), 0o755);
    assert.equal(await findOnPath('python3', `${a}${path.delimiter}${b}`), path.join(b, 'python3'));
    assert.equal(await findOnPath('python9', `${a}${path.delimiter}${b}`), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const answer = (stdout: string, extra: Partial<RunResult> = {}) => () => Promise.resolve({ code: 0, stdout, stderr: '', ...extra });

test('torch found: ok with its version', async () => {
  const check = await checkInterpreter('/py', answer('{"executable": "/py", "version": [3, 11, 7], "torch": "2.13.0"}\n'));
  assert.deepEqual(check, { kind: 'ok', python: '/py', executable: '/py', pythonVersion: '3.11.7', torch: '2.13.0' });
});

test('torch missing: the exact message with the fix', async () => {
  const check = await checkInterpreter('/usr/bin/python3', answer('{"executable": "/usr/bin/python3", "version": [3, 12, 1], "torch": null}'));
  assert.deepEqual(check, {
    kind: 'problem',
    python: '/usr/bin/python3',
    message: 'torch not found in /usr/bin/python3 — select an interpreter or pip install torch.',
  });
});

test('too old a Python, a program that is not Python, one that cannot start', async () => {
  const old = await checkInterpreter('/py38', answer('{"version": [3, 8, 10], "torch": "2.0.0"}'));
  assert.match(old.kind === 'problem' ? old.message : '', /Python 3\.8\.10; ExportLens needs 3\.10/);
  const notPython = await checkInterpreter('/bin/true', answer('', { stderr: 'boom' }));
  assert.match(notPython.kind === 'problem' ? notPython.message : '', /not a working Python \(boom\)/);
  const missing = await checkInterpreter('/nope', () => Promise.resolve({ code: null, stdout: '', stderr: '', error: 'no such file' }));
  assert.match(missing.kind === 'problem' ? missing.message : '', /cannot run \/nope: no such file/);
});

test('the real probe runs in python3 and never imports torch', async () => {
  const check = await checkInterpreter('python3');
  assert.ok(check.kind === 'ok' || /torch not found/.test(check.message), JSON.stringify(check));
});
