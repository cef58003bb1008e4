import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { graphDocumentText } from '../../src/graphText';

test('graph text: header + code; a failure says why', () => {
  const ok = graphDocumentText({ module: 'M', file: 'm.py', graph: { module: 'M', code: 'def forward(x):\n    return aten.relu(x)', stale: true } });
  assert.match(ok, /^# ExportLens · ATen graph of M \(m\.py\)/);
  assert.match(ok, /# stale:/);
  assert.match(ok, /aten\.relu/);
  const failed = graphDocumentText({
    module: 'G',
    file: 'g.py',
    exported: {
      module: 'G',
      status: 'failed',
      graph: '',
      summary: {},
      findings: [{ code: 'data-dependent-branch', severity: 'error', message: 'line one\nline two', range: { start: { line: 7, character: 8 }, end: { line: 7, character: 20 } } }],
    },
  });
  assert.match(failed, /No graph: the export ended "failed"/);
  const compiled = graphDocumentText({ module: 'C', file: 'c.py', exported: { module: 'C', status: 'compiled', graph: '', summary: {}, findings: [] } });
  assert.match(compiled, /No graph: it is only compiled \(a torch.compile check\), not exported\./);
  assert.match(failed, /error\[data-dependent-branch\] line 8:\n# {5}line one\n# {5}line two/);
  const long = graphDocumentText({
    module: 'G',
    file: 'g.py',
    exported: { module: 'G', status: 'failed', graph: '', summary: {}, findings: [{ message: 'word '.repeat(60) }] },
  });
  for (const line of long.split('\n')) {
    assert.ok(line.length <= 96, `wrapped: ${line}`);
  }
  for (const line of failed.trimEnd().split('\n')) {
    assert.ok(line.startsWith('#'), `every line is a comment: ${line}`);
  }
});
