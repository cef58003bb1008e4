/**
 * `make ext-ui`: the packaged .vsix installed in a real code-server, driven like a user with
 * Playwright (Debian's chromium, headless): open a failing model, wait for the squiggle,
 * hover it, run "Export this module", then export a clean model and see its ATen graph.
 * Each step is screenshotted into dist/screenshots/ (look at them); `make screenshots` copies
 * them into docs/screenshots/, which the README shows. A step fails when an error
 * notification appeared during it, and the run ends by reading the notification center.
 */
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { EXTENSION_ID } from '../extensionId';
import { ROOT, SHOTS, packagedScenario, startEditor, stopOnSignals, type Editor } from './editor';
import { chooseFix, offeredFix, provenCond } from './quickFix';
import { describe, openNotificationCenter } from './notifications';
import { outputLogFile, outputLogProblems } from './outputLog';

const SLOW = 180000;

interface Step {
  name: string;
  run: (page: Page) => Promise<void>;
}

async function shot(page: Page, file: string): Promise<void> {
  await page.waitForTimeout(400); // let hovers / animations settle
  await page.screenshot({ path: path.join(SHOTS, file) });
  console.log(`  screenshot ${path.relative(ROOT, SHOTS)}/${file}`);
}

async function palette(page: Page, title: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`>${title}`);
  const row = page.locator(`.quick-input-list .monaco-list-row[aria-label*="${title}"]`).first();
  await row.waitFor({ state: 'visible', timeout: 20000 });
  await page.keyboard.press('Enter');
}

async function goToLine(page: Page, line: number): Promise<void> {
  await page.keyboard.press('Control+G');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`:${line}`);
  await page.keyboard.press('Enter');
}

async function openFile(page: Page, name: string): Promise<void> {
  await page.locator(`.explorer-folders-view .monaco-list-row[aria-label*="${name}"]`).first().click();
  await page.locator(`.tabs-container .tab.active[aria-label*="${name}"]`).waitFor({ timeout: 30000 });
}

function editorWith(page: Page, text: string): Locator {
  return page.locator('.monaco-editor .view-lines', { hasText: text.replace(/ /g, '\u00a0') }).first();
}

const steps: Step[] = [
  {
    name: 'the failing model opens in the workbench',
    run: async (page) => {
      await page.locator('.explorer-folders-view .monaco-list-row[aria-label*="guarded.py"]').waitFor({ timeout: 90000 });
      await openFile(page, 'guarded.py');
      await editorWith(page, 'class Guarded').waitFor({ timeout: 30000 });
      await shot(page, '01-open-failing-model.png');
    },
  },
  {
    name: 'the refused line gets an error squiggle',
    run: async (page) => {
      await page.locator('.monaco-editor .squiggly-error').first().waitFor({ state: 'attached', timeout: SLOW });
      await page.locator('.codelens-decoration', { hasText: /^✗ \d+ export issue/ }).first().waitFor({ timeout: 30000 });
      await shot(page, '02-squiggle-and-lens.png');
    },
  },
  {
    name: 'hovering the squiggle explains why',
    run: async (page) => {
      const squiggle = page.locator('.monaco-editor .squiggly-error').first();
      const box = await squiggle.boundingBox();
      if (box === null) {
        throw new Error('the squiggle has no box');
      }
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.locator('.monaco-hover', { hasText: 'data-dependent-branch' }).first().waitFor({ timeout: 20000 });
      await shot(page, '03-hover-explains.png');
      await page.mouse.move(5, 400);
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+B'); // hide the side bar: room for the graph beside
    },
  },
  {
    name: '"Export this module" says why there is no graph, beside the editor',
    run: async (page) => {
      await editorWith(page, 'class Guarded').click();
      await goToLine(page, 8);
      await palette(page, 'ExportLens: Export this module');
      await page.locator('.tabs-container .tab[aria-label*="Guarded.aten.py"]').waitFor({ timeout: SLOW });
      await editorWith(page, 'No graph').waitFor({ timeout: 30000 });
      await shot(page, '04-export-failing-module.png');
    },
  },
  {
    name: 'the Problems panel lists the finding',
    run: async (page) => {
      await page.keyboard.press('Control+Shift+M');
      const row = page.locator('.markers-panel .monaco-list-row', { hasText: 'data-dependent-branch' }).first();
      await row.waitFor({ timeout: 20000 });
      // The message starts with the cause (the panel cuts it at its width), the tracer after it.
      const message = (await row.textContent()) ?? '';
      const cause = message.indexOf('A Python `if`/`while` decides on a tensor');
      if (cause < 0 || message.indexOf('refused `Guarded`') < cause) {
        throw new Error(`the Problems panel's message does not start with the cause: «${message}»`);
      }
      await shot(page, '05-problems-panel.png');
      await page.keyboard.press('Control+Shift+M');
    },
  },
  {
    name: 'the torch.cond quick-fix, proven in the worker, rewrites the branch and the squiggle goes',
    run: async (page) => {
      await editorWith(page, 'class Guarded').click();
      await goToLine(page, 8);
      const index = await offeredFix(page, provenCond, SLOW);
      if (index < 0) {
        throw new Error('no proven torch.cond quick-fix was offered');
      }
      await shot(page, '05b-quick-fix-menu.png');
      await chooseFix(page, index);
      await editorWith(page, 'torch.cond(').waitFor({ timeout: 30000 });
      await page.locator('.monaco-editor .squiggly-error').first().waitFor({ state: 'detached', timeout: SLOW });
      await shot(page, '05c-after-quick-fix.png');
      await page.keyboard.press('Control+S'); // the next step closes every editor
    },
  },
  {
    name: 'a clean model exports and its ATen graph opens beside it',
    run: async (page) => {
      await page.keyboard.press('Control+K');
      await page.keyboard.press('Control+W'); // close all editors
      await page.keyboard.press('Control+B'); // the side bar back, to open the file
      await openFile(page, 'clean_mlp.py');
      await page.keyboard.press('Control+B');
      await page.locator('.codelens-decoration', { hasText: '✓ exports' }).first().waitFor({ timeout: SLOW });
      await editorWith(page, 'class TinyMLP').click();
      await goToLine(page, 13);
      await palette(page, 'ExportLens: Export this module');
      await page.locator('.tabs-container .tab[aria-label*="TinyMLP.aten.py"]').waitFor({ timeout: SLOW });
      await editorWith(page, 'aten.').waitFor({ timeout: 30000 });
      await shot(page, '06-export-clean-module-graph.png');
    },
  },
  {
    name: 'the language status item shows torch and the mode',
    run: async (page) => {
      // clean_mlp.py is still the active editor: its language is Python
      // the `{}` beside the language name; hovering it lists the language status items
      const item = page.locator('[id="status.languageStatus"]');
      await item.waitFor({ timeout: 20000 });
      await item.hover();
      await page.locator('.monaco-hover:not(.hidden)', { hasText: 'torch' }).first().waitFor({ timeout: 20000 });
      await shot(page, '07-language-status.png');
      await page.keyboard.press('Escape');
    },
  },
  {
    name: 'Select interpreter lists the interpreters, each with its torch',
    run: async (page) => {
      await palette(page, 'ExportLens: Select interpreter');
      const current = page.locator('.quick-input-list .monaco-list-row', { hasText: 'current' });
      await current.filter({ hasText: 'torch 2.' }).first().waitFor({ timeout: 30000 });
      await shot(page, '08-select-interpreter.png');
      await page.keyboard.press('Escape');
    },
  },
];

/** The last check: the notification center lists no error (one a step's watch missed, or that
 *  came after the last step). Also prints every notification of the run, for the log. */
async function notificationCenterClean(editor: Editor): Promise<boolean> {
  const name = 'the notification center holds no error notification';
  const mark = editor.notices.mark;
  let problem: string | undefined;
  try {
    const rows = await openNotificationCenter(editor.page, path.join(editor.runDir, 'notification-center.png'));
    console.log(`  notification center: ${rows} row(s)`);
  } catch (error) {
    problem = `could not read it: ${error instanceof Error ? error.message : String(error)}`;
  }
  for (const notice of editor.notices.all()) {
    console.log(`  notification [${notice.severity}] at ${(notice.at / 1000).toFixed(1)} s: ${notice.message}`);
  }
  const errors = editor.notices.errorsSince(mark);
  if (errors.length > 0) {
    problem = [problem, describe(errors)].filter((p) => p !== undefined).join('; ');
  }
  console.log(problem === undefined ? `ok ${name}` : `not ok ${name}: ${problem}`);
  return problem === undefined;
}

function outputLogClean(editor: Editor): boolean {
  const name = 'each line of the ExportLens output channel once';
  let problems: string[];
  try {
    problems = outputLogProblems(outputLogFile(editor.runDir, EXTENSION_ID, 'ExportLens'));
  } catch (error) {
    problems = [error instanceof Error ? error.message : String(error)];
  }
  console.log(problems.length === 0 ? `ok ${name}` : `not ok ${name}:\n  ${problems.join('\n  ')}`);
  return problems.length === 0;
}

async function main(): Promise<number> {
  rmSync(SHOTS, { recursive: true, force: true }); // only this run's: make screenshots copies them all
  const { vsix, python: interpreter } = packagedScenario();
  const started = Date.now();
  const editor = await startEditor({
    name: 'ui',
    fixtures: path.join(ROOT, 'extension', 'test', 'fixtures'),
    settings: { 'exportlens.interpreter': interpreter },
    vsix,
  });
  stopOnSignals(() => editor.stop());
  let passed = 0;
  let failed = 0;
  try {
    for (const step of steps) {
      const t = Date.now();
      const mark = editor.notices.mark;
      let problem: string | undefined;
      let broken = false;
      try {
        await step.run(editor.page);
      } catch (error) {
        problem = error instanceof Error ? error.message : String(error);
        broken = true;
      }
      const errors = editor.notices.errorsSince(mark);
      if (errors.length > 0) {
        problem = [problem, describe(errors)].filter((p) => p !== undefined).join('; ');
      }
      if (problem === undefined) {
        passed++;
        console.log(`ok ${step.name} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
        continue;
      }
      failed++;
      console.log(`not ok ${step.name}: ${problem}`);
      await editor.page.screenshot({ path: path.join(editor.runDir, `failed-${passed + failed}.png`) }).catch(() => undefined);
      if (broken) {
        break; // the next steps build on this one (an error notification alone does not stop them)
      }
    }
    if (await notificationCenterClean(editor)) {
      passed++;
    } else {
      failed++;
    }
  } finally {
    await editor.stop();
  }
  if (outputLogClean(editor)) {
    passed++;
  } else {
    failed++;
  }
  const skipped = steps.length + 2 - passed - failed;
  if (skipped > 0) {
    failed += skipped;
    console.log(`(${skipped} later step(s) not run: counted as failed)`);
  }
  console.log(`UI scenario: ${((Date.now() - started) / 1000).toFixed(0)} s; logs under ${editor.runDir}`);
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.stack : error);
    process.exit(1);
  },
);
