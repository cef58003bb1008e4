/**
 * "ExportLens: Graph": one webview panel beside the editor showing a module's exported program
 * (webview/main.ts draws it). It follows the source both ways (a node click reveals its line; the
 * editor's cursor highlights that line's nodes), refreshes in place when the file is checked
 * again, marks itself stale on edits, and is restored after a reload (a WebviewPanelSerializer
 * and the webview's own state).
 */
import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import * as vscode from 'vscode';
import type { GraphViewResult } from '../protocol';
import { graphHtml, nonce } from './html';
import type { GraphPayload, HostMessage, PanelState, ViewMessage } from './messages';

export const GRAPH_VIEW_TYPE = 'exportlens.graph';

/** Asks the server for a module's graph view (undefined: the server is not running). */
export type GraphViewFetcher = () => ((uri: string, module: string) => Promise<GraphViewResult>) | undefined;

interface Shown {
  panel: vscode.WebviewPanel;
  uri: string;
  module: string;
  ready: boolean;
  last?: HostMessage;
}

/** What the extension-host tests and the log read: the last paint of the webview. */
export interface Painted {
  nodes: number;
  layoutMs: number;
  paintMs: number;
  sinceSentMs: number;
}

export class GraphPanel implements vscode.Disposable, vscode.WebviewPanelSerializer<PanelState> {
  private shown: Shown | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly real = new Map<string, string>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly fetch: GraphViewFetcher,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.push(
      vscode.window.registerWebviewPanelSerializer(GRAPH_VIEW_TYPE, this),
      vscode.window.onDidChangeTextEditorSelection((e) => this.cursorMoved(e.textEditor)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0 && e.document.uri.toString() === this.shown?.uri) {
          this.post({ type: 'stale' });
        }
      }),
    );
  }

  /** Opens (or reuses) the panel beside the editor for `module` of `uri`, without taking focus. */
  async show(uri: string, module: string): Promise<void> {
    if (this.shown === undefined) {
      const panel = vscode.window.createWebviewPanel(GRAPH_VIEW_TYPE, `Graph: ${module}`, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, this.options());
      this.attach(panel, uri, module);
    } else {
      Object.assign(this.shown, { uri, module });
      this.shown.panel.title = `Graph: ${module}`;
      this.shown.panel.reveal(undefined, true);
    }
    await this.load();
  }

  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: PanelState | undefined): Promise<void> {
    panel.webview.options = this.options();
    if (state?.uri === undefined || this.shown !== undefined) {
      panel.dispose(); // nothing to show again (or another panel already shows a graph)
      return;
    }
    this.attach(panel, state.uri, state.module);
    await this.load();
  }

  /** A check of `uri` ended: draw its module again (in place when the graph kept its shape). */
  refresh(uri: string): void {
    if (this.shown?.uri === uri) {
      void this.load();
    }
  }

  private options(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview')] };
  }

  private attach(panel: vscode.WebviewPanel, uri: string, module: string): void {
    const shown: Shown = { panel, uri, module, ready: false };
    this.shown = shown;
    const script = panel.webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview', 'graph.js'));
    panel.webview.html = graphHtml({ cspSource: panel.webview.cspSource, scriptUri: script.toString(), nonce: nonce((n) => randomBytes(n)) });
    panel.webview.onDidReceiveMessage((message: ViewMessage) => void this.received(shown, message));
    panel.onDidDispose(() => {
      if (this.shown === shown) {
        this.shown = undefined;
      }
    });
  }

  private async load(): Promise<void> {
    const shown = this.shown;
    const fetch = this.fetch();
    if (shown === undefined) {
      return;
    }
    if (fetch === undefined) {
      this.post({ type: 'error', message: 'The ExportLens server is not running: run "ExportLens: Restart server".' });
      return;
    }
    const { uri, module } = shown;
    try {
      const result = await fetch(uri, module);
      if (this.shown !== shown || shown.uri !== uri || shown.module !== module) {
        return; // the panel moved on to another module meanwhile
      }
      this.post({ type: 'graph', payload: payloadOf(result), sentAt: Date.now() });
    } catch (error) {
      this.post({ type: 'error', message: `Could not get the graph of ${module}: ${error instanceof Error ? error.message : String(error)}` });
    }
  }

  private post(message: HostMessage): void {
    const shown = this.shown;
    if (shown === undefined) {
      return;
    }
    if (message.type === 'graph') {
      shown.last = message;
    }
    if (shown.ready) {
      void shown.panel.webview.postMessage(message);
    }
  }

  private async received(shown: Shown, message: ViewMessage): Promise<void> {
    switch (message.type) {
      case 'ready':
        shown.ready = true;
        if (shown.last !== undefined) {
          void shown.panel.webview.postMessage(shown.last);
        }
        break;
      case 'reveal':
        await reveal(message.path, message.line, message.code);
        break;
      case 'saveSvg':
        await this.saveSvg(shown, message.svg);
        break;
      case 'painted':
        this.lastPaint = message;
        this.log.info(`graph ${shown.module}: ${message.nodes} nodes drawn, layout ${message.layoutMs.toFixed(0)} ms, paint ${message.paintMs.toFixed(0)} ms, ${message.sinceSentMs} ms after the data was sent`);
        break;
    }
  }

  lastPaint: Painted | undefined;

  private async saveSvg(shown: Shown, svg: string): Promise<void> {
    const source = vscode.Uri.parse(shown.uri);
    const file = await vscode.window.showSaveDialog({
      title: `ExportLens: save the graph of ${shown.module} as SVG`,
      defaultUri: vscode.Uri.joinPath(source, '..', `${shown.module}.graph.svg`),
      filters: { SVG: ['svg'] },
    });
    if (file !== undefined) {
      await vscode.workspace.fs.writeFile(file, Buffer.from(svg, 'utf8'));
    }
  }

  private cursorMoved(editor: vscode.TextEditor): void {
    if (this.shown === undefined || editor.document.uri.scheme !== 'file') {
      return;
    }
    const path = this.realpath(editor.document.uri.fsPath);
    this.post({ type: 'cursor', path, line: editor.selection.active.line + 1 });
  }

  private realpath(file: string): string {
    let known = this.real.get(file);
    if (known === undefined) {
      try {
        known = realpathSync(file);
      } catch {
        known = file;
      }
      this.real.set(file, known);
    }
    return known;
  }

  dispose(): void {
    this.shown?.panel.dispose();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

function payloadOf(result: GraphViewResult): GraphPayload {
  const source = vscode.Uri.parse(result.uri);
  const first = result.results.find((r) => r.view !== null) ?? result.results[0];
  return {
    uri: result.uri,
    module: result.module,
    file: vscode.workspace.asRelativePath(source),
    path: source.fsPath,
    mode: first?.mode ?? '',
    status: first?.status ?? 'not exported',
    stale: result.stale,
    view: first?.view ?? null,
    placement: first?.placement ?? {},
    findings: result.findings,
  };
}

/** Shows `line` (1-based) of `path` in its editor (or a new one in the first column), selecting `code` on it. */
async function reveal(path: string, line: number, code: string): Promise<void> {
  const uri = vscode.Uri.file(path);
  const document = await vscode.workspace.openTextDocument(uri);
  const visible = vscode.window.visibleTextEditors.find((e) => e.document.uri.fsPath === uri.fsPath);
  const editor = await vscode.window.showTextDocument(document, { viewColumn: visible?.viewColumn ?? vscode.ViewColumn.One, preserveFocus: false });
  const text = document.lineAt(Math.min(line - 1, document.lineCount - 1));
  const at = code !== '' ? text.text.indexOf(code) : -1;
  const start = at >= 0 ? at : text.firstNonWhitespaceCharacterIndex;
  const end = at >= 0 ? at + code.length : text.text.length;
  editor.selection = new vscode.Selection(text.lineNumber, start, text.lineNumber, end);
  editor.revealRange(editor.selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
