/**
 * Which Python runs the server, and whether it can export (has torch).
 *
 * Order: the `exportlens.interpreter` setting; else the Python extension's selected
 * interpreter (when that extension is installed: no hard dependency); else `python3`
 * (then `python`) on PATH. No `vscode` import: the sources are passed in, so the
 * order and the messages are unit-tested with node's test runner.
 */
import { execFile } from 'node:child_process';
import { constants as fsConstants, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export type InterpreterSource = 'setting' | 'python-extension' | 'path';

export interface Resolved {
  kind: 'resolved';
  path: string;
  source: InterpreterSource;
}

export interface Unresolved {
  kind: 'unresolved';
  /** One sentence: what is wrong and how to fix it. */
  message: string;
}

export interface InterpreterSources {
  /** `exportlens.interpreter`, as typed (may hold `~` or `${workspaceFolder}`). */
  setting: string;
  /** The first workspace folder's path, for `${workspaceFolder}` and relative settings. */
  workspaceFolder: string | undefined;
  /** The Python extension's interpreter for the workspace; undefined when absent or unset. */
  pythonExtension: () => Promise<string | undefined>;
  /** Absolute path of an executable on PATH, or undefined. */
  findOnPath: (name: string) => Promise<string | undefined>;
  isExecutable: (file: string) => Promise<boolean>;
}

export const PATH_CANDIDATES = ['python3', 'python'] as const;

/** `~`, `${workspaceFolder}`, `${userHome}` and paths relative to the workspace folder. */
export function expandSetting(value: string, workspaceFolder: string | undefined, home = os.homedir()): string {
  let out = value.trim();
  out = out.replace(/\$\{userHome\}/g, home);
  if (workspaceFolder !== undefined) {
    out = out.replace(/\$\{workspaceFolder\}/g, workspaceFolder);
  }
  if (out === '~' || out.startsWith('~/')) {
    out = path.join(home, out.slice(1));
  }
  if (out.includes(path.sep) && !path.isAbsolute(out) && workspaceFolder !== undefined) {
    out = path.resolve(workspaceFolder, out);
  }
  return out;
}

export async function resolveInterpreter(sources: InterpreterSources): Promise<Resolved | Unresolved> {
  if (sources.setting.trim() !== '') {
    const expanded = expandSetting(sources.setting, sources.workspaceFolder);
    const found = path.isAbsolute(expanded) ? expanded : await sources.findOnPath(expanded);
    if (found !== undefined && (await sources.isExecutable(found))) {
      return { kind: 'resolved', path: found, source: 'setting' };
    }
    return {
      kind: 'unresolved',
      message: `exportlens.interpreter is "${sources.setting}", which is not an executable file — fix the setting or clear it to use the Python extension's interpreter or python3 on PATH.`,
    };
  }
  const fromExtension = await sources.pythonExtension().catch(() => undefined);
  if (fromExtension !== undefined && fromExtension !== '' && (await sources.isExecutable(fromExtension))) {
    return { kind: 'resolved', path: fromExtension, source: 'python-extension' };
  }
  for (const name of PATH_CANDIDATES) {
    const found = await sources.findOnPath(name);
    if (found !== undefined) {
      return { kind: 'resolved', path: found, source: 'path' };
    }
  }
  return {
    kind: 'unresolved',
    message:
      'No Python interpreter found (python3 is not on PATH) — set exportlens.interpreter to a Python that has torch, or select one with the Python extension.',
  };
}

export async function isExecutableFile(file: string): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    await fs.access(file, fsConstants.X_OK);
    return stat.isFile();
  } catch {
    return false;
  }
}

/** `which`: the first executable `name` in the PATH string. */
export async function findOnPath(
  name: string,
  pathVariable: string | undefined = process.env.PATH,
  isExecutable: (file: string) => Promise<boolean> = isExecutableFile,
): Promise<string | undefined> {
  for (const dir of (pathVariable ?? '').split(path.delimiter)) {
    if (dir === '') {
      continue;
    }
    const candidate = path.join(dir, name);
    if (await isExecutable(candidate)) {
      return candidate;
    }
  }
  return undefined;
}

// -- checking the interpreter ------------------------------------------------

/** Finds torch WITHOUT importing it (an import takes seconds); prints one JSON line. */
export const PROBE = [
  'import json, sys',
  'info = {"executable": sys.executable, "version": list(sys.version_info[:3]), "torch": None}',
  'try:',
  '    import importlib.metadata, importlib.util',
  '    if importlib.util.find_spec("torch") is not None:',
  '        info["torch"] = importlib.metadata.version("torch")',
  'except Exception as exc:',
  '    info["error"] = repr(exc)',
  'print(json.dumps(info))',
].join('\n');

export const MIN_PYTHON: readonly [number, number] = [3, 10];

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the process could not be started at all (ENOENT, EACCES, timeout). */
  error?: string;
}

export type Runner = (file: string, args: string[], timeoutMs: number) => Promise<RunResult>;

export type Check =
  | { kind: 'ok'; python: string; executable: string; pythonVersion: string; torch: string }
  | { kind: 'problem'; python: string; message: string };

export async function checkInterpreter(python: string, run: Runner = runFile, timeoutMs = 30000): Promise<Check> {
  const result = await run(python, ['-c', PROBE], timeoutMs);
  const problem = (message: string): Check => ({ kind: 'problem', python, message });
  if (result.error !== undefined) {
    return problem(`cannot run ${python}: ${result.error} — select an interpreter (exportlens.interpreter).`);
  }
  const line = result.stdout.trim().split('\n').pop() ?? '';
  let info: { executable?: string; version?: number[]; torch?: string | null };
  try {
    info = JSON.parse(line) as typeof info;
  } catch {
    const detail = result.stderr.trim().split('\n').pop() ?? `exit status ${String(result.code)}`;
    return problem(`${python} is not a working Python (${detail}) — select an interpreter (exportlens.interpreter).`);
  }
  const version = info.version ?? [0, 0, 0];
  const versionText = version.join('.');
  const [major = 0, minor = 0] = version;
  if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
    return problem(
      `${python} is Python ${versionText}; ExportLens needs ${MIN_PYTHON.join('.')} or newer — select another interpreter.`,
    );
  }
  if (info.torch === null || info.torch === undefined) {
    return problem(`torch not found in ${python} — select an interpreter or pip install torch.`);
  }
  return {
    kind: 'ok',
    python,
    executable: info.executable ?? python,
    pythonVersion: versionText,
    torch: info.torch,
  };
}

/** Runs a program, never rejects. cwd is a neutral folder: `-c` puts the cwd on sys.path. */
export function runFile(file: string, args: string[], timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: timeoutMs, cwd: os.tmpdir(), encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error !== null && typeof error.code === 'string') {
        resolve({ code: null, stdout, stderr, error: error.code === 'ENOENT' ? 'no such file' : error.message });
      } else if (error !== null && error.killed === true) {
        resolve({ code: null, stdout, stderr, error: `no answer within ${timeoutMs / 1000} s` });
      } else {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
      }
    });
  });
}
