/**
 * The interpreter of one server start, in VS Code: the sources interpreter.ts tries (the other
 * extensions' selections, the workspace, PATH), the probe of each until one can export, the log
 * of what was tried, and the one notification a session when none can.
 */
import * as vscode from 'vscode';
import {
  SOURCE_LABELS,
  candidates,
  choose,
  findOnPath,
  isExecutableFile,
  nothingUsable,
  type Choice,
  type InterpreterSources,
  type Unresolved,
} from './interpreter';
import { exportsUnsupported } from './platform';
import { checkInterpreter, runFile } from './probe';
import { environmentsInterpreter, selectedInterpreter } from './pythonExtension';
import { SELECT_INTERPRETER_COMMAND } from './status';

export class InterpreterChoice {
  /** Whether the notification was shown this session: then the status item alone says it. */
  private notified = false;

  constructor(private readonly log: vscode.LogOutputChannel) {}

  /** Where interpreters come from besides the setting, for this workspace. */
  sources(): Omit<InterpreterSources, 'setting'> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    return {
      workspaceFolder: folder?.uri.fsPath,
      trusted: vscode.workspace.isTrusted,
      pythonEnvironments: () => environmentsInterpreter(folder?.uri),
      pythonExtension: () => selectedInterpreter(folder?.uri),
      findOnPath: (name) => findOnPath(name),
      isExecutable: isExecutableFile,
    };
  }

  /** The interpreter to start with (`setting`, else the first candidate that can export), or
   * why there is none. `onFirst` hears the first candidate before any probe: the one nearly
   * always chosen, whose server may start meanwhile. */
  async find(setting: string, onFirst: (python: string) => void): Promise<Choice | Unresolved> {
    const found = await candidates({ ...this.sources(), setting });
    if (!Array.isArray(found)) {
      return found;
    }
    onFirst(found[0]?.path ?? '');
    const needsTorch = exportsUnsupported() === undefined;
    const choice = await choose(found, (python) => checkInterpreter(python, runFile, 30000, needsTorch));
    for (const { candidate, check } of choice.tried) {
      const verdict = check.kind === 'ok' ? `torch ${check.torch}` : check.short;
      this.log.info(`interpreter: ${candidate.path} (from ${SOURCE_LABELS[candidate.source]}): ${verdict}`);
    }
    if (choice.check.kind === 'problem') {
      this.notifyOnce(choice.tried);
    }
    return choice;
  }

  private notifyOnce(tried: Choice['tried']): void {
    if (this.notified) {
      return;
    }
    this.notified = true;
    void vscode.window.showWarningMessage(nothingUsable(tried), 'Select interpreter', 'Show logs').then((pick) => {
      if (pick === 'Select interpreter') {
        void vscode.commands.executeCommand(SELECT_INTERPRETER_COMMAND);
      } else if (pick === 'Show logs') {
        this.log.show(true);
      }
    });
  }
}
