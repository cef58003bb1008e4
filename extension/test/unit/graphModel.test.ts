import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentSecurityPolicy, graphHtml } from '../../src/graph/html';
import { COLLAPSE_ABOVE, MISSING, PORTABLE, buildModel, defaultExpanded, nodesAtLine, placementCounts, representative, runsOn, sameShape, search, visible } from '../../src/graph/model';
import { legendHtml } from '../../src/graph/webview/details';
import { layout } from '../../src/graph/webview/layout';
import { svgContent } from '../../src/graph/webview/render';
import type { GraphView, ViewNode } from '../../src/protocol';

function node(id: string, inputs: string[], extra: Partial<ViewNode> = {}): ViewNode {
  return { id, name: id, kind: 'op', op: `aten.${id}.default`, inputs, shape: '[s0, 16]', dtype: 'float32', module: [], branch: null, ...extra };
}

/** x -> fc.linear -> relu -> head.linear -> out, plus a cond with a true branch. */
function small(): GraphView {
  return {
    nodes: [
      node('x', [], { kind: 'user_input', op: 'placeholder' }),
      node('linear', ['x'], { module: ['fc'], path: '/m.py', line: 12, stack: [{ path: '/m.py', line: 20, name: 'forward', code: 'y = self.fc(x)' }] }),
      node('relu', ['linear'], { path: '/m.py', line: 13 }),
      node('linear_1', ['relu'], { module: ['head'], path: '/m.py', line: 14 }),
      node('cond', ['linear_1', 'cond/true_graph_0/output'], { op: 'cond' }),
      node('cond/true_graph_0/sin', [], { branch: 'cond/true_graph_0' }),
      node('cond/true_graph_0/output', ['cond/true_graph_0/sin'], { kind: 'branch_output', op: 'output', branch: 'cond/true_graph_0' }),
      node('output:0', ['cond'], { kind: 'user_output', op: 'output' }),
    ],
    branches: [{ id: 'cond/true_graph_0', op: 'cond', name: 'true_graph_0' }],
    modules: { fc: 'Linear', head: 'Linear' },
    total: 8,
    truncated: false,
  };
}

test('graph model: groups from modules and branches; small graphs open', () => {
  const model = buildModel(small());
  assert.deepEqual([...model.groups.keys()].sort(), ['cond/true_graph_0', 'fc', 'head']);
  assert.equal(model.groups.get('fc')?.label, 'fc (Linear)');
  assert.equal(model.groups.get('cond/true_graph_0')?.size, 2);
  const open = defaultExpanded(model);
  const graph = visible(model, open);
  assert.equal(graph.nodes.length, 8);
  assert.deepEqual(graph.nodes.find((n) => n.id === 'linear')?.label, 'linear');
  assert.ok(graph.edges.some(([a, b]) => a === 'x' && b === 'linear'));
  assert.deepEqual(graph.boxes.find((b) => b.id === 'fc')?.members, ['linear']);
});

test('graph model: a collapsed group is one node, edges go to it, none to itself', () => {
  const model = buildModel(small());
  const graph = visible(model, new Set(['fc', 'head']));
  const ids = graph.nodes.map((n) => n.id);
  assert.ok(ids.includes('cond/true_graph_0') && !ids.includes('cond/true_graph_0/sin'));
  assert.equal(graph.nodes.find((n) => n.id === 'cond/true_graph_0')?.collapsed, 2);
  assert.ok(graph.edges.some(([a, b]) => a === 'cond/true_graph_0' && b === 'cond'));
  assert.ok(!graph.edges.some(([a, b]) => a === b));
  assert.equal(representative(model, new Set(), 'linear'), 'fc');
});

test('graph model: a weight joins the group of the op that reads it', () => {
  const view = small();
  view.nodes.unshift(node('p_fc_weight', [], { kind: 'parameter', op: 'placeholder', target: 'fc.weight' }));
  const linear = view.nodes.find((n) => n.id === 'linear');
  linear?.inputs.push('p_fc_weight');
  const model = buildModel(view);
  assert.deepEqual(model.chain.get('p_fc_weight'), ['fc']);
  assert.equal(model.groups.get('fc')?.size, 2);
  assert.equal(representative(model, new Set(), 'p_fc_weight'), 'fc');
});

test('graph model: big graphs start collapsed', () => {
  const nodes = Array.from({ length: COLLAPSE_ABOVE + 10 }, (_, i) => node(`n${i}`, i > 0 ? [`n${i - 1}`] : [], { module: [`blocks.${i % 4}`] }));
  const model = buildModel({ nodes, branches: [], modules: {}, total: nodes.length, truncated: false });
  assert.equal(defaultExpanded(model).size, 0);
  assert.equal(visible(model, new Set()).nodes.length, 4);
});

test('graph model: nodes of a line (site or stack), search by op or line, same shape', () => {
  const model = buildModel(small());
  assert.deepEqual(nodesAtLine(model, '/m.py', 13), ['relu']);
  assert.deepEqual(nodesAtLine(model, '/m.py', 20), ['linear']);
  assert.deepEqual(search(model, 'linear'), ['linear', 'linear_1']);
  assert.deepEqual(search(model, ':14'), ['linear_1']);
  const other = small();
  assert.ok(sameShape(small(), other));
  other.nodes[2] = node('relu', ['x']);
  assert.ok(!sameShape(small(), other));
});

test('graph html: strict CSP, one nonce script, nothing remote', () => {
  const input = { cspSource: 'vscode-webview://x', scriptUri: 'vscode-webview://x/graph.js', nonce: 'abc123' };
  const csp = contentSecurityPolicy(input);
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'nonce-abc123'/);
  assert.doesNotMatch(csp, /unsafe|https?:/);
  const html = graphHtml(input);
  assert.equal(html.match(/<script/g)?.length, 1);
  assert.match(html, /<script nonce="abc123" src="vscode-webview:\/\/x\/graph.js">/);
  assert.doesNotMatch(html, /https?:\/\//);
});

test('graph placement: each node outlined where it runs, a collapsed group by its worst node, a legend', () => {
  const model = buildModel(small());
  const placement = { linear: 'XnnpackBackend', relu: PORTABLE, linear_1: MISSING };
  const open = visible(model, new Set(['fc', 'head', 'cond/true_graph_0']), placement);
  const runs = new Map(open.nodes.map((n) => [n.id, n.runsOn]));
  assert.equal(runs.get('linear'), 'XnnpackBackend');
  assert.equal(runs.get('relu'), PORTABLE);
  assert.equal(runs.get('x'), undefined);
  const svg = svgContent(open, layout(open), new Map());
  assert.match(svg, /class="node kind-op runs-delegated" data-id="linear" data-runs="XnnpackBackend"/);
  assert.match(svg, /class="node kind-op runs-portable" data-id="relu"/);
  assert.match(svg, /class="node kind-op runs-missing" data-id="linear_1"/);
  assert.match(svg, /class="node kind-user_input" data-id="x"/);
  // `head` collapsed: its box shows the kernel the runtime lacks; `fc` its delegate
  const shut = visible(model, new Set(), placement);
  assert.equal(shut.nodes.find((n) => n.id === 'head')?.runsOn, MISSING);
  assert.equal(runsOn(model, placement, 'fc'), 'XnnpackBackend');
  assert.deepEqual(placementCounts(placement), [['XnnpackBackend', 1], [PORTABLE, 1], [MISSING, 1]]);
  assert.match(legendHtml(placementCounts(placement)), /^ExecuTorch:<span class="sw runs-delegated"><\/span>XnnpackBackend 1<span class="sw runs-portable">/);
  assert.equal(legendHtml([]), '');
  assert.deepEqual(visible(model, new Set()).nodes.map((n) => n.runsOn), visible(model, new Set()).nodes.map(() => undefined));
});
