/**
 * The commands of the targets a check does not run (docs/targets.md): "Compile with AOTInductor"
 * (tens of seconds, a cancellable notification; cancelling kills the job's child, the worker
 * lives on) and "Save as ONNX". Registered at activation: they exist when the server is down
 * and then say why (Commands.serverUp).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ServerManager } from './client';
import type { Commands } from './commands';
import { ServerCommand, type CompileAotiResult, type SavePt2Result } from './protocol';
import { classAt } from './pySource';
import { runStoppable } from './stoppable';

export const LoweringCommand = {
  compileAoti: 'exportlens.compileWithAoti',
  saveOnnx: 'exportlens.saveOnnxAs',
} as const;

export class LoweringCommands {
  constructor(private readonly deps: { manager: ServerManager; commands: Commands; log: vscode.LogOutputChannel }) {}

  register(): vscode.Disposable[] {
    return [
      vscode.commands.registerCommand(LoweringCommand.compileAoti, (uri?: vscode.Uri | string, module?: string) =>
        this.compileAoti(uri, module),
      ),
      vscode.commands.registerCommand(LoweringCommand.saveOnnx, (uri?: vscode.Uri, target?: vscode.Uri) =>
        this.saveOnnx(uri, target),
      ),
    ];
  }

  /** From the palette (the module at the cursor) or a code lens / test (`uri`, `module` named). */
  async compileAoti(uri?: vscode.Uri | string, named?: string): Promise<CompileAotiResult | undefined> {
    const found = await this.moduleAt(typeof uri === 'string' ? vscode.Uri.parse(uri) : uri, named);
    if (found === undefined) {
      return undefined;
    }
    const [source, module] = found;
    let result: CompileAotiResult;
    try {
      result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `ExportLens: compiling ${module} with AOTInductor`, cancellable: true },
        (_progress, token) =>
          runStoppable(
            (command, args) => this.deps.manager.execute(command, args),
            ServerCommand.compileAoti,
            ServerCommand.cancelAoti,
            [source, module],
            token,
            (message) => this.deps.log.error(message),
          ),
      );
    } catch (error) {
      const text = String(error instanceof Error ? error.message : error);
      this.deps.log.error(`compileAoti: ${text}`);
      void vscode.window.showErrorMessage(`ExportLens: the AOTInductor compile did not run: ${text}`);
      return undefined;
    }
    void this.say(result);
    return result;
  }

  private say(result: CompileAotiResult): Thenable<unknown> {
    const { module, facts } = result;
    if (result.status === 'cancelled') {
      return vscode.window.showInformationMessage(`ExportLens: AOTInductor compile of ${module} cancelled.`);
    }
    if (result.status !== 'exported') {
      return vscode.window.showErrorMessage(`ExportLens: ${module} did not export ("${result.status}"): nothing to compile; see Problems.`);
    }
    if (result.skipped) {
      return vscode.window.showWarningMessage(`ExportLens: AOTInductor: ${module} not compiled: ${result.skipped}.`);
    }
    if (!result.ok) {
      const count = result.findings.filter((f) => (f.code ?? '').startsWith('aoti-')).length;
      return vscode.window.showWarningMessage(`ExportLens: AOTInductor refused ${module}: ${count} finding(s), shown on their lines (Problems).`);
    }
    const size = ((facts.package_bytes ?? 0) / 2 ** 20).toFixed(1);
    return vscode.window.showInformationMessage(
      `ExportLens: compiled ${module} with AOTInductor in ${(facts.compile_seconds ?? 0).toFixed(1)} s: package ${size} MB at ${facts.package_path ?? '?'}.`,
    );
  }

  private async saveOnnx(uri?: vscode.Uri, target?: vscode.Uri): Promise<SavePt2Result | undefined> {
    const found = await this.moduleAt(uri);
    if (found === undefined) {
      return undefined;
    }
    const [source, module] = found;
    const fsPath = vscode.Uri.parse(source).fsPath;
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(source))?.uri ?? vscode.Uri.file(path.dirname(fsPath));
    const file =
      target ??
      (await vscode.window.showSaveDialog({
        title: `ExportLens: save ${module} as ONNX`,
        defaultUri: vscode.Uri.joinPath(folder, `${module}.onnx`),
        filters: { 'ONNX model (.onnx)': ['onnx'] },
        saveLabel: 'Export and save',
      }));
    if (file === undefined) {
      return undefined;
    }
    try {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `ExportLens: saving ${module} as ONNX` },
        () => this.deps.manager.execute(ServerCommand.saveOnnx, [source, module, file.fsPath]),
      );
      if (result.saved) {
        void vscode.window.showInformationMessage(`ExportLens: saved ${module} to ${result.path} (${result.seconds.toFixed(2)} s).`);
      } else {
        void vscode.window.showErrorMessage(`ExportLens: ${module} was not saved as ONNX ("${result.status}")${result.reason ? `: ${result.reason}` : ''}.`);
      }
      return result;
    } catch (error) {
      void vscode.window.showErrorMessage(`ExportLens: saving as ONNX failed: ${String(error instanceof Error ? error.message : error)}`);
      return undefined;
    }
  }

  /** [uri, module] of the class at the cursor, exporting first when the cursor is outside one. */
  private async moduleAt(uri?: vscode.Uri, named?: string): Promise<[string, string] | undefined> {
    const { commands } = this.deps;
    if (uri !== undefined && named !== undefined) {
      return commands.serverUp() ? [uri.toString(), named] : undefined;
    }
    const editor = commands.pythonEditor(uri);
    if (editor === undefined || !commands.serverUp()) {
      return undefined;
    }
    const source = editor.document.uri.toString();
    const at = editor.selection.active;
    const module = classAt(editor.document.getText(), at.line) ?? (await commands.exportModule(source, { line: at.line, character: at.character }))?.module;
    return module === undefined ? undefined : [source, module];
  }
}
