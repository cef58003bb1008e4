/**
 * The frame of a one-editor Playwright scenario (graphUi.ts, onnxUi.ts): named checks printed as
 * `ok` / `not ok`, the scenario's own error as a failed check with a screenshot of the page, the
 * editor always stopped, and an exit code that also fails when fewer checks ran than expected.
 */
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { stopOnSignals, type Editor } from './editor';
import { describe } from './notifications';

export type Check = (name: string, ok: boolean, detail: string) => void;

export async function runScenario(
  title: string,
  expected: number,
  editor: Editor,
  body: (page: Page, check: Check) => Promise<void>,
): Promise<number> {
  stopOnSignals(() => editor.stop());
  const results: boolean[] = [];
  const check: Check = (name, ok, detail) => {
    console.log(ok ? `ok ${name}` : `not ok ${name}: ${detail}`);
    results.push(ok);
  };
  const page = editor.page;
  try {
    await body(page, check);
    const errors = editor.notices.errorsSince(0);
    check('no error notification', errors.length === 0, describe(errors));
  } catch (error) {
    check(`the ${title} scenario ran to its end`, false, error instanceof Error ? error.message : String(error));
    await page.screenshot({ path: path.join(editor.runDir, 'failed.png') }).catch(() => undefined);
  } finally {
    await editor.stop();
  }
  const passed = results.filter((r) => r).length;
  console.log(`${title} UI: logs under ${editor.runDir}`);
  console.log(`${passed} passed, ${results.length - passed} failed`);
  return passed === results.length && results.length === expected ? 0 : 1;
}

/** The scenario's process: its exit code, or 1 with the stack of what escaped it. */
export function exitWith(scenario: Promise<number>): void {
  scenario.then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.stack : error);
      process.exit(1);
    },
  );
}
