/**
 * The palette / context-menu commands. They exist whether or not the server runs; when it
 * is down they say why and offer the logs and a restart (rust-analyzer style).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ServerManager } from './client';
import type { GraphPanel } from './graph/panel';
import type { GraphDocuments } from './graphDocuments';
import { ServerCommand, ShowGraphCommand, ShowGraphTextCommand, type ExportModuleResult, type Position, type SavePt2Result } from './protocol';
import { classAt } from './pySource';
import { MODES, SECTION, modeLabel, type Mode } from './settings';
import { selectInterpreter } from './selectInterpreter';
import { SELECT_INTERPRETER_COMMAND, SHOW_LOGS_COMMAND, type ServerStatus } from './status';
import { runStoppable } from './stoppable';
import { isNotebookCell } from './notebooks';

export const Command = {
  exportThisModule: 'exportlens.exportThisModule',
  showGraph: ShowGraphCommand.name,
  showGraphText: ShowGraphTextCommand.name,
  savePt2: 'exportlens.savePt2As',
  restartServer: 'exportlens.restartServer',
  showLogs: SHOW_LOGS_COMMAND,
  setMode: 'exportlens.setMode',
  selectInterpreter: SELECT_INTERPRETER_COMMAND,
} as const;

interface Deps {
  manager: ServerManager;
  graphDocuments: GraphDocuments;
  graphPanel: GraphPanel;
  status: ServerStatus;
  log: vscode.LogOutputChannel;
}

export class Commands {
  constructor(private readonly deps: Deps) {}

  register(): vscode.Disposable[] {
    const { manager, log } = this.deps;
    return [
      vscode.commands.registerCommand(Command.exportThisModule, (uri?: vscode.Uri) => this.exportThisModule(uri)),
      vscode.commands.registerCommand(Command.showGraph, (uri?: string | vscode.Uri, module?: string) =>
        this.showGraph(uri, module, 'panel'),
      ),
      vscode.commands.registerCommand(Command.showGraphText, (uri?: string | vscode.Uri, module?: string) =>
        this.showGraph(uri, module, 'text'),
      ),
      vscode.commands.registerCommand(Command.savePt2, (uri?: vscode.Uri, target?: vscode.Uri) =>
        this.savePt2(uri, target),
      ),
      vscode.commands.registerCommand(Command.restartServer, () => manager.restart()),
      vscode.commands.registerCommand(Command.showLogs, () => log.show(true)),
      vscode.commands.registerCommand(Command.setMode, (mode?: Mode) => this.setMode(mode)),
      vscode.commands.registerCommand(Command.selectInterpreter, (python?: string) =>
        selectInterpreter(manager.interpreters.sources(), manager.python, python),
      ),
    ];
  }

  /** Export the module at `position` of `uri` now, with a cancellable progress notification,
   *  and open its graph (or why there is none) beside the editor. Also runs the server's
   *  `exportlens.exportModule` code lens (client.ts middleware). */
  async exportModule(uri: string, position: Position): Promise<ExportModuleResult | undefined> {
    if (!this.serverUp()) {
      return undefined;
    }
    const { manager, graphDocuments, status } = this.deps;
    const name = path.basename(vscode.Uri.parse(uri).fsPath);
    const busyKey = `export:${uri}`;
    status.busy(busyKey, true);
    let result: ExportModuleResult | undefined;
    try {
      result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `ExportLens: exporting ${name}`, cancellable: true },
        (_progress, token) =>
          runStoppable(
            (command, args) => manager.execute(command, args),
            ServerCommand.exportModule,
            ServerCommand.cancelExport,
            [uri, position],
            token,
            (message) => this.deps.log.error(message),
          ),
      );
    } catch (error) {
      // a Cancel is not an error: exportModule answers status "cancelled" (below)
      const text = String(error instanceof Error ? error.message : error);
      void vscode.window.showErrorMessage(`ExportLens: export failed: ${text}`, 'Show logs').then((pick) => {
        if (pick !== undefined) {
          this.deps.log.show(true);
        }
      });
      return undefined;
    } finally {
      status.busy(busyKey, false);
    }
    if (result.status === 'cancelled') {
      void vscode.window.showInformationMessage(`ExportLens: export of ${name} cancelled.`);
      return result;
    }
    await graphDocuments.show(uri, result.module, result);
    return result;
  }

  private async exportThisModule(uri?: vscode.Uri): Promise<ExportModuleResult | undefined> {
    const editor = this.pythonEditor(uri);
    if (editor === undefined) {
      return undefined;
    }
    const at = editor.selection.active;
    return this.exportModule(editor.document.uri.toString(), { line: at.line, character: at.character });
  }

  /** The graph of a module: the panel ("ExportLens: Graph") or the read-only Python text. */
  private async showGraph(uri: string | vscode.Uri | undefined, module: string | undefined, as: 'panel' | 'text'): Promise<void> {
    const open = (source: string, name: string): Promise<unknown> =>
      as === 'panel' ? this.deps.graphPanel.show(source, name) : this.deps.graphDocuments.show(source, name);
    if (typeof uri === 'string' && typeof module === 'string') {
      // from a code lens or a hover link: the server named the module
      if (this.serverUp()) {
        await open(uri, module);
      }
      return;
    }
    const editor = this.pythonEditor(uri instanceof vscode.Uri ? uri : undefined);
    if (editor === undefined || !this.serverUp()) {
      return;
    }
    const name = classAt(editor.document.getText(), editor.selection.active.line);
    if (name === undefined) {
      const exported = await this.exportThisModule(editor.document.uri);
      if (exported !== undefined && as === 'panel') {
        await open(editor.document.uri.toString(), exported.module);
      }
      return;
    }
    await open(editor.document.uri.toString(), name);
  }

  private async savePt2(uri?: vscode.Uri, target?: vscode.Uri): Promise<SavePt2Result | undefined> {
    const editor = this.pythonEditor(uri);
    if (editor === undefined || !this.serverUp()) {
      return undefined;
    }
    const source = editor.document.uri.toString();
    const at = editor.selection.active;
    let module = classAt(editor.document.getText(), at.line);
    if (module === undefined) {
      module = (await this.exportModule(source, { line: at.line, character: at.character }))?.module;
      if (module === undefined) {
        return undefined;
      }
    }
    const folder = vscode.workspace.getWorkspaceFolder(editor.document.uri)?.uri ?? vscode.Uri.file(path.dirname(editor.document.uri.fsPath));
    const file =
      target ??
      (await vscode.window.showSaveDialog({
        title: `ExportLens: save ${module} as an ExportedProgram`,
        defaultUri: vscode.Uri.joinPath(folder, `${module}.pt2`),
        filters: { 'ExportedProgram (.pt2)': ['pt2'] },
        saveLabel: 'Export and save',
      }));
    if (file === undefined) {
      return undefined;
    }
    try {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `ExportLens: saving ${module} to ${path.basename(file.fsPath)}` },
        () => this.deps.manager.execute(ServerCommand.savePt2, [source, module, file.fsPath]),
      );
      if (result.saved) {
        void vscode.window.showInformationMessage(`ExportLens: saved ${module} to ${result.path} (${result.seconds.toFixed(2)} s).`);
      } else {
        void vscode.window.showErrorMessage(
          `ExportLens: ${module} was not saved: the export ended "${result.status}"${result.reason ? `: ${result.reason}` : ''}.`,
        );
      }
      return result;
    } catch (error) {
      void vscode.window.showErrorMessage(`ExportLens: saving failed: ${String(error instanceof Error ? error.message : error)}`);
      return undefined;
    }
  }

  private async setMode(mode?: Mode): Promise<void> {
    const config = vscode.workspace.getConfiguration(SECTION);
    const current = config.get<string>('mode');
    let chosen = mode;
    if (chosen === undefined) {
      const pick = await vscode.window.showQuickPick(
        MODES.map((m) => ({ label: m, description: m === current ? '(current)' : modeLabel(m) === m ? '' : modeLabel(m) })),
        { title: 'ExportLens: tracer to check with', placeHolder: `now: ${String(current)}` },
      );
      chosen = MODES.find((m) => m === pick?.label);
    }
    if (chosen === undefined || !MODES.includes(chosen)) {
      return;
    }
    const target =
      vscode.workspace.workspaceFolders !== undefined
        ? vscode.ConfigurationTarget.Workspace
        : vscode.ConfigurationTarget.Global;
    await config.update('mode', chosen, target);
  }

  pythonEditor(uri?: vscode.Uri): vscode.TextEditor | undefined {
    const editor =
      uri !== undefined
        ? vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString())
        : vscode.window.activeTextEditor;
    const uriOk = editor !== undefined && (editor.document.uri.scheme === 'file' || isNotebookCell(editor.document.uri));
    if (editor === undefined || editor.document.languageId !== 'python' || !uriOk) {
      void vscode.window.showWarningMessage(
        'ExportLens: open a Python file (saved on disk) or a notebook cell with a torch.nn.Module first.',
      );
      return undefined;
    }
    return editor;
  }

  /** True when the server runs; otherwise explain why and offer a way out. */
  serverUp(): boolean {
    if (this.deps.manager.running !== undefined) {
      return true;
    }
    const reason = this.deps.manager.whyDown;
    void vscode.window
      .showErrorMessage(`ExportLens: the server is not running: ${reason}`, 'Show logs', 'Restart server')
      .then((pick) => {
        if (pick === 'Show logs') {
          this.deps.log.show(true);
        } else if (pick === 'Restart server') {
          void this.deps.manager.restart();
        }
      });
    return false;
  }
}
