import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileByLevel, LineJoiner, serverOutputChannel } from '../../src/serverOutput';

function joined(chunks: string[]): string[] {
  const out: string[] = [];
  const lines = new LineJoiner((text) => out.push(text));
  chunks.forEach((c) => lines.push(c));
  lines.flush();
  return out;
}

test('a traceback written in pieces becomes whole lines', () => {
  assert.deepEqual(joined(['Traceback (most recent call last):\n', '  File "x.py", line 3\n', '    ', 'from .cli import main', '\n', 'ModuleNotFoundError', ': ', "No module named 'x'", '\n']), [
    'Traceback (most recent call last):',
    '  File "x.py", line 3',
    '    from .cli import main',
    "ModuleNotFoundError: No module named 'x'",
  ]);
});

test('what came in one chunk stays one entry; a last line without newline is flushed', () => {
  assert.deepEqual(joined(['a: one\nb: two\r\nc: thr', 'ee']), ['a: one\nb: two', 'c: three']);
  assert.deepEqual(joined(['\n']), ['']);
  assert.deepEqual(joined([]), []);
});

test("the client's own lines flush a pending stderr piece first", () => {
  const out: string[] = [];
  const channel = serverOutputChannel({
    name: 'ExportLens',
    appendLine: (v: string) => out.push(v),
    debug: (v: string) => out.push(v),
    info: (v: string) => out.push(v),
    warn: (v: string) => out.push(v),
    error: (v: string) => out.push(v),
    replace: () => undefined,
    clear: () => undefined,
    show: () => undefined,
    hide: () => undefined,
  });
  channel.append('half');
  channel.appendLine('[Error] Server process exited with code 1.');
  channel.append(' line\n');
  assert.deepEqual(out, ['half', '[Error] Server process exited with code 1.', ' line']);
});

test("each server line goes under its own level, a traceback with its record", () => {
  const out: string[] = [];
  const at = (level: string) => (v: string) => out.push(`${level} ${v}`);
  const sink = {
    name: 'ExportLens',
    appendLine: at('plain'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    replace: () => undefined,
    clear: () => undefined,
    show: () => undefined,
    hide: () => undefined,
  };
  fileByLevel(
    [
      'INFO exportlens.lsp: ExportLens server ready',
      'WARNING exportlens.engine: worker restarted',
      'ERROR exportlens.lsp: check failed',
      'Traceback (most recent call last):',
      '  File "x.py", line 3',
      'DEBUG exportlens.worker: job 3',
      'CRITICAL exportlens.lsp: gone',
    ].join('\n'),
    sink,
  );
  fileByLevel('Traceback (most recent call last):\nINFOx', sink);
  assert.deepEqual(out, [
    'info exportlens.lsp: ExportLens server ready',
    'warn exportlens.engine: worker restarted',
    'error exportlens.lsp: check failed\nTraceback (most recent call last):\n  File "x.py", line 3',
    'debug exportlens.worker: job 3',
    'error exportlens.lsp: gone',
    'plain Traceback (most recent call last):\nINFOx',
  ]);
});
