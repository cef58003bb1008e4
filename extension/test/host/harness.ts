/**
 * A tiny test harness for the extension host (code-server runs `run()`; no mocha here).
 * Each result is printed as one console line the runner (runner/host.ts) relays.
 */
export const PREFIX = 'EXPORTLENS-TEST';

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

export async function runAll(): Promise<void> {
  let passed = 0;
  let failed = 0;
  for (const c of cases) {
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        c.fn(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`timed out after ${c.timeoutMs / 1000} s`)), c.timeoutMs);
        }),
      ]);
      passed++;
      report(`ok ${c.name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    } catch (error) {
      failed++;
      const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
      report(`not ok ${c.name} (${((Date.now() - started) / 1000).toFixed(1)} s): ${text.replace(/\n/g, '\n    ')}`);
    } finally {
      clearTimeout(timer);
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
