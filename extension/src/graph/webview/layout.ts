/**
 * Layered layout of the visible graph with dagre (bundled from npm, @dagrejs/dagre, pinned):
 * top to bottom in data order. Expanded groups are drawn as the box around their members.
 */
import * as dagre from '@dagrejs/dagre';
import type { VisibleGraph } from '../model';

export interface Placed {
  /** Centre. */
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Layout {
  nodes: Map<string, Placed>;
  edges: { from: string; to: string; points: { x: number; y: number }[] }[];
  boxes: { id: string; label: string; hue: number; x: number; y: number; w: number; h: number }[];
  width: number;
  height: number;
  ms: number;
}

const CHAR = 6.6; // px per character of the 11 px monospace label
export const NODE_H = 34;
const PAD = 10;

export function nodeWidth(label: string, detail: string): number {
  return Math.min(360, Math.max(64, Math.max(label.length, detail.length) * CHAR + 18));
}

export function layout(graph: VisibleGraph): Layout {
  const start = performance.now();
  const g = new dagre.graphlib.Graph<object, { width: number; height: number; x?: number; y?: number }, { points?: { x: number; y: number }[] }>();
  g.setGraph({ rankdir: 'TB', nodesep: 18, ranksep: 28, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const node of graph.nodes) {
    g.setNode(node.id, { width: nodeWidth(node.label, node.detail), height: NODE_H });
  }
  for (const [from, to] of graph.edges) {
    g.setEdge(from, to);
  }
  dagre.layout(g);
  const nodes = new Map<string, Placed>();
  for (const node of graph.nodes) {
    const placed = g.node(node.id);
    nodes.set(node.id, { x: placed.x ?? 0, y: placed.y ?? 0, w: placed.width, h: placed.height });
  }
  const edges = graph.edges.map(([from, to]) => ({ from, to, points: g.edge(from, to).points ?? [] }));
  const boxes = graph.boxes
    .map((box) => {
      let x0 = Infinity;
      let y0 = Infinity;
      let x1 = -Infinity;
      let y1 = -Infinity;
      for (const id of box.members) {
        const p = nodes.get(id);
        if (p !== undefined) {
          x0 = Math.min(x0, p.x - p.w / 2);
          x1 = Math.max(x1, p.x + p.w / 2);
          y0 = Math.min(y0, p.y - p.h / 2);
          y1 = Math.max(y1, p.y + p.h / 2);
        }
      }
      const depth = box.id.split(/[./]/).length; // inner boxes pad less: they stay inside
      const pad = Math.max(2, PAD - depth * 2);
      return { id: box.id, label: box.label, hue: box.hue, x: x0 - pad, y: y0 - pad - 12, w: x1 - x0 + 2 * pad, h: y1 - y0 + 2 * pad + 12, size: box.members.length };
    })
    .filter((b) => Number.isFinite(b.x))
    .sort((a, b) => b.size - a.size);
  const label = g.graph() as { width?: number; height?: number };
  return { nodes, edges, boxes, width: label.width ?? 0, height: label.height ?? 0, ms: performance.now() - start };
}
