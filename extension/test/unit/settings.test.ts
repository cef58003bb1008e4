import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULTS, readClientSettings, toServerSettings, type ClientSettings } from '../../src/settings';

const reader = (values: Record<string, unknown>) => (name: string) => values[name];

test('defaults when nothing is set', () => {
  assert.deepEqual(readClientSettings(reader({})), DEFAULTS);
});

test('valid values are read as they are', () => {
  const settings = readClientSettings(
    reader({
      interpreter: ' /opt/py/bin/python ',
      mode: 'strict',
      runOn: 'save',
      debounceMs: 120,
      timeoutSeconds: 7.5,
      memoryLimitMb: 2048,
      allFailures: false,
      metaAboveMb: 0,
      device: 'cpu',
      targets: ['onnx', 'core-aten', 'onnx'],
    }),
  );
  assert.deepEqual(settings, {
    interpreter: '/opt/py/bin/python',
    mode: 'strict',
    runOn: 'save',
    debounceMs: 120,
    timeoutSeconds: 7.5,
    memoryLimitMb: 2048,
    allFailures: false,
    metaAboveMb: 0,
    device: 'cpu',
    targets: ['onnx', 'core-aten'],
  } satisfies ClientSettings);
});

test('invalid values fall back to the defaults, never reach the server', () => {
  const settings = readClientSettings(
    reader({ mode: 'loose', runOn: 'always', debounceMs: -1, timeoutSeconds: 0, memoryLimitMb: 'lots', allFailures: 'yes', metaAboveMb: -5, device: 'gpu', interpreter: 3, targets: 'onnx' }),
  );
  assert.deepEqual(settings, DEFAULTS);
});

test('targets: unknown names are dropped, an empty list stays empty (export only)', () => {
  assert.deepEqual(readClientSettings(reader({ targets: ['tflite', 'onnx'] })).targets, ['onnx']);
  assert.deepEqual(readClientSettings(reader({ targets: [] })).targets, []);
});

test('memoryLimitMb 0 or null means no cap', () => {
  assert.equal(readClientSettings(reader({ memoryLimitMb: 0 })).memoryLimitMb, null);
  assert.equal(readClientSettings(reader({ memoryLimitMb: null })).memoryLimitMb, null);
});

test('the server gets its own names: mode auto → null, the resolved python, trust', () => {
  const server = toServerSettings(DEFAULTS, { python: '/venv/bin/python', trusted: false });
  assert.deepEqual(server, {
    mode: null,
    runOn: 'type',
    debounceMs: 300,
    timeoutSeconds: 30,
    memoryLimitMb: null,
    python: '/venv/bin/python',
    allFailures: true,
    metaAboveMb: 1024,
    device: 'fake',
    targets: ['export'],
    trusted: false,
  });
  assert.equal(toServerSettings({ ...DEFAULTS, mode: 'both' }, { python: null, trusted: true }).mode, 'both');
});

test('every server setting name is one the server knows (config/settings.py SPECS)', () => {
  const known = ['mode', 'runOn', 'debounceMs', 'timeoutSeconds', 'memoryLimitMb', 'python', 'allFailures', 'metaAboveMb', 'device', 'targets', 'trusted', 'exportSites'];
  for (const name of Object.keys(toServerSettings(DEFAULTS, { python: null, trusted: true }))) {
    assert.ok(known.includes(name), name);
  }
});
