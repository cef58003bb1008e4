import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULTS, explicitSettings, readClientSettings, toServerSettings, type ClientSettings } from '../../src/settings';

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
      quantize: 'xnnpack',
      enable: false,
      exclude: ['generated/**', 3],
      ignore: ['input-mutated'],
      severity: { 'side-effect-baked': 'information', 'input-mutated': 'loud' },
      compile: 'all',
      daemon: false,
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
    quantize: 'xnnpack',
    enable: false,
    exclude: ['generated/**'],
    ignore: ['input-mutated'],
    severity: { 'side-effect-baked': 'information' },
    compile: 'all',
    daemon: false,
  } satisfies ClientSettings);
});

test('invalid values fall back to the defaults, never reach the server', () => {
  const settings = readClientSettings(
    reader({ mode: 'loose', runOn: 'always', debounceMs: -1, timeoutSeconds: 0, memoryLimitMb: 'lots', allFailures: 'yes', metaAboveMb: -5, device: 'gpu', interpreter: 3, targets: 'onnx', quantize: 'int4' }),
  );
  assert.deepEqual(settings, DEFAULTS);
});

test('targets: unknown names are dropped, an empty list stays empty (export only)', () => {
  assert.deepEqual(readClientSettings(reader({ targets: ['tflite', 'onnx'] })).targets, ['onnx']);
  assert.deepEqual(readClientSettings(reader({ targets: [] })).targets, []);
});

test('memoryLimitMb 0 (or an old null) means no cap: the server gets null', () => {
  assert.equal(readClientSettings(reader({ memoryLimitMb: 0 })).memoryLimitMb, 0);
  assert.equal(readClientSettings(reader({ memoryLimitMb: null })).memoryLimitMb, 0);
  assert.equal(toServerSettings(DEFAULTS, { python: null, trusted: true }).memoryLimitMb, null);
  assert.equal(toServerSettings({ ...DEFAULTS, memoryLimitMb: 512 }, { python: null, trusted: true }).memoryLimitMb, 512);
});

test('explicit: the server names of the settings the user set (they beat pyproject.toml)', () => {
  assert.deepEqual(explicitSettings((name) => name === 'mode' || name === 'interpreter'), ['python', 'mode']);
  assert.deepEqual(explicitSettings(() => false), []);
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
    quantize: 'none',
    trusted: false,
    enable: true,
    exclude: [],
    ignore: [],
    severity: {},
    compile: 'auto',
    daemon: true,
  });
  assert.equal(toServerSettings({ ...DEFAULTS, mode: 'both' }, { python: null, trusted: true }).mode, 'both');
});

test('every server setting name is one the server knows (config/settings.py SPECS)', () => {
  const known = ['mode', 'runOn', 'debounceMs', 'timeoutSeconds', 'memoryLimitMb', 'python', 'allFailures', 'metaAboveMb', 'device', 'targets', 'quantize', 'trusted', 'exportSites', 'enable', 'exclude', 'ignore', 'severity', 'compile', 'daemon'];
  for (const name of Object.keys(toServerSettings(DEFAULTS, { python: null, trusted: true }))) {
    assert.ok(known.includes(name), name);
  }
});
