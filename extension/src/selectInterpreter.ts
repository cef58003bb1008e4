/**
 * "ExportLens: Select interpreter" (also the status item's link): the interpreters ExportLens
 * would try, each with what its probe says (torch's version, or what is wrong), and a file
 * picker; the choice becomes `exportlens.interpreter` (the folder's setting in a trusted
 * workspace, else the user's), which restarts the server. With a path argument it sets that one.
 */
import * as vscode from 'vscode';
import { SOURCE_LABELS, candidates, type Candidate, type InterpreterSources } from './interpreter';
import { checkInterpreter, type Check } from './probe';
import { SECTION } from './settings';

interface Pick extends vscode.QuickPickItem {
  path?: string;
}

const BROWSE: Pick = { label: '$(folder-opened) Browse…', description: 'a Python executable with torch' };

function describe(check: Check): string {
  return check.kind === 'ok' ? `$(check) torch ${check.torch} · Python ${check.pythonVersion}` : `$(warning) ${check.short}`;
}

export async function selectInterpreter(
  sources: Omit<InterpreterSources, 'setting'>,
  current: string | undefined,
  chosen?: string,
): Promise<string | undefined> {
  let python = chosen;
  if (python === undefined) {
    python = await pick(sources, current);
  }
  if (python === undefined) {
    return undefined;
  }
  const folder = vscode.workspace.workspaceFolders?.[0];
  // An untrusted folder's own exportlens.interpreter is ignored (restrictedConfigurations).
  const target =
    folder !== undefined && vscode.workspace.isTrusted ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration(SECTION, folder).update('interpreter', python, target);
  return python;
}

async function pick(sources: Omit<InterpreterSources, 'setting'>, current: string | undefined): Promise<string | undefined> {
  const quickPick = vscode.window.createQuickPick<Pick>();
  quickPick.title = 'ExportLens: the Python interpreter with torch to export with';
  quickPick.placeholder = 'Checking the interpreters ExportLens can find…';
  quickPick.busy = true;
  quickPick.items = [BROWSE];
  quickPick.show();
  const found = await candidates({ ...sources, setting: '' });
  const list: Candidate[] = Array.isArray(found) ? [...found] : [];
  if (current !== undefined && !list.some((c) => c.path === current)) {
    list.unshift({ path: current, source: 'setting' }); // the one in use, from the setting
  }
  const checks = await Promise.all(list.map((c) => checkInterpreter(c.path)));
  quickPick.items = [
    ...list.map((candidate, i): Pick => ({
      label: candidate.path,
      description: `${SOURCE_LABELS[candidate.source]}${candidate.path === current ? ' · current' : ''}`,
      detail: describe(checks[i] as Check),
      path: candidate.path,
    })),
    BROWSE,
  ];
  quickPick.placeholder = 'Select an interpreter, or browse for one';
  quickPick.busy = false;
  const selected = await new Promise<Pick | undefined>((resolve) => {
    quickPick.onDidAccept(() => resolve(quickPick.selectedItems[0]));
    quickPick.onDidHide(() => resolve(undefined));
  });
  quickPick.dispose();
  if (selected === undefined) {
    return undefined;
  }
  if (selected.path !== undefined) {
    return selected.path;
  }
  const files = await vscode.window.showOpenDialog({
    canSelectMany: false,
    openLabel: 'Use this interpreter',
    title: 'ExportLens: a Python executable with torch',
  });
  return files?.[0]?.fsPath;
}
