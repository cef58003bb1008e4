/** The hover card of a node and the panel a failed export shows instead of a graph. */
import type { FindingJson, ViewNode } from '../../protocol';
import type { Group } from '../model';
import { escapeXml as esc, runsClass } from './render';

export function nodeCard(node: ViewNode, place?: string): string {
  const site = node.line !== undefined ? `<div class="site">${esc(base(node.path ?? ''))}:${node.line} <code>${esc(node.code ?? '')}</code></div>` : '';
  const stack = (node.stack ?? [])
    .map((f) => `<li>${esc(f.name)} · ${esc(base(f.path))}:${f.line} <code>${esc(f.code)}</code></li>`)
    .join('');
  const module = node.module.at(-1);
  return (
    `<div class="op">${esc(node.op)}${node.target !== undefined ? ` · ${esc(node.target)}` : ''}</div>` +
    `<div>${esc(node.kind.replace('_', ' '))} <b>${esc(node.name)}</b>: ${esc(node.shape || '—')} ${esc(node.dtype)}</div>` +
    (module !== undefined ? `<div>in <b>${esc(module)}</b></div>` : '') +
    site +
    runsLine(place) +
    (stack !== '' ? `<ol class="stack">${stack}</ol>` : '')
  );
}

export function groupCard(group: Group, place?: string): string {
  return `<div class="op">${esc(group.label)}</div><div>${group.size} nodes · click to expand</div>${runsLine(place)}`;
}

function runsLine(place: string | undefined): string {
  return place !== undefined ? `<div>ExecuTorch: <b>${esc(place === 'portable' ? 'portable kernel' : place)}</b></div>` : '';
}

/** The bar's key to the outlines: `ExecuTorch: □ XnnpackBackend 5 □ portable 2`; empty without placement. */
export function legendHtml(counts: [string, number][]): string {
  if (counts.length === 0) {
    return '';
  }
  return 'ExecuTorch:' + counts.map(([place, n]) => `<span class="sw${runsClass(place)}"></span>${esc(place)} ${n}`).join('');
}

function base(path: string): string {
  return path.split('/').at(-1) ?? path;
}

/** Why there is no graph: the findings, each a link to its line (the diagnostic). */
export function failureHtml(status: string, findings: FindingJson[]): string {
  const items = findings
    .map((f, i) => {
      const line = f.range?.start.line;
      const where = line !== undefined ? `<a href="#" class="finding" data-index="${i}">line ${line + 1}</a>` : '';
      return `<li><b>${esc(f.severity ?? 'error')}${f.code !== undefined ? ` [${esc(f.code)}]` : ''}</b> ${where}<div>${esc(f.message)}</div></li>`;
    })
    .join('');
  return (
    `<h2>No graph: the export ended "${esc(status)}"</h2>` +
    '<p>torch.export made no program, so there is nothing traced to draw. What stopped it:</p>' +
    (items !== '' ? `<ul>${items}</ul>` : '<p>See the Problems panel.</p>')
  );
}
