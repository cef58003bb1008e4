/**
 * The graph panel's model, pure (no DOM, no vscode): groups from `nn_module_stack` and
 * higher-order-op branches, which of them are collapsed, the graph that is then visible, and
 * the lookups the two-way link to the source needs (nodes by line, search). Unit-tested.
 */
import type { GraphView, ViewNode } from '../protocol';

/** Above this many nodes, groups start collapsed (each a single box until expanded). */
export const COLLAPSE_ABOVE = 150;
/** A group this small is never collapsed: a box saying "2 ops" hides more than it shows. */
const ALWAYS_OPEN = 3;

export interface Group {
  id: string;
  label: string;
  kind: 'module' | 'branch';
  parent: string | null;
  /** Every node inside, at any depth. */
  size: number;
  /** Hue of its colour (0–359), from its outermost module: siblings differ. */
  hue: number;
}

export interface Model {
  view: GraphView;
  nodes: Map<string, ViewNode>;
  groups: Map<string, Group>;
  /** A node's groups, outermost first. */
  chain: Map<string, string[]>;
}

export interface VisibleNode {
  id: string;
  label: string;
  detail: string;
  kind: string;
  /** Innermost expanded group holding it. */
  group: string | null;
  /** Set on a collapsed group's box: how many nodes it stands for. */
  collapsed?: number;
  hue: number | null;
  /** Where it runs on the device (a backend, `portable`, `missing kernel`); a collapsed group: its worst node's. */
  runsOn?: string;
}

export interface VisibleGraph {
  nodes: VisibleNode[];
  edges: [string, string][];
  /** Expanded groups, each with the visible nodes inside it (at any depth). */
  boxes: { id: string; label: string; hue: number; members: string[] }[];
}

/** FNV-1a: `blocks.0` and `blocks.1` get far-apart hues. */
function hueOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  }
  return h % 360;
}

export function buildModel(view: GraphView): Model {
  const nodes = new Map(view.nodes.map((n) => [n.id, n]));
  const groups = new Map<string, Group>();
  const chain = new Map<string, string[]>();
  const addGroup = (id: string, label: string, kind: Group['kind'], parent: string | null, hue: number): void => {
    if (!groups.has(id)) {
      groups.set(id, { id, label, kind, parent, size: 0, hue });
    }
  };
  const branchOf = new Map(view.branches.map((b) => [b.id, b]));
  // A weight belongs with the op that reads it: its module's group holds (and collapses) it.
  const reader = new Map<string, ViewNode>();
  for (const node of view.nodes) {
    for (const input of node.inputs) {
      if (!reader.has(input)) {
        reader.set(input, node);
      }
    }
  }
  const WEIGHTS = new Set(['parameter', 'buffer', 'constant']);
  const chainOf = (node: ViewNode): string[] => {
    const known = chain.get(node.id);
    if (known !== undefined) {
      return known;
    }
    let ids: string[] = [];
    const user = WEIGHTS.has(node.kind) && node.module.length === 0 ? reader.get(node.id) : undefined;
    if (user !== undefined && user.branch === null) {
      ids = [...node.module, ...user.module];
      chain.set(node.id, ids);
      return ids;
    }
    const branch = node.branch !== null ? branchOf.get(node.branch) : undefined;
    if (branch !== undefined) {
      const hop = nodes.get(branch.op);
      const outer = hop !== undefined ? chainOf(hop) : [];
      const parent = outer.at(-1) ?? null;
      addGroup(branch.id, `${hop?.op ?? 'branch'} · ${branch.name}`, 'branch', parent, parent === null ? 200 : (groups.get(parent)?.hue ?? 200));
      ids = [...outer, branch.id];
    } else {
      let parent: string | null = null;
      for (const path of node.module) {
        const cls = view.modules[path];
        const top = ids[0] ?? path;
        addGroup(path, cls !== undefined && cls !== '' ? `${path} (${cls})` : path, 'module', parent, hueOf(top.split('.').slice(0, 2).join('.')));
        ids.push(path);
        parent = path;
      }
    }
    chain.set(node.id, ids);
    return ids;
  };
  for (const node of [...view.nodes].reverse()) {
    chainOf(node); // readers first: a weight's groups exist when it joins them
  }
  for (const node of view.nodes) {
    for (const id of chainOf(node)) {
      const group = groups.get(id);
      if (group !== undefined) {
        group.size++;
      }
    }
  }
  return { view, nodes, groups, chain };
}

/** Groups open at first: all of them for a small graph, else only the small ones. */
export function defaultExpanded(model: Model): Set<string> {
  const big = model.view.nodes.length > COLLAPSE_ABOVE;
  return new Set([...model.groups.values()].filter((g) => !big || g.size <= ALWAYS_OPEN).map((g) => g.id));
}

/** The visible node standing for `id`: itself, or its outermost collapsed group. */
export function representative(model: Model, expanded: Set<string>, id: string): string {
  for (const group of model.chain.get(id) ?? []) {
    if (!expanded.has(group)) {
      return group;
    }
  }
  return id;
}

export function shortOp(node: ViewNode): string {
  if (node.op === 'placeholder') {
    return node.target ?? node.name;
  }
  if (node.op === 'output') {
    return node.kind === 'branch_output' ? 'output' : `${node.kind.replace('_', ' ')}${node.target !== undefined ? ` ${node.target}` : ''}`;
  }
  return node.op.replace(/^aten\./, '').replace(/\.default$/, '');
}

export function detailOf(node: ViewNode): string {
  return [node.shape, node.dtype].filter((s) => s !== '').join(' ');
}

/** Node id -> where it runs on the device: the executorch target's placement (lsp/graph_command.py). */
export type Placement = Record<string, string>;
export const PORTABLE = 'portable';
export const MISSING = 'missing kernel';

function rank(place: string): number {
  return place === MISSING ? 2 : place === PORTABLE ? 1 : 0;
}

/** Where `id` runs: its own placement, or for a group the worst of its nodes' (a missing kernel over a portable op over a delegate). */
export function runsOn(model: Model, placement: Placement, id: string): string | undefined {
  if (!model.groups.has(id)) {
    return placement[id];
  }
  let worst: string | undefined;
  for (const node of model.view.nodes) {
    const place = placement[node.id];
    if (place !== undefined && (model.chain.get(node.id) ?? []).includes(id) && (worst === undefined || rank(place) > rank(worst))) {
      worst = place;
    }
  }
  return worst;
}

/** The legend's counts: how many nodes run on each backend, on portable kernels, with no kernel. */
export function placementCounts(placement: Placement): [string, number][] {
  const counts = new Map<string, number>();
  for (const place of Object.values(placement)) {
    counts.set(place, (counts.get(place) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => rank(a[0]) - rank(b[0]) || a[0].localeCompare(b[0]));
}

export function visible(model: Model, expanded: Set<string>, placement: Placement = {}): VisibleGraph {
  const nodes: VisibleNode[] = [];
  const seen = new Set<string>();
  const boxes = new Map<string, VisibleGraph['boxes'][number]>();
  for (const node of model.view.nodes) {
    const rep = representative(model, expanded, node.id);
    if (seen.has(rep)) {
      continue;
    }
    seen.add(rep);
    const groupIds = model.chain.get(node.id) ?? [];
    const open = rep === node.id ? groupIds : groupIds.slice(0, groupIds.indexOf(rep));
    for (const id of open) {
      const group = model.groups.get(id);
      if (group !== undefined) {
        let box = boxes.get(id);
        if (box === undefined) {
          box = { id, label: group.label, hue: group.hue, members: [] };
          boxes.set(id, box);
        }
        box.members.push(rep);
      }
    }
    const inner = open.at(-1) ?? null;
    const hue = inner !== null ? (model.groups.get(inner)?.hue ?? null) : null;
    if (rep === node.id) {
      nodes.push({ id: rep, label: shortOp(node), detail: detailOf(node), kind: node.kind, group: inner, hue, runsOn: placement[rep] });
    } else {
      const group = model.groups.get(rep);
      nodes.push({
        id: rep,
        label: group?.label ?? rep,
        detail: `${group?.size ?? 0} nodes · click to expand`,
        kind: 'group',
        group: inner,
        collapsed: group?.size ?? 0,
        hue: group?.hue ?? null,
        runsOn: runsOn(model, placement, rep),
      });
    }
  }
  const edges = new Map<string, [string, string]>();
  for (const node of model.view.nodes) {
    const to = representative(model, expanded, node.id);
    for (const input of node.inputs) {
      const from = representative(model, expanded, input);
      if (from !== to && model.nodes.has(input)) {
        edges.set(`${from}\u0000${to}`, [from, to]);
      }
    }
  }
  return { nodes, edges: [...edges.values()], boxes: [...boxes.values()] };
}

/** Nodes made by `line` of `path` (1-based): the node's site or any frame of its stack. */
export function nodesAtLine(model: Model, path: string, line: number): string[] {
  return model.view.nodes
    .filter((n) => (n.path === path && n.line === line) || (n.stack ?? []).some((f) => f.path === path && f.line === line))
    .map((n) => n.id);
}

/** `linear`, `aten.add`: nodes whose op contains it; `:12` or `12`: nodes of line 12. */
export function search(model: Model, query: string): string[] {
  const text = query.trim();
  if (text === '') {
    return [];
  }
  const line = /^:?(\d+)$/.exec(text);
  if (line?.[1] !== undefined) {
    const number = Number(line[1]);
    return model.view.nodes.filter((n) => n.line === number).map((n) => n.id);
  }
  const lower = text.toLowerCase();
  return model.view.nodes.filter((n) => n.op.toLowerCase().includes(lower) || n.name.toLowerCase().includes(lower)).map((n) => n.id);
}

/** Same nodes and edges: an update keeps zoom and selection. */
export function sameShape(a: GraphView, b: GraphView): boolean {
  return a.nodes.length === b.nodes.length && a.nodes.every((n, i) => {
    const m = b.nodes[i];
    return m !== undefined && m.id === n.id && m.op === n.op && m.inputs.join() === n.inputs.join();
  });
}
