import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { MIN_TORCH, checkInterpreter, majorMinor, type RunResult } from '../../src/probe';

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
    problem: 'no-torch',
    short: 'no torch',
  });
});

test('torch older than 2.10: never ok; the message says so with the fix', async () => {
  for (const version of ['2.9.0', '2.9.1+cpu', '1.13.1']) {
    const check = await checkInterpreter('/py', answer(`{"version": [3, 11, 7], "torch": "${version}"}`));
    if (check.kind !== 'problem') {
      assert.fail(`torch ${version} was accepted`);
    }
    assert.equal(check.problem, 'old-torch');
    assert.equal(
      check.message,
      `torch ${version} in /py is too old: ExportLens needs torch ≥ 2.10 — select another interpreter, or upgrade it there (pip install -U 'torch>=2.10').`,
    );
  }
  for (const version of ['2.10.0', '2.13.0+cpu', '2.16.0.dev20261201', '3.0.0']) {
    const check = await checkInterpreter('/py', answer(`{"version": [3, 11, 7], "torch": "${version}"}`));
    assert.equal(check.kind, 'ok', version);
  }
  assert.deepEqual(MIN_TORCH, [2, 10]);
  assert.deepEqual(majorMinor('2.10.0a0+git1234'), [2, 10]);
  assert.equal(majorMinor('nightly'), undefined);
});

test('a machine that runs no exports (native Windows) needs no torch', async () => {
  const check = await checkInterpreter('/py', answer('{"executable": "/py", "version": [3, 12, 0], "torch": null}'), 1000, false);
  assert.deepEqual(check, { kind: 'ok', python: '/py', executable: '/py', pythonVersion: '3.12.0', torch: 'none' });
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
