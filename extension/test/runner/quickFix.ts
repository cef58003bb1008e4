/**
 * The quick-fix menu as a user drives it (ui.ts, notebookUi.ts): Ctrl+. at the cursor, asked again
 * until the wanted fix is offered, then chosen with the arrow keys.
 */
import type { Page } from 'playwright-core';

/** The menu's row index of the first fix whose title `wanted` accepts, once offered, or -1 after
 *  `timeoutMs`. A fix says "(checking…)" until the worker has proven it, and VS Code drops a
 *  request whose diagnostics were re-published meanwhile ("No code actions available"): the menu
 *  is asked again, as a user would; a fix never offered still fails. The menu stays open. */
export async function offeredFix(page: Page, wanted: (title: string) => boolean, timeoutMs: number): Promise<number> {
  const rows = page.locator('.action-widget .monaco-list-row');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    await page.keyboard.press('Control+.');
    const shown = await rows
      .first()
      .waitFor({ timeout: 20000 })
      .then(
        () => true,
        () => false,
      );
    const index = (shown ? await rows.allInnerTexts() : []).findIndex(wanted);
    if (index >= 0) {
      return index;
    }
    await page.keyboard.press('Escape');
    await page.waitForTimeout(2000);
  }
  return -1;
}

/** Choose row `index` of the open quick-fix menu. */
export async function chooseFix(page: Page, index: number): Promise<void> {
  const rows = page.locator('.action-widget .monaco-list-row');
  const focused = await rows.evaluateAll((els) => els.findIndex((el) => el.classList.contains('focused')));
  for (let i = Math.max(focused, 0); i < index; i++) {
    await page.keyboard.press('ArrowDown');
  }
  await page.keyboard.press('Enter');
}

/** The torch.cond rewrite of a data-dependent branch, once the worker has proven it. */
export const provenCond = (title: string): boolean => title.includes('torch.cond') && title.includes('matches eager');
