/**
 * The graph panel's page: draws the module's graph, links it both ways to the source, keeps its
 * state across reloads. Messages: ../messages.ts. Runs in the webview (no Node, no vscode).
 */
import type { GraphPayload, HostMessage, PanelState, ViewMessage } from '../messages';
import { buildModel, defaultExpanded, nodesAtLine, placementCounts, representative, runsOn, sameShape, search, visible, type Model } from '../model';
import { failureHtml, groupCard, legendHtml, nodeCard } from './details';
import { layout, type Layout } from './layout';
import { svgContent } from './render';
import { Viewport } from './viewport';

interface VsCodeApi {
  postMessage(message: ViewMessage): void;
  getState(): PanelState | undefined;
  setState(state: PanelState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
function $<T extends Element>(selector: string, type: abstract new () => T): T {
  const found = document.querySelector(selector);
  if (!(found instanceof type)) {
    throw new Error(`no ${selector}`);
  }
  return found;
}
const svg = $('#canvas', SVGSVGElement);
const root = $('#viewport', SVGGElement);
const card = $('#card', HTMLDivElement);
const banner = $('#banner', HTMLDivElement);
const message = $('#message', HTMLDivElement);
const title = $('#title', HTMLSpanElement);
const legend = $('#legend', HTMLSpanElement);
const searchBox = $('#search', HTMLInputElement);

let payload: GraphPayload | undefined;
let model: Model | undefined;
let placed: Layout | undefined;
let expanded = new Set<string>();
let selected: string | null = null;
let highlighted: string[] = [];
let state: PanelState | undefined = vscode.getState();
const viewport = new Viewport(svg, root, (zoom) => {
  // zoomed far out, labels are unreadable anyway: not drawing them keeps panning smooth
  svg.classList.toggle('far', zoom.k < 0.35);
  save({ zoom });
});

function save(change: Partial<PanelState>): void {
  if (payload !== undefined) {
    state = { ...state, ...change, uri: payload.uri, module: payload.module };
    vscode.setState(state);
  }
}

function draw(sentAt: number): void {
  if (model === undefined) {
    return;
  }
  const t0 = performance.now();
  const graph = visible(model, expanded, payload?.placement ?? {});
  placed = layout(graph);
  const lines = new Map<string, number>();
  for (const node of graph.nodes) {
    const line = model.nodes.get(node.id)?.line;
    if (line !== undefined) {
      lines.set(node.id, line);
    }
  }
  root.innerHTML = svgContent(graph, placed, lines);
  document.body.dataset.nodes = String(graph.nodes.length);
  mark();
  const layoutMs = placed.ms;
  requestAnimationFrame(() => {
    const paintMs = performance.now() - t0;
    document.body.dataset.state = 'painted';
    document.body.dataset.layoutMs = layoutMs.toFixed(1);
    document.body.dataset.paintMs = paintMs.toFixed(1);
    vscode.postMessage({ type: 'painted', nodes: graph.nodes.length, layoutMs, paintMs, sinceSentMs: sentAt > 0 ? Date.now() - sentAt : -1 });
  });
}

/** Selection and highlights, as classes on the drawn nodes. */
function mark(): void {
  root.querySelectorAll('.node.selected, .node.hl').forEach((el) => el.classList.remove('selected', 'hl'));
  const pick = (id: string): Element | null => root.querySelector(`.node[data-id="${CSS.escape(id)}"]`);
  for (const id of highlighted) {
    pick(id)?.classList.add('hl');
  }
  if (selected !== null) {
    pick(selected)?.classList.add('selected');
  }
}

function visibleIds(ids: string[]): string[] {
  return model === undefined ? [] : [...new Set(ids.map((id) => representative(model as Model, expanded, id)))];
}

function highlight(ids: string[]): void {
  highlighted = visibleIds(ids);
  mark();
  const first = highlighted[0] !== undefined ? placed?.nodes.get(highlighted[0]) : undefined;
  if (first !== undefined) {
    viewport.reveal(first.x, first.y);
  }
  document.body.dataset.highlighted = String(highlighted.length);
}

function show(next: GraphPayload, sentAt: number): void {
  const keep = payload?.view != null && next.view !== null && payload.uri === next.uri && payload.module === next.module && sameShape(payload.view, next.view);
  payload = next;
  title.textContent = `${next.module} · ${next.file} · ${next.mode} · ${next.status}${next.view !== null ? ` · ${next.view.nodes.length} nodes${next.view.truncated ? ` of ${next.view.total}` : ''}` : ''}`;
  banner.textContent = next.stale ? 'Stale: the source changed since this export; it is being re-checked.' : '';
  banner.hidden = !next.stale;
  legend.innerHTML = legendHtml(placementCounts(next.placement));
  legend.hidden = legend.innerHTML === '';
  if (next.view === null) {
    model = undefined;
    root.innerHTML = '';
    message.innerHTML = failureHtml(next.status, next.findings);
    message.hidden = false;
    document.body.dataset.state = 'failed';
    return;
  }
  message.hidden = true;
  const restoring = !keep && state?.module === next.module && state.uri === next.uri && placed === undefined;
  model = buildModel(next.view);
  if (!keep) {
    expanded = restoring && state?.expanded !== undefined ? new Set(state.expanded) : defaultExpanded(model);
    selected = restoring ? (state?.selected ?? null) : null;
    highlighted = [];
  }
  draw(sentAt);
  if (keep) {
    return; // same shape: zoom, selection and expanded groups stay
  }
  if (restoring && state?.zoom !== undefined) {
    viewport.set(state.zoom);
  } else if (placed !== undefined) {
    viewport.fit(placed.width, placed.height);
  }
}

function toggle(group: string): void {
  if (expanded.has(group)) {
    expanded.delete(group);
  } else {
    expanded.add(group);
  }
  save({ expanded: [...expanded] });
  draw(0);
}

svg.addEventListener('click', (e) => {
  if (viewport.dragged || model === undefined) {
    return;
  }
  const target = e.target as Element;
  const box = target.closest('.box');
  const group = box?.getAttribute('data-group');
  if (group != null && target.classList.contains('box-label')) {
    toggle(group); // the label of an open group collapses it
    return;
  }
  const id = target.closest('.node')?.getAttribute('data-id');
  if (id == null) {
    return;
  }
  if (model.groups.has(id) && !model.nodes.has(id)) {
    toggle(id);
    return;
  }
  selected = id;
  save({ selected });
  mark();
  const node = model.nodes.get(id);
  if (node?.path !== undefined && node.line !== undefined) {
    vscode.postMessage({ type: 'reveal', path: node.path, line: node.line, code: node.code ?? '' });
  }
});

svg.addEventListener('mouseover', (e) => {
  const id = (e.target as Element).closest('.node')?.getAttribute('data-id');
  const node = id != null ? model?.nodes.get(id) : undefined;
  const group = id != null ? model?.groups.get(id) : undefined;
  if (node === undefined && group === undefined) {
    card.hidden = true;
    return;
  }
  const place = model !== undefined && id != null ? runsOn(model, payload?.placement ?? {}, id) : undefined;
  card.innerHTML = node !== undefined ? nodeCard(node, place) : groupCard(group as NonNullable<typeof group>, place);
  card.hidden = false;
  card.style.left = `${Math.min(e.clientX + 14, window.innerWidth - 380)}px`;
  card.style.top = `${Math.min(e.clientY + 14, window.innerHeight - card.offsetHeight - 8)}px`;
});
svg.addEventListener('mouseleave', () => (card.hidden = true));

message.addEventListener('click', (e) => {
  const link = (e.target as Element).closest('.finding');
  const finding = payload?.findings[Number(link?.getAttribute('data-index'))];
  const line = finding?.range?.start.line;
  if (link !== null && payload !== undefined && line !== undefined) {
    e.preventDefault();
    vscode.postMessage({ type: 'reveal', path: payload.path, line: line + 1, code: '' });
  }
});

searchBox.addEventListener('input', () => {
  if (model !== undefined) {
    const ids = search(model, searchBox.value);
    highlight(ids);
  }
});

const buttons: Record<string, () => void> = {
  '#fit': () => placed !== undefined && viewport.fit(placed.width, placed.height),
  '#zoom-in': () => viewport.zoomBy(1.25),
  '#zoom-out': () => viewport.zoomBy(0.8),
  '#expand': () => {
    if (model !== undefined) {
      expanded = new Set(model.groups.keys());
      save({ expanded: [...expanded] });
      draw(0);
    }
  },
  '#collapse': () => {
    if (model !== undefined) {
      expanded = new Set();
      save({ expanded: [] });
      draw(0);
    }
  },
  '#svg': () => {
    const clone = svg.cloneNode(true) as SVGSVGElement;
    clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
    clone.querySelector('#viewport')?.setAttribute('transform', 'translate(0,0)');
    if (placed !== undefined) {
      clone.setAttribute('viewBox', `0 0 ${placed.width} ${placed.height}`);
      clone.setAttribute('width', String(placed.width));
      clone.setAttribute('height', String(placed.height));
    }
    const style = document.querySelector('#svg-style')?.textContent ?? '';
    vscode.postMessage({ type: 'saveSvg', svg: clone.outerHTML.replace('<g id="viewport"', `<style>${style}</style><g id="viewport"`) });
  },
};
for (const [selector, run] of Object.entries(buttons)) {
  $(selector, HTMLButtonElement).addEventListener('click', run);
}

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
  const data = event.data;
  switch (data.type) {
    case 'graph':
      show(data.payload, data.sentAt);
      break;
    case 'cursor':
      if (model !== undefined) {
        highlight(nodesAtLine(model, data.path, data.line));
      }
      break;
    case 'stale':
      banner.textContent = 'Stale: the source changed since this export; it is being re-checked.';
      banner.hidden = false;
      break;
    case 'error':
      message.textContent = data.message;
      message.hidden = false;
      break;
  }
});

vscode.postMessage({ type: 'ready' });
