/**
 * Time to the first squiggle in a real editor: code-server 4.100.3 with the packaged extension
 * (dist/exportlens.vsix), a fresh user-data dir (so an empty results store), driven headless by
 * Playwright. Each file of FOLDER is opened at start in a fresh editor; the time from the
 * extension's activation (the extension host's log line) to the first `.squiggly-error` in the
 * page, and from the page load to it, are printed as one JSON line per file.
 *
 *   node dist/test/runner/editor_first_diagnostic.js FOLDER FILE [FILE ...]
 *
 * Built by `make bench` (esbuild, beside the UI tests' runner: it uses their editor.ts); run by
 * bench/all.py, which writes the files (bench/first_diagnostic.py's failing models).
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { EXTENSION_ID } from '../extension/test/extensionId';
import { ROOT, need, startEditor, stopOnSignals } from '../extension/test/runner/editor';

const ACTIVATED = new RegExp(
  `^(\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3}) \\[info\\] ExtensionService#_doActivateExtension ${EXTENSION_ID.replace('.', '\\.')}\\b`,
  'm',
);

/** When the extension host activated ExportLens (its log line; local time, as the host writes it). */
function activatedAt(runDir: string): number {
  const logs = path.join(runDir, 'user-data', 'logs');
  for (const session of readdirSync(logs)) {
    const file = path.join(logs, session, 'exthost1', 'remoteexthost.log');
    try {
      const found = ACTIVATED.exec(readFileSync(file, 'utf8'));
      if (found !== null) {
        return new Date(found[1].replace(' ', 'T')).getTime();
      }
    } catch {
      // not this session's host
    }
  }
  throw new Error(`no activation of ${EXTENSION_ID} in ${logs}`);
}

async function once(folder: string, file: string, index: number): Promise<Record<string, unknown>> {
  const vsix = path.join(ROOT, 'dist', 'exportlens.vsix');
  need(vsix, 'the packaged extension (make ext-package)');
  const interpreter = path.join(ROOT, '.venv', 'bin', 'python');
  const start = () =>
    startEditor({
      name: `bench-first-${index}`,
      fixtures: folder,
      settings: { 'exportlens.interpreter': interpreter },
      vsix,
      openFile: file,
    });
  // A loaded machine can miss the page load's 30 s (editor.ts): a fresh start, once.
  const editor = await start().catch((error: unknown) => {
    console.error(`starting the editor failed, once more: ${error instanceof Error ? error.message : String(error)}`);
    return start();
  });
  stopOnSignals(() => editor.stop());
  const loaded = Date.now();
  try {
    // Monaco draws decorations of the lines in view only: the branch is near the end of the file.
    const lines = editor.page.locator('.monaco-editor .view-lines').first();
    await lines.waitFor({ state: 'visible', timeout: 120000 });
    await lines.click();
    await editor.page.keyboard.press('Control+End');
    await editor.page.locator('.monaco-editor .squiggly-error').first().waitFor({ state: 'attached', timeout: 180000 });
    const squiggle = Date.now();
    const activated = activatedAt(editor.runDir);
    return {
      file,
      activation_to_squiggle_s: (squiggle - activated) / 1000,
      page_to_squiggle_s: (squiggle - loaded) / 1000,
    };
  } finally {
    await editor.stop();
  }
}

async function main(): Promise<void> {
  const [folder, ...files] = process.argv.slice(2);
  if (folder === undefined || files.length === 0) {
    throw new Error('usage: editor_first_diagnostic.js FOLDER FILE [FILE ...]');
  }
  let index = 0;
  for (const file of files) {
    console.log(JSON.stringify(await once(folder, file, index++)));
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? error.stack : error);
    process.exit(1);
  },
);
