import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { classAt } from '../../src/pySource';

const SOURCE = [
  'import torch', // 0
  '', // 1
  'class A(torch.nn.Module):', // 2
  '    def forward(self, x):', // 3
  '', // 4
  '        return x', // 5
  '', // 6
  'def helper():', // 7
  '    pass', // 8
  '', // 9
  'class B(torch.nn.Module):', // 10
  '    pass', // 11
].join('\n');

test('classAt: the class around the line, none between classes', () => {
  assert.equal(classAt(SOURCE, 3), 'A');
  assert.equal(classAt(SOURCE, 5), 'A');
  assert.equal(classAt(SOURCE, 11), 'B');
  assert.equal(classAt(SOURCE, 8), undefined);
  assert.equal(classAt(SOURCE, 0), undefined);
});

test('classAt: the only class of a file, wherever the cursor is', () => {
  assert.equal(classAt('import torch\nclass M(torch.nn.Module):\n    pass\n\nM()\n', 4), 'M');
});
