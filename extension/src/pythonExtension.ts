/**
 * The interpreter other extensions selected, when they are installed: the Python Environments
 * extension (ms-python.vscode-python-envs, what the Python tool extensions moved to in 2026) and
 * the Python extension (ms-python.python, its `environments` API). Optional: nothing here fails
 * when an extension is missing or its API shape differs; interpreter.ts then tries the next
 * source. Only the slices of their APIs used here are typed.
 */
import * as vscode from 'vscode';

const PYTHON_ENVIRONMENTS_ID = 'ms-python.vscode-python-envs';
const PYTHON_EXTENSION_ID = 'ms-python.python';

/** The Python Environments extension's API (its exports). */
interface PythonEnvironmentsApi {
  getEnvironment?(scope: vscode.Uri | undefined): Promise<{ execInfo?: { run?: { executable?: string } } } | undefined>;
  onDidChangeEnvironment?: vscode.Event<unknown>;
}

/** The Python extension's `environments` API (2023+). */
interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    resolveEnvironment(
      environment: { path: string } | string,
    ): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
}

async function exportsOf<Api>(id: string): Promise<Api | undefined> {
  const extension = vscode.extensions.getExtension<Api>(id);
  if (extension === undefined) {
    return undefined;
  }
  try {
    return extension.isActive ? extension.exports : await extension.activate();
  } catch {
    return undefined;
  }
}

/** The Python Environments extension's environment for `resource`, if any. */
export async function environmentsInterpreter(resource: vscode.Uri | undefined): Promise<string | undefined> {
  const api = await exportsOf<PythonEnvironmentsApi>(PYTHON_ENVIRONMENTS_ID);
  const environment = await api?.getEnvironment?.(resource);
  return environment?.execInfo?.run?.executable;
}

/** The interpreter the Python extension selected for `resource`, if any. */
export async function selectedInterpreter(resource: vscode.Uri | undefined): Promise<string | undefined> {
  const environments = (await exportsOf<PythonExtensionApi>(PYTHON_EXTENSION_ID))?.environments;
  if (environments === undefined) {
    return undefined;
  }
  const active = environments.getActiveEnvironmentPath(resource);
  if (active === undefined) {
    return undefined;
  }
  const resolved = await environments.resolveEnvironment(active);
  return resolved?.executable.uri?.fsPath ?? active.path;
}

/** Calls `listener` when the user selects another interpreter in either extension: once for a
 * selection both report (the Python extension follows the Python Environments one). */
export async function onInterpreterChange(listener: () => void): Promise<vscode.Disposable> {
  const events = [
    (await exportsOf<PythonEnvironmentsApi>(PYTHON_ENVIRONMENTS_ID))?.onDidChangeEnvironment,
    (await exportsOf<PythonExtensionApi>(PYTHON_EXTENSION_ID))?.environments?.onDidChangeActiveEnvironmentPath,
  ];
  let pending: NodeJS.Timeout | undefined;
  const changed = (): void => {
    clearTimeout(pending);
    pending = setTimeout(listener, 500);
  };
  const subscriptions = events.flatMap((event) => (event !== undefined ? [event(changed)] : []));
  return vscode.Disposable.from(...subscriptions, new vscode.Disposable(() => clearTimeout(pending)));
}
