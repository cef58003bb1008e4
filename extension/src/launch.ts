/**
 * How the server process is started: `<python> -c LAUNCHER <server dir> <libs dir> serve`.
 *
 * The bundled pure-Python libraries (pygls, lsprotocol, attrs, cattrs, ...) and the server
 * package go on the SERVER's sys.path by the launcher itself, not through PYTHONPATH: the
 * environment is passed on unchanged, so the export worker the server starts (same
 * interpreter, inherited environment) sees only the user's own packages plus its boot loader.
 * No `vscode` import: unit-tested.
 */
import * as path from 'node:path';

/** Drops the cwd from sys.path (a workspace file named like a library must not shadow it). */
export const LAUNCHER = [
  'import runpy, sys',
  "if sys.path and sys.path[0] in ('', '.'):",
  '    del sys.path[0]',
  'sys.path[0:0] = sys.argv[1:3]',
  "sys.argv = ['exportlens'] + sys.argv[3:]",
  "runpy.run_module('exportlens', run_name='__main__', alter_sys=True)",
].join('\n');

export interface LaunchLayout {
  /** Folder holding the `exportlens` package (the repository's server/). */
  serverDir: string;
  /** Folder the pure-Python dependencies were pip-installed into (--target). */
  libsDir: string;
}

export function layout(extensionRoot: string): LaunchLayout {
  return {
    serverDir: path.join(extensionRoot, 'server'),
    libsDir: path.join(extensionRoot, 'dist', 'libs'),
  };
}

export interface Launch {
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
}

export function serverLaunch(
  python: string,
  where: LaunchLayout,
  baseEnv: Record<string, string | undefined>,
  verbose = false,
  /** A trusted workspace: the server starts the worker before its own imports (early_worker.py). */
  startWorker = false,
): Launch {
  const env = { ...baseEnv };
  // The server's stdout is the protocol: no buffering surprises.
  env.PYTHONUNBUFFERED = '1';
  const args = ['-c', LAUNCHER, where.serverDir, where.libsDir, 'serve'];
  if (verbose) {
    args.push('--verbose');
  }
  if (startWorker) {
    args.push('--start-worker');
  }
  return { command: python, args, env };
}
