/**
 * Messages between the graph panel (extension host, panel.ts) and its webview (webview/main.ts),
 * and the state the webview keeps across reloads. Types only: both sides import them.
 */
import type { FindingJson, GraphView } from '../protocol';

export interface GraphPayload {
  uri: string;
  module: string;
  /** Workspace-relative file name, for the title. */
  file: string;
  /** The file's path as the worker reports it: node sites in it are "this file". */
  path: string;
  mode: string;
  status: string;
  stale: boolean;
  /** null: the export made no graph (failed); `findings` says why. */
  view: GraphView | null;
  /** Node id -> where it runs on the device (lsp/graph_command.py); empty without the executorch target. */
  placement: Record<string, string>;
  findings: FindingJson[];
}

export type HostMessage =
  | { type: 'graph'; payload: GraphPayload; sentAt: number }
  | { type: 'cursor'; path: string; line: number }
  | { type: 'stale' }
  | { type: 'error'; message: string };

export type ViewMessage =
  | { type: 'ready' }
  | { type: 'reveal'; path: string; line: number; code: string }
  | { type: 'saveSvg'; svg: string }
  | { type: 'painted'; nodes: number; layoutMs: number; paintMs: number; sinceSentMs: number };

/** What vscode.setState keeps: enough to fetch the graph again and put the view back. */
export interface PanelState {
  uri: string;
  module: string;
  zoom?: { x: number; y: number; k: number };
  selected?: string | null;
  expanded?: string[];
}
