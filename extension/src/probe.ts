/**
 * Whether an interpreter can run ExportLens: Python ≥ 3.10, and for exports torch ≥ 2.10 (the
 * oldest tested: older ones report export failures differently). Its torch is found without
 * being imported (an import takes seconds). No `vscode` import: unit-tested.
 */
import { execFile } from 'node:child_process';
import * as os from 'node:os';

/** Prints one JSON line: the executable, its version, torch's version (or null). */
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
/** The oldest torch ExportLens supports: the server's MIN_TORCH (engine/process.py; a test
 * compares them). */
export const MIN_TORCH: readonly [number, number] = [2, 10];

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the process could not be started at all (ENOENT, EACCES, timeout). */
  error?: string;
}

export type Runner = (file: string, args: string[], timeoutMs: number) => Promise<RunResult>;

/** What went wrong, for the status item and the one notification: `interpreter` can be fixed
 * by choosing another interpreter (or installing torch there). */
export type ProblemKind = 'interpreter' | 'no-torch' | 'old-torch';

export type Check =
  | { kind: 'ok'; python: string; executable: string; pythonVersion: string; torch: string }
  | { kind: 'problem'; python: string; message: string; problem: ProblemKind; short: string };

/** major.minor of a version string (`2.9.0`, `2.10.0+cpu`, `2.11.0.dev20260101`), or undefined. */
export function majorMinor(version: string): [number, number] | undefined {
  const match = /^(\d+)\.(\d+)/.exec(version);
  return match === null ? undefined : [Number(match[1]), Number(match[2])];
}

function older(version: readonly [number, number], than: readonly [number, number]): boolean {
  return version[0] < than[0] || (version[0] === than[0] && version[1] < than[1]);
}

/** `needsTorch` false: a machine that runs no exports (native Windows) needs the server only. */
export async function checkInterpreter(
  python: string,
  run: Runner = runFile,
  timeoutMs = 30000,
  needsTorch = true,
): Promise<Check> {
  const result = await run(python, ['-c', PROBE], timeoutMs);
  /** `short`: the few words a list of the interpreters tried says of this one. */
  const problem = (message: string, short: string, kind: ProblemKind = 'interpreter'): Check => ({
    kind: 'problem',
    python,
    message,
    problem: kind,
    short,
  });
  if (result.error !== undefined) {
    return problem(`cannot run ${python}: ${result.error} — select an interpreter (exportlens.interpreter).`, result.error);
  }
  const line = result.stdout.trim().split('\n').pop() ?? '';
  let info: { executable?: string; version?: number[]; torch?: string | null };
  try {
    info = JSON.parse(line) as typeof info;
  } catch {
    const detail = result.stderr.trim().split('\n').pop() ?? `exit status ${String(result.code)}`;
    return problem(
      `${python} is not a working Python (${detail}) — select an interpreter (exportlens.interpreter).`,
      'not a working Python',
    );
  }
  const version = info.version ?? [0, 0, 0];
  const versionText = version.join('.');
  const [major = 0, minor = 0] = version;
  if (older([major, minor], MIN_PYTHON)) {
    return problem(
      `${python} is Python ${versionText}; ExportLens needs ${MIN_PYTHON.join('.')} or newer — select another interpreter.`,
      `Python ${versionText}`,
    );
  }
  const torch = info.torch ?? undefined;
  if (needsTorch && torch === undefined) {
    return problem(`torch not found in ${python} — select an interpreter or pip install torch.`, 'no torch', 'no-torch');
  }
  const torchVersion = torch === undefined ? undefined : majorMinor(torch);
  if (needsTorch && torchVersion !== undefined && older(torchVersion, MIN_TORCH)) {
    const oldest = MIN_TORCH.join('.');
    return problem(
      `torch ${torch} in ${python} is too old: ExportLens needs torch ≥ ${oldest} — select another interpreter, or upgrade it there (pip install -U 'torch>=${oldest}').`,
      `torch ${torch}, too old`,
      'old-torch',
    );
  }
  return {
    kind: 'ok',
    python,
    executable: info.executable ?? python,
    pythonVersion: versionText,
    torch: torch ?? 'none',
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
