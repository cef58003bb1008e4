import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { exportsUnsupported } from '../../src/platform';

test('exports run on Linux and macOS; native Windows gets one message that says where they do', () => {
  assert.equal(exportsUnsupported('linux'), undefined);
  assert.equal(exportsUnsupported('darwin'), undefined);
  const message = exportsUnsupported('win32') ?? '';
  assert.match(message, /^ExportLens exports need Linux, WSL or macOS: on native Windows only its static checks run/);
  assert.match(message, /WSL/);
});
