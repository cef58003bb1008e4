/**
 * The laid-out graph as one SVG string (one innerHTML: a 2,000-node graph is built in a few
 * ms, far faster than creating elements one by one). Nodes carry data-id (and data-line) for
 * clicks, hovers, highlights and the tests. Colours are presentation attributes, not style=
 * (the panel's CSP allows no inline style attributes).
 */
import { MISSING, PORTABLE, type VisibleGraph } from '../model';
import type { Layout } from './layout';

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function fill(kind: string, hue: number | null): string {
  switch (kind) {
    case 'parameter':
    case 'buffer':
    case 'constant':
      return '#5a6270';
    case 'user_input':
      return '#2e7d4f';
    case 'op':
    case 'group':
    case 'branch_input':
    case 'branch_output':
      return hue === null ? '#3b5f8a' : `hsl(${hue},45%,38%)`;
    default:
      return '#a5602a'; // user_output, buffer_mutation, ...
  }
}

/** The CSS class of where a node runs (html.ts colours its outline): a backend, portable, no kernel. */
export function runsClass(place: string | undefined): string {
  if (place === undefined) {
    return '';
  }
  return place === MISSING ? ' runs-missing' : place === PORTABLE ? ' runs-portable' : ' runs-delegated';
}

function path(points: { x: number; y: number }[]): string {
  return points.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join('');
}

export function svgContent(graph: VisibleGraph, placed: Layout, lines: Map<string, number>): string {
  const parts: string[] = ['<g class="boxes">'];
  for (const box of placed.boxes) {
    parts.push(
      `<g class="box" data-group="${escapeXml(box.id)}"><rect x="${box.x.toFixed(1)}" y="${box.y.toFixed(1)}" width="${box.w.toFixed(1)}" height="${box.h.toFixed(1)}" rx="6" fill="hsla(${box.hue},40%,40%,0.10)" stroke="hsla(${box.hue},45%,55%,0.6)"/>` +
        `<text class="box-label" x="${(box.x + 6).toFixed(1)}" y="${(box.y + 11).toFixed(1)}">▾ ${escapeXml(box.label)}</text></g>`,
    );
  }
  parts.push('</g><g class="edges">');
  for (const edge of placed.edges) {
    parts.push(`<path d="${path(edge.points)}" data-from="${escapeXml(edge.from)}" data-to="${escapeXml(edge.to)}"/>`);
  }
  parts.push('</g><g class="nodes">');
  for (const node of graph.nodes) {
    const p = placed.nodes.get(node.id);
    if (p === undefined) {
      continue;
    }
    const line = lines.get(node.id);
    const x = p.x - p.w / 2;
    const y = p.y - p.h / 2;
    parts.push(
      `<g class="node kind-${node.kind}${runsClass(node.runsOn)}" data-id="${escapeXml(node.id)}"${line !== undefined ? ` data-line="${line}"` : ''}${node.runsOn !== undefined ? ` data-runs="${escapeXml(node.runsOn)}"` : ''} transform="translate(${x.toFixed(1)},${y.toFixed(1)})">` +
        `<rect width="${p.w.toFixed(1)}" height="${p.h}" rx="${node.collapsed !== undefined ? 8 : 4}" fill="${fill(node.kind, node.hue)}"/>` +
        `<text class="label" x="8" y="14">${escapeXml(node.label)}</text>` +
        `<text class="detail" x="8" y="27">${escapeXml(node.detail)}</text></g>`,
    );
  }
  parts.push('</g>');
  return parts.join('');
}
