import * as assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import * as os from 'node:os';
import { test } from 'node:test';
import { ServerProcesses, type ProcessLaunch } from '../../src/serverProcess';

/** A stand-in server: echoes a line of stdin back (so the stream is the process's own). */
function launch(tag: string): ProcessLaunch {
  const script = `process.stdin.once('data', (d) => process.stdout.write('${tag}:' + d)); setInterval(() => {}, 1000);`;
  return { command: process.execPath, args: ['-e', script], cwd: os.tmpdir(), env: process.env };
}

async function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    await once(child, 'exit');
  }
}

async function echo(child: ChildProcess, line: string): Promise<string> {
  if (child.stdin === null || child.stdout === null) {
    throw new Error('spawned without pipes');
  }
  child.stdin.write(line);
  const [data] = (await once(child.stdout, 'data')) as [Buffer];
  return data.toString();
}

test('the process spawned early is the one the client takes, once; a restart spawns a fresh one', async () => {
  const processes = new ServerProcesses(() => undefined);
  processes.spawnEarly(launch('early'));
  const first = processes.take(launch('early'));
  assert.equal(await echo(first, 'hi\n'), 'early:hi\n', 'what the early process wrote before the client came is kept');
  const second = processes.take(launch('early'));
  assert.notEqual(second.pid, first.pid);
  assert.equal(processes.running, 2);
  processes.stopAll(50);
  await Promise.all([exited(first), exited(second)]);
  assert.equal(processes.running, 0);
});

test('an early process of another command is killed and a fresh one started', async () => {
  const processes = new ServerProcesses(() => undefined);
  processes.spawnEarly(launch('old'));
  const taken = processes.take(launch('new'));
  assert.equal(await echo(taken, 'x\n'), 'new:x\n');
  processes.stopAll(0);
  await exited(taken);
});

test('a probe that finds a problem kills the early process', async () => {
  const processes = new ServerProcesses(() => undefined);
  processes.spawnEarly(launch('early'));
  const running = (): number => processes.running;
  assert.equal(running(), 1);
  processes.discardEarly();
  for (let i = 0; i < 100 && running() > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(running(), 0);
});

test('a command that cannot start is reported, not thrown', async () => {
  const errors: string[] = [];
  const processes = new ServerProcesses((message) => errors.push(message));
  const child = processes.take({ command: '/no/such/python', args: [], cwd: os.tmpdir(), env: {} });
  await once(child, 'error').catch(() => undefined);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(errors.length, 1);
  assert.match(errors[0] ?? '', /ENOENT/);
});
