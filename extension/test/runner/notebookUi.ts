/**
 * `make ext-ui`, a Jupyter notebook (issue 29, docs/notebooks.md): the packaged .vsix in a real
 * code-server, tests/data/notebooks/guarded.ipynb opened in the notebook editor (no kernel). Its
 * second cell defines a module with a data-dependent `if`; its training cell never runs. The
 * squiggle must be on that `if` in the cell, its hover must say why, and the proven torch.cond
 * quick-fix must rewrite the cell and take the squiggle away. Screenshots:
 * dist/screenshots/notebook-*.png. Every wait is on a condition.
 */
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { ROOT, SHOTS, packagedScenario, startEditor } from './editor';
import { chooseFix, offeredFix, provenCond } from './quickFix';
import { exitWith, runScenario } from './scenario';

const SLOW = 240000;
const FILE = 'guarded.ipynb';
const REFUSED = 'if logits.sum() > 0';

async function shot(page: Page, file: string): Promise<void> {
  await page.waitForTimeout(400); // let hovers settle
  await page.screenshot({ path: path.join(SHOTS, file) });
  console.log(`  screenshot ${path.relative(ROOT, SHOTS)}/${file}`);
}

/** The text of the cell editor's view row under the squiggle. */
async function rowUnder(page: Page, box: { x: number; y: number; height: number }): Promise<string> {
  const rows = await page.locator('.notebook-editor .monaco-editor .view-line').evaluateAll((els) =>
    els.map((el) => ({ top: el.getBoundingClientRect().top, bottom: el.getBoundingClientRect().bottom, text: el.textContent })),
  );
  const middle = box.y + box.height / 2;
  return (rows.find((r) => r.top <= middle && middle <= r.bottom)?.text ?? '?').replace(/\u00a0/g, ' ');
}

async function main(): Promise<number> {
  const { vsix, python } = packagedScenario();
  const editor = await startEditor({
    name: 'notebook-ui',
    fixtures: path.join(ROOT, 'tests', 'data', 'notebooks'),
    settings: {
      'exportlens.interpreter': python,
      'exportlens.timeoutSeconds': 240,
      'workbench.editorAssociations': { '*.ipynb': 'jupyter-notebook' },
    },
    vsix,
  });
  return runScenario('notebook', 5, editor, async (page, check) => {
    // Opened before the extension host has registered the notebook serializer, the file opens as
    // JSON text: close it and open it again until the notebook editor shows it.
    const notebook = page.locator('.notebookOverlay').first();
    for (let attempt = 0; attempt < 12 && !(await notebook.isVisible()); attempt++) {
      if (attempt > 0) {
        await page.keyboard.press('Control+W');
        await page.waitForTimeout(5000);
      }
      await page.locator(`.explorer-folders-view .monaco-list-row[aria-label*="${FILE}"]`).first().dblclick({ timeout: 90000 });
      await page.locator(`.tabs-container .tab.active[aria-label*="${FILE}"]`).waitFor({ timeout: 30000 });
      await notebook.waitFor({ timeout: 5000 }).catch(() => undefined);
    }
    await page.locator('.notebook-editor .monaco-editor .view-lines', { hasText: 'class\u00a0NeuralNetwork' }).first().waitFor({ timeout: 60000 });
    const squiggle = page.locator('.notebook-editor .monaco-editor .squiggly-error').first();
    await squiggle.waitFor({ state: 'attached', timeout: SLOW });
    await squiggle.scrollIntoViewIfNeeded();
    const box = await squiggle.boundingBox();
    if (box === null) {
      throw new Error('the squiggle has no box');
    }
    const row = await rowUnder(page, box);
    check('the refusal is squiggled on the `if` in the model cell', row.includes(REFUSED), `squiggle on «${row.trim()}»`);

    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const hover = page.locator('.monaco-hover:not(.hidden)', { hasText: 'data-dependent-branch' }).first();
    await hover.waitFor({ timeout: 30000 });
    check('its hover says why', (await hover.innerText()).includes('decides on a tensor'), await hover.innerText());
    await shot(page, 'notebook-squiggle-hover.png');
    await page.mouse.move(5, 400);
    await page.keyboard.press('Escape');

    // The cursor into the squiggled line of the cell, then the quick-fix menu, until the fix is proven.
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    const index = await offeredFix(page, provenCond, SLOW);
    check('the proven torch.cond quick-fix is offered in the cell', index >= 0, 'never offered as proven');
    if (index < 0) {
      return;
    }
    await shot(page, 'notebook-quick-fix-menu.png');
    await chooseFix(page, index);
    await page.locator('.notebook-editor .monaco-editor .view-lines', { hasText: 'torch.cond(' }).first().waitFor({ timeout: 30000 });
    const gone = await page
      .locator('.notebook-editor .monaco-editor .squiggly-error')
      .first()
      .waitFor({ state: 'detached', timeout: SLOW })
      .then(
        () => true,
        () => false,
      );
    check('the fix rewrote the cell and the squiggle went', gone, 'the squiggle stayed after the fix');
    await shot(page, 'notebook-after-quick-fix.png');
  });
}

exitWith(main());
