import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, chmodSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  candidates,
  choose,
  expandSetting,
  findOnPath,
  nothingUsable,
  type Candidate,
  type InterpreterSources,
} from '../../src/interpreter';
import type { Check } from '../../src/probe';

/** No interpreter anywhere unless an override says so; nothing on disk. */
function sources(overrides: Partial<InterpreterSources>): InterpreterSources {
  return {
    setting: '',
    workspaceFolder: '/ws',
    trusted: true,
    pythonEnvironments: () => Promise.resolve(undefined),
    pythonExtension: () => Promise.resolve(undefined),
    findOnPath: () => Promise.resolve(undefined),
    isExecutable: () => Promise.resolve(false),
    platform: 'linux',
    ...overrides,
  };
}

const executable = (...files: string[]) => (file: string) => Promise.resolve(files.includes(file));

test('the setting wins over every other source, and is the only candidate', async () => {
  const found = await candidates(
    sources({
      setting: '/opt/torch/bin/python',
      pythonEnvironments: () => Promise.resolve('/envs/python'),
      pythonExtension: () => Promise.resolve('/from/extension/python'),
      findOnPath: () => Promise.resolve('/usr/bin/python3'),
      isExecutable: () => Promise.resolve(true),
    }),
  );
  assert.deepEqual(found, [{ path: '/opt/torch/bin/python', source: 'setting' }]);
});

test('a setting that is not executable is an error, not a silent fallback', async () => {
  const found = await candidates(sources({ setting: '/nope/python', findOnPath: () => Promise.resolve('/usr/bin/python3') }));
  assert.ok(!Array.isArray(found));
  assert.match(found.message, /exportlens\.interpreter is "\/nope\/python"/);
});

test('a bare name in the setting is looked up on PATH', async () => {
  const found = await candidates(
    sources({
      setting: 'python3.11',
      findOnPath: (n) => Promise.resolve(n === 'python3.11' ? '/usr/bin/python3.11' : undefined),
      isExecutable: executable('/usr/bin/python3.11'),
    }),
  );
  assert.deepEqual(found, [{ path: '/usr/bin/python3.11', source: 'setting' }]);
});

test('without a setting: Python Environments, the Python extension, .venv, venv, python3, python', async () => {
  const found = await candidates(
    sources({
      pythonEnvironments: () => Promise.resolve('/envs/uv/bin/python'),
      pythonExtension: () => Promise.resolve('/ext/bin/python'),
      findOnPath: (n) => Promise.resolve(`/usr/bin/${n}`),
      isExecutable: executable(
        '/envs/uv/bin/python',
        '/ext/bin/python',
        '/ws/.venv/bin/python',
        '/ws/venv/bin/python',
        '/usr/bin/python3',
        '/usr/bin/python',
      ),
    }),
  );
  assert.deepEqual(found, [
    { path: '/envs/uv/bin/python', source: 'python-environments' },
    { path: '/ext/bin/python', source: 'python-extension' },
    { path: '/ws/.venv/bin/python', source: 'workspace' },
    { path: '/ws/venv/bin/python', source: 'workspace' },
    { path: '/usr/bin/python3', source: 'path' },
    { path: '/usr/bin/python', source: 'path' },
  ]);
});

test('an extension whose API throws, a missing venv, a duplicate: skipped', async () => {
  const found = await candidates(
    sources({
      pythonEnvironments: () => Promise.reject(new Error('api changed')),
      pythonExtension: () => Promise.resolve('/ws/.venv/bin/python'),
      findOnPath: (n) => Promise.resolve(n === 'python' ? '/usr/bin/python' : undefined),
      isExecutable: executable('/ws/.venv/bin/python', '/usr/bin/python'),
    }),
  );
  assert.deepEqual(found, [
    { path: '/ws/.venv/bin/python', source: 'python-extension' },
    { path: '/usr/bin/python', source: 'path' },
  ]);
  const none = await candidates(sources({}));
  assert.ok(!Array.isArray(none) && /No Python interpreter found/.test(none.message));
});

test("an untrusted workspace's own .venv is never a candidate (it would run the folder's files)", async () => {
  const found = await candidates(
    sources({ trusted: false, findOnPath: () => Promise.resolve('/usr/bin/python3'), isExecutable: () => Promise.resolve(true) }),
  );
  assert.deepEqual(found, [{ path: '/usr/bin/python3', source: 'path' }]);
});

test("Windows venvs keep their interpreter in Scripts\\python.exe; PATH names get .exe", async () => {
  const found = await candidates(sources({ platform: 'win32', isExecutable: () => Promise.resolve(true) }));
  assert.ok(Array.isArray(found));
  assert.equal(found[0]?.path, path.join('/ws', '.venv', 'Scripts', 'python.exe'));
  const seen: string[] = [];
  await findOnPath('python3', '/a', (f) => (seen.push(f), Promise.resolve(false)), 'win32');
  assert.deepEqual(seen, [path.join('/a', 'python3.exe')]);
});

const ok = (python: string, torch = '2.13.0'): Check => ({ kind: 'ok', python, executable: python, pythonVersion: '3.11.7', torch });
const problem = (python: string, short: string): Check => ({
  kind: 'problem',
  python,
  message: `${python}: ${short}`,
  problem: 'no-torch',
  short,
});

test('the first candidate that can export is chosen; the ones before it are reported as tried', async () => {
  const list: Candidate[] = [
    { path: '/ext/python', source: 'python-extension' },
    { path: '/ws/.venv/bin/python', source: 'workspace' },
    { path: '/usr/bin/python3', source: 'path' },
  ];
  const probed: string[] = [];
  const choice = await choose(list, (p) => {
    probed.push(p);
    return Promise.resolve(p === '/ext/python' ? problem(p, 'no torch') : ok(p));
  });
  assert.equal(choice.chosen.path, '/ws/.venv/bin/python');
  assert.deepEqual(probed, ['/ext/python', '/ws/.venv/bin/python'], 'no probe after the one chosen');
  assert.deepEqual(choice.tried.map((t) => t.check.kind), ['problem', 'ok']);
});

test('none can export: the first, with its problem; the notification lists each tried', async () => {
  const list: Candidate[] = [
    { path: '/ext/python', source: 'python-extension' },
    { path: '/usr/bin/python3', source: 'path' },
  ];
  const choice = await choose(list, (p) => Promise.resolve(problem(p, p === '/ext/python' ? 'torch 2.9.0, too old' : 'no torch')));
  assert.equal(choice.chosen.path, '/ext/python');
  assert.equal(choice.check.kind, 'problem');
  assert.equal(
    nothingUsable(choice.tried),
    'ExportLens found no Python with torch to export with: /ext/python (torch 2.9.0, too old), /usr/bin/python3 (no torch). Select an interpreter that has torch, or install torch into one.',
  );
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

