/**
 * The Python extension (ms-python.python), when installed: its selected interpreter and
 * its change event. Optional: nothing here fails when the extension is missing or its API
 * shape differs; ExportLens then falls back to PATH (interpreter.ts).
 */
import * as vscode from 'vscode';

const PYTHON_EXTENSION_ID = 'ms-python.python';

/** The slice of the Python extension's API used here (its `environments` API, 2023+). */
interface PythonEnvironmentsApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    resolveEnvironment(
      environment: { path: string } | string,
    ): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
}

async function api(): Promise<PythonEnvironmentsApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonEnvironmentsApi>(PYTHON_EXTENSION_ID);
  if (extension === undefined) {
    return undefined;
  }
  try {
    return extension.isActive ? extension.exports : await extension.activate();
  } catch {
    return undefined;
  }
}

/** The interpreter the Python extension selected for `resource`, if any. */
export async function selectedInterpreter(resource: vscode.Uri | undefined): Promise<string | undefined> {
  const environments = (await api())?.environments;
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

/** Calls `listener` when the user selects another interpreter in the Python extension. */
export async function onInterpreterChange(listener: () => void): Promise<vscode.Disposable> {
  const event = (await api())?.environments?.onDidChangeActiveEnvironmentPath;
  return event !== undefined ? event(() => listener()) : new vscode.Disposable(() => undefined);
}
