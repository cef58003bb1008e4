/**
 * Which Python runs the server and its exports.
 *
 * The `exportlens.interpreter` setting, when set, is the one (an error if it is not there: never
 * a silent fallback). Otherwise the candidates, in order: the Python Environments extension's
 * environment for the workspace, the Python extension's selected interpreter (both optional:
 * no hard dependency, pythonExtension.ts), the workspace's `.venv` / `venv` (not in an untrusted
 * workspace: its files do not run), `python3` then `python` on PATH. The first whose probe finds
 * a usable torch is chosen (probe.ts); when none has, the first one, with what is wrong.
 * No `vscode` import: the sources are passed in, so the order and the messages are unit-tested.
 */
import { constants as fsConstants, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Check } from './probe';

export type InterpreterSource = 'setting' | 'python-environments' | 'python-extension' | 'workspace' | 'path';

/** How a source is named to the user (the log, the Select interpreter picker). */
export const SOURCE_LABELS: Record<InterpreterSource, string> = {
  setting: 'exportlens.interpreter',
  'python-environments': 'Python Environments extension',
  'python-extension': 'Python extension',
  workspace: "the workspace's virtual environment",
  path: 'PATH',
};

export interface Candidate {
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
  /** The first workspace folder's path, for `${workspaceFolder}`, relative settings and its venv. */
  workspaceFolder: string | undefined;
  /** Workspace trust: an untrusted folder's own `.venv/bin/python` is never run. */
  trusted: boolean;
  /** The Python Environments extension's environment for the workspace; undefined when absent. */
  pythonEnvironments: () => Promise<string | undefined>;
  /** The Python extension's interpreter for the workspace; undefined when absent or unset. */
  pythonExtension: () => Promise<string | undefined>;
  /** Absolute path of an executable on PATH, or undefined. */
  findOnPath: (name: string) => Promise<string | undefined>;
  isExecutable: (file: string) => Promise<boolean>;
  platform?: NodeJS.Platform;
}

export const PATH_CANDIDATES = ['python3', 'python'] as const;
export const WORKSPACE_VENVS = ['.venv', 'venv'] as const;

/** A virtual environment's interpreter. */
export function venvPython(venv: string, platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? path.join(venv, 'Scripts', 'python.exe') : path.join(venv, 'bin', 'python');
}

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

/** The interpreters to try, in order (the setting alone when it is set), or why there is none. */
export async function candidates(sources: InterpreterSources): Promise<Candidate[] | Unresolved> {
  if (sources.setting.trim() !== '') {
    const expanded = expandSetting(sources.setting, sources.workspaceFolder);
    const found = path.isAbsolute(expanded) ? expanded : await sources.findOnPath(expanded);
    if (found !== undefined && (await sources.isExecutable(found))) {
      return [{ path: found, source: 'setting' }];
    }
    return {
      kind: 'unresolved',
      message: `exportlens.interpreter is "${sources.setting}", which is not an executable file — fix the setting or clear it to use the Python extension's interpreter or python3 on PATH.`,
    };
  }
  const found: Candidate[] = [];
  const add = async (file: string | undefined, source: InterpreterSource): Promise<void> => {
    if (file !== undefined && file !== '' && !found.some((c) => c.path === file) && (await sources.isExecutable(file))) {
      found.push({ path: file, source });
    }
  };
  await add(await sources.pythonEnvironments().catch(() => undefined), 'python-environments');
  await add(await sources.pythonExtension().catch(() => undefined), 'python-extension');
  if (sources.trusted && sources.workspaceFolder !== undefined) {
    for (const venv of WORKSPACE_VENVS) {
      await add(venvPython(path.join(sources.workspaceFolder, venv), sources.platform), 'workspace');
    }
  }
  for (const name of PATH_CANDIDATES) {
    await add(await sources.findOnPath(name), 'path');
  }
  if (found.length === 0) {
    return {
      kind: 'unresolved',
      message:
        'No Python interpreter found (python3 is not on PATH) — set exportlens.interpreter to a Python that has torch, or select one with the Python extension.',
    };
  }
  return found;
}

export interface Choice {
  chosen: Candidate;
  check: Check;
  /** Every candidate probed, in order, with what its probe said. */
  tried: { candidate: Candidate; check: Check }[];
}

/** The first candidate whose probe is ok (probed one at a time: usually the first is); when
 * none is, the first candidate and its problem. */
export async function choose(list: readonly Candidate[], probe: (python: string) => Promise<Check>): Promise<Choice> {
  const tried: Choice['tried'] = [];
  for (const candidate of list) {
    const check = await probe(candidate.path);
    tried.push({ candidate, check });
    if (check.kind === 'ok') {
      return { chosen: candidate, check, tried };
    }
  }
  const [first] = tried;
  if (first === undefined) {
    throw new Error('choose() needs at least one candidate');
  }
  return { chosen: first.candidate, check: first.check, tried };
}

/** The one notification when no candidate can export: each tried, with what is wrong. */
export function nothingUsable(tried: Choice['tried']): string {
  const list = tried
    .map(({ candidate, check }) => `${candidate.path} (${check.kind === 'problem' ? check.short : 'ok'})`)
    .join(', ');
  return `ExportLens found no Python with torch to export with: ${list}. Select an interpreter that has torch, or install torch into one.`;
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
  platform: NodeJS.Platform = process.platform,
): Promise<string | undefined> {
  const file = platform === 'win32' && !name.toLowerCase().endsWith('.exe') ? `${name}.exe` : name;
  for (const dir of (pathVariable ?? '').split(path.delimiter)) {
    if (dir === '') {
      continue;
    }
    const candidate = path.join(dir, file);
    if (await isExecutable(candidate)) {
      return candidate;
    }
  }
  return undefined;
}
