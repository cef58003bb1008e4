/**
 * Read-only virtual documents `exportlens-graph:` holding a module's ATen graph,
 * Python-highlighted, opened beside the editor and refreshed on every re-export.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { graphDocumentText } from './graphText';
import type { ExportModuleResult, GraphResult } from './protocol';

export const GRAPH_SCHEME = 'exportlens-graph';

/** Asks the server for a module's graph (client.ts provides it). */
export type GraphFetcher = (sourceUri: string, module: string) => Promise<GraphResult>;

interface GraphKey {
  source: string;
  module: string;
}

export function graphUri(sourceUri: string, module: string): vscode.Uri {
  const file = path.posix.basename(vscode.Uri.parse(sourceUri).path, '.py');
  return vscode.Uri.from({
    scheme: GRAPH_SCHEME,
    path: `/${file}/${module}.aten.py`,
    query: new URLSearchParams({ uri: sourceUri, module }).toString(),
  });
}

function parse(uri: vscode.Uri): GraphKey {
  const query = new URLSearchParams(uri.query);
  return { source: query.get('uri') ?? '', module: query.get('module') ?? '' };
}

export class GraphDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  /** The last explicit export of a module, by graph URI: shown until the next refresh. */
  private readonly exported = new Map<string, ExportModuleResult>();
  private readonly registration: vscode.Disposable;

  constructor(private readonly fetch: () => GraphFetcher | undefined) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(GRAPH_SCHEME, this);
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const key = parse(uri);
    const file = vscode.workspace.asRelativePath(vscode.Uri.parse(key.source));
    const exported = this.exported.get(uri.toString());
    if (exported !== undefined && exported.graph === '') {
      return graphDocumentText({ module: key.module, file, exported });
    }
    const fetch = this.fetch();
    if (fetch === undefined) {
      return `# ExportLens · ${key.module} (${file})\n# The ExportLens server is not running: run "ExportLens: Restart server".\n`;
    }
    try {
      const graph = await fetch(key.source, key.module);
      if (token.isCancellationRequested) {
        return '';
      }
      return graphDocumentText({ module: key.module, file, exported, graph });
    } catch (error) {
      return `# ExportLens · ${key.module} (${file})\n# Could not get the graph: ${String(error)}\n`;
    }
  }

  /** Opens (or refreshes) the graph of `module` beside the editor, without taking focus. */
  async show(sourceUri: string, module: string, exported?: ExportModuleResult): Promise<vscode.TextEditor> {
    const uri = graphUri(sourceUri, module);
    if (exported !== undefined) {
      this.exported.set(uri.toString(), exported);
    }
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open !== undefined) {
      this.changed.fire(uri);
    }
    let document = await vscode.workspace.openTextDocument(uri);
    if (document.languageId !== 'python') {
      document = await vscode.languages.setTextDocumentLanguage(document, 'python');
    }
    return vscode.window.showTextDocument(document, {
      viewColumn: vscode.ViewColumn.Beside,
      preserveFocus: true,
      preview: true,
    });
  }

  /** A check of `sourceUri` ended: re-render its open graph documents. */
  refresh(sourceUri: string): void {
    for (const document of vscode.workspace.textDocuments) {
      if (document.uri.scheme === GRAPH_SCHEME && parse(document.uri).source === sourceUri) {
        this.exported.delete(document.uri.toString());
        this.changed.fire(document.uri);
      }
    }
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
