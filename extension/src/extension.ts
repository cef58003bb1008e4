/**
 * Activation: build the pieces (logs, status, graph view, server manager, commands), wire
 * them together, start the server. No logic of its own.
 */
import * as vscode from 'vscode';
import { ServerManager } from './client';
import { Commands } from './commands';
import { registerDocsLinks } from './docsLinks';
import { GraphPanel } from './graph/panel';
import { GraphDocuments } from './graphDocuments';
import { exportsUnsupported } from './platform';
import { ServerCommand } from './protocol';
import { ServerStatus, type StatusState } from './status';
import { LoweringCommands } from './loweringCommands';

/** What activate() returns: read by the extension-host tests. */
export interface ExportLensApi {
  /** Resolves when the current start attempt is over; then `status()` says how it went. */
  whenStarted(): Promise<void>;
  status(): StatusState;
  /** What the status item shows: its text, detail, link (a command id) and severity. */
  statusItem(): ServerStatus['shown'];
}

let manager: ServerManager | undefined;

export function activate(context: vscode.ExtensionContext): ExportLensApi {
  const log = vscode.window.createOutputChannel('ExportLens', { log: true });
  const status = new ServerStatus();
  const graphDocuments = new GraphDocuments(() => {
    const server = manager;
    return server?.running === undefined
      ? undefined
      : (uri, module) => server.execute(ServerCommand.graph, [uri, module]);
  });
  const graphPanel = new GraphPanel(context.extensionUri, () => {
    const server = manager;
    return server?.running === undefined
      ? undefined
      : (uri, module) => server.execute(ServerCommand.graphView, [uri, module]);
  }, log);
  manager = new ServerManager(context, log, status, {
    onFileChecked: (params) => {
      status.busy(params.uri, false);
      graphDocuments.refresh(params.uri);
      graphPanel.refresh(params.uri);
    },
    onCheckScheduled: (uri) => status.busy(uri, true),
    onDocumentClosed: (uri) => status.busy(uri, false),
    onExportModuleCommand: (uri, position) => commands.exportModule(uri, position),
  });
  const commands = new Commands({ manager, graphDocuments, graphPanel, status, log });
  const loweringCommands = new LoweringCommands({ manager, commands, log });
  context.subscriptions.push(
    log,
    status,
    graphDocuments,
    graphPanel,
    manager,
    ...commands.register(),
    ...loweringCommands.register(),
    registerDocsLinks(),
  );
  const unsupported = exportsUnsupported();
  if (unsupported !== undefined) {
    void vscode.window.showWarningMessage(unsupported); // once, at start; then the status item says it
  }
  // Do not block activation on the server: commands already explain a server still starting.
  void manager.start();
  const current = manager;
  return { whenStarted: () => current.whenStarted(), status: () => status.current, statusItem: () => status.shown };
}

export async function deactivate(): Promise<void> {
  await manager?.stop();
  manager = undefined;
}
