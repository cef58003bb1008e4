/**
 * The server's process, spawned by us rather than by the language client, so that it can start
 * before the interpreter probe answers: in a busy extension host (git, TypeScript and the rest
 * activating at the same time) each await before the spawn can wait hundreds of ms, and the
 * worker's `import torch` is the longest step to the first squiggle (issue 18). A probe that
 * finds a problem kills the early process before any client sees it, so a Python without torch
 * or too old shows the probe's message, never a "server crashed" one.
 *
 * No `vscode` import: unit-tested with real processes.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface ProcessLaunch {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string | undefined>;
}

/** How long a process may take to exit after the protocol's `exit` before it is killed. */
export const EXIT_GRACE_MS = 2000;

export class ServerProcesses {
  private early: ChildProcess | undefined;
  private readonly live = new Set<ChildProcess>();

  constructor(private readonly onError: (message: string) => void) {}

  /** Starts the server now; `take` hands it to the client later. Replaces an early one not taken. */
  spawnEarly(launch: ProcessLaunch): void {
    this.discardEarly();
    this.early = this.spawn(launch);
  }

  /** The early process if it runs `launch` and is alive, else a fresh one: the client's
   * serverOptions, called again on each of its restarts. */
  take(launch: ProcessLaunch): ChildProcess {
    const early = this.early;
    this.early = undefined;
    if (early !== undefined && isAlive(early) && early.spawnargs.join('\0') === [launch.command, ...launch.args].join('\0')) {
      return early;
    }
    if (early !== undefined) {
      stop(early, 0);
    }
    return this.spawn(launch);
  }

  /** The early process is not wanted (the probe found a problem): killed now. */
  discardEarly(): void {
    const early = this.early;
    this.early = undefined;
    if (early !== undefined) {
      stop(early, 0);
    }
  }

  /** After the client's stop: whatever still runs gets `EXIT_GRACE_MS` to exit, then is killed. */
  stopAll(graceMs = EXIT_GRACE_MS): void {
    this.early = undefined;
    for (const process of this.live) {
      stop(process, graceMs);
    }
  }

  get running(): number {
    return [...this.live].filter(isAlive).length;
  }

  private spawn(launch: ProcessLaunch): ChildProcess {
    const child = spawn(launch.command, launch.args, { cwd: launch.cwd, env: launch.env, stdio: 'pipe' });
    this.live.add(child);
    child.on('exit', () => this.live.delete(child));
    // Without a listener a failed spawn (ENOENT) throws in the extension host; the client then
    // sees a closed stream and reports the server down.
    child.on('error', (error) => {
      this.live.delete(child);
      this.onError(`the server process: ${error.message}`);
    });
    return child;
  }
}

function isAlive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null && child.pid !== undefined;
}

function stop(child: ChildProcess, graceMs: number): void {
  if (!isAlive(child)) {
    return;
  }
  if (graceMs <= 0) {
    child.kill();
    return;
  }
  const timer = setTimeout(() => {
    if (isAlive(child)) {
      child.kill();
    }
  }, graceMs);
  child.once('exit', () => clearTimeout(timer));
}
