/**
 * `make ext-ui`, an ONNX refusal (issue 17, docs/targets.md): the packaged .vsix in a real
 * code-server with `exportlens.targets` = export + onnx. extension/test/fixtures-onnx/median_pool.py
 * exports with torch.export, but `torch.kthvalue` has no ONNX translation: the squiggle must be
 * on that line of the user's code, its hover must name ONNX and the op, and the lens must still
 * say the export itself works. Screenshot: dist/screenshots/onnx.png (`make screenshots` copies
 * it to docs/screenshots/, the README's picture). Every wait is on a condition.
 */
import * as path from 'node:path';
import { ROOT, SHOTS, packagedScenario, startEditor } from './editor';
import { exitWith, runScenario } from './scenario';

const SLOW = 240000;
const FILE = 'median_pool.py';
const REFUSED = 'torch.kthvalue(';

async function main(): Promise<number> {
  const { vsix, python } = packagedScenario('the project venv with onnx and onnxscript (make setup)');
  const editor = await startEditor({
    name: 'onnx-ui',
    fixtures: path.join(ROOT, 'extension', 'test', 'fixtures-onnx'),
    settings: {
      'exportlens.interpreter': python,
      'exportlens.targets': ['export', 'onnx'],
      'exportlens.timeoutSeconds': 240, // a loaded machine must not turn the check into a timeout
    },
    vsix,
  });
  return runScenario('ONNX', 4, editor, async (page, check) => {
    await page.locator(`.explorer-folders-view .monaco-list-row[aria-label*="${FILE}"]`).first().click({ timeout: 90000 });
    await page.locator(`.tabs-container .tab.active[aria-label*="${FILE}"]`).waitFor({ timeout: 30000 });
    const squiggle = page.locator('.monaco-editor .squiggly-error').first();
    await squiggle.waitFor({ state: 'attached', timeout: SLOW });
    // The squiggle sits in the line's view row: that row's text is the refused call.
    const box = await squiggle.boundingBox();
    if (box === null) {
      throw new Error('the squiggle has no box');
    }
    const rows = await page.locator('.monaco-editor .view-line').evaluateAll((els) =>
      els.map((el) => ({ top: el.getBoundingClientRect().top, bottom: el.getBoundingClientRect().bottom, text: el.textContent })),
    );
    const row = rows.find((r) => r.top <= box.y + box.height / 2 && box.y + box.height / 2 <= r.bottom);
    check('the ONNX refusal is squiggled on the line that calls the op', row?.text.includes(REFUSED) === true, `squiggle on «${row?.text.trim() ?? '?'}»`);

    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const hover = page.locator('.monaco-hover:not(.hidden)', { hasText: 'onnx-no-translation' }).first();
    await hover.waitFor({ timeout: 30000 });
    const said = await hover.innerText();
    check('its hover names the target, the op and the code', said.includes('ONNX:') && said.includes('aten.kthvalue'), said.slice(0, 300));
    // The squiggle comes with the module's first refusal, while its check still runs (the lens
    // says "exporting…"); the lens is read once the check has ended.
    await page
      .waitForFunction(
        () => {
          const texts = Array.from(document.querySelectorAll('.codelens-decoration'), (el) => el.textContent);
          return texts.length > 0 && !texts.some((t) => t.includes('exporting…'));
        },
        undefined,
        { timeout: SLOW },
      )
      .catch(() => undefined); // the check below says what the lens shows instead
    const lens = await page.locator('.codelens-decoration').allInnerTexts();
    check('the lens says torch.export takes the module and ONNX refuses it', lens.some((t) => t.includes('✓ exports') && t.includes('✗ ONNX: 1 issue')), lens.join(' | '));
    await page.screenshot({ path: path.join(SHOTS, 'onnx.png') });
    console.log(`  screenshot ${path.relative(ROOT, SHOTS)}/onnx.png`);
  });
}

exitWith(main());
