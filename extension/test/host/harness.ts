/**
 * A tiny test harness for the extension host (code-server runs `run()`; no mocha here).
 * Each result is printed as one console line the runner (runner/host.ts) relays.
 *
 * A case also fails when an error notification was shown while it ran (or before it, since
 * the previous case ended) that it did not expect: vscode.window.showErrorMessage is wrapped,
 * which the extension, and its language client for a server's window/showMessage, call on
 * this same API object. The runner also watches the page for any error notification and
 * allows only the ones reported here as expected.
 */
import * as vscode from 'vscode';

export const PREFIX = 'EXPORTLENS-TEST';
export const EXPECTED_ERROR = '# expected error notification: ';

interface Case {
  name: string;
  fn: () => Promise<void>;
  timeoutMs: number;
}

const cases: Case[] = [];

export function test(name: string, fn: () => Promise<void>, timeoutMs = 180000): void {
  cases.push({ name, fn, timeoutMs });
}

function report(line: string): void {
  console.log(`${PREFIX} ${line}`);
}

let shownErrors: string[] = [];
let expectedErrors: RegExp[] = [];

/** The current case is meant to make an error notification matching `pattern` (and fails
 *  if it does not). */
export function expectErrorNotification(pattern: RegExp): void {
  expectedErrors.push(pattern);
}

function watchErrorNotifications(): void {
  type Show = (this: unknown, ...args: unknown[]) => Thenable<unknown>;
  const api = vscode.window as unknown as { showErrorMessage: Show };
  const original = api.showErrorMessage;
  const wrapper: Show = function (...args) {
    shownErrors.push(String(args[0]));
    return original.apply(this, args);
  };
  api.showErrorMessage = wrapper;
  if (api.showErrorMessage !== wrapper) {
    throw new Error('cannot watch vscode.window.showErrorMessage: the harness would miss error notifications');
  }
}

/** Every warning notification shown so far, in order (a case that counts them reads this). */
export const shownWarnings: string[] = [];

function watchWarningNotifications(): void {
  type Show = (this: unknown, ...args: unknown[]) => Thenable<unknown>;
  const api = vscode.window as unknown as { showWarningMessage: Show };
  const original = api.showWarningMessage;
  api.showWarningMessage = function (...args) {
    shownWarnings.push(String(args[0]));
    return original.apply(this, args);
  };
}

/** Problems with the error notifications since the last call; empties the record. */
function notificationProblems(): string[] {
  const shown = shownErrors;
  const expected = expectedErrors;
  shownErrors = [];
  expectedErrors = [];
  const problems: string[] = [];
  for (const message of shown) {
    if (expected.some((p) => p.test(message))) {
      report(`${EXPECTED_ERROR}${message}`);
    } else {
      problems.push(`error notification shown: «${message}»`);
    }
  }
  for (const pattern of expected) {
    if (!shown.some((m) => pattern.test(m))) {
      problems.push(`expected an error notification matching ${String(pattern)}, none was shown`);
    }
  }
  return problems;
}

export async function runAll(): Promise<void> {
  watchErrorNotifications();
  watchWarningNotifications();
  let passed = 0;
  let failed = 0;
  const settle = async (): Promise<void> => new Promise((r) => setTimeout(r, 2000));
  // EXPORTLENS_HOST_ONLY=<part of a case's name>: those cases alone (a quick run of one change)
  const only = process.env.EXPORTLENS_HOST_ONLY;
  const chosen = only ? cases.filter((c) => c.name.includes(only)) : cases;
  const all = [...chosen, { name: 'no error notification after the last case', fn: settle, timeoutMs: 10000 }];
  for (const c of all) {
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const problems: string[] = [];
    try {
      await Promise.race([
        c.fn(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`timed out after ${c.timeoutMs / 1000} s`)), c.timeoutMs);
        }),
      ]);
    } catch (error) {
      problems.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
    } finally {
      clearTimeout(timer);
    }
    problems.push(...notificationProblems());
    const took = `(${((Date.now() - started) / 1000).toFixed(1)} s)`;
    if (problems.length === 0) {
      passed++;
      report(`ok ${c.name} ${took}`);
    } else {
      failed++;
      report(`not ok ${c.name} ${took}: ${problems.join('\n').replace(/\n/g, '\n    ')}`);
    }
  }
  report(`${passed} passed, ${failed} failed`);
  if (failed > 0) {
    throw new Error(`${failed} extension-host test(s) failed`);
  }
}

/** Polls `probe` until it returns a value (not undefined), or throws with `what`. */
export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 150000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`waited ${timeoutMs / 1000} s for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
