/**
 * `make ext-ui`, the graph panel: the packaged .vsix in a real code-server, driven with
 * Playwright. Opens the graph panel by Net's "Show graph" code lens in extension/test/fixtures-graph/graph_model.py,
 * checks the drawn nodes against the program torch.export makes of it (exported here by the
 * project's Python, read by the same worker/capture/graph_json.py), clicks a node and sees the editor's
 * cursor on its line, moves the cursor and sees that line's nodes highlighted, screenshots the
 * panel to dist/screenshots/graph.png (the README's docs/images/graph.png is a copy made by
 * hand), and prints the time from the command to the first paint. Every wait is on a condition.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { ROOT, SHOTS, packagedScenario, startEditor } from './editor';
import { exitWith, runScenario } from './scenario';

const SLOW = 180000;
const FILE = 'graph_model.py';

interface Expected {
  nodes: { id: string; kind: string; label: string; line: number | null; lines: number[] }[];
}

/** The program torch.export makes of the fixture, as the worker describes it. */
function expected(file: string, python: string): Expected {
  const script = `
import json, runpy, sys
sys.path.insert(0, ${JSON.stringify(path.join(ROOT, 'server'))})
import torch
from exportlens.worker.capture.graph_json import graph_view
path = sys.argv[1]
ns = runpy.run_path(path)
batch = torch.export.Dim("batch", min=2, max=64)
program = torch.export.export(ns["Net"](), (torch.randn(4, 8),), dynamic_shapes=({0: batch},))
view = graph_view(program, path)
ops = [n for n in program.graph_module.graph.nodes if n.op == "call_function"]
assert sum(1 for n in view["nodes"] if n["kind"] == "op") == len(ops)
def label(n):
    if n["op"] == "placeholder": return n.get("target", n["name"])
    if n["op"] == "output": return n["kind"].replace("_", " ")
    return n["op"].removeprefix("aten.").removesuffix(".default")
print(json.dumps({"nodes": [{"id": n["id"], "kind": n["kind"], "label": label(n), "line": n.get("line"),
    "lines": [f["line"] for f in n.get("stack", []) if f["path"] == path]} for n in view["nodes"]]}))
`;
  const run = spawnSync(python, ['-c', script, file], { encoding: 'utf8', timeout: 300000 });
  if (run.status !== 0) {
    throw new Error(`exporting the fixture failed: ${run.stderr}`);
  }
  return JSON.parse(run.stdout) as Expected;
}

async function goToLine(page: Page, line: number): Promise<void> {
  await page.keyboard.press('Control+G');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`:${line}`);
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden' });
}

/** The panel's page: code-server nests it in two iframes. */
function graphFrame(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

async function cursorLine(page: Page): Promise<number> {
  const text = await page.locator('[id="status.editor.selection"]').innerText();
  return Number(/Ln (\d+)/.exec(text)?.[1] ?? -1);
}

/** Polls `read` until `ok` holds or the time is up; returns the last value read. */
async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!ok(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    value = await read();
  }
  return value;
}

async function main(): Promise<number> {
  const { vsix, python } = packagedScenario();
  const editor = await startEditor({
    name: 'graph-ui',
    fixtures: path.join(ROOT, 'extension', 'test', 'fixtures-graph'),
    // a loaded machine must not turn a slow export into a timeout warning instead of a graph
    settings: { 'exportlens.interpreter': python, 'exportlens.timeoutSeconds': 240 },
    vsix,
  });
  return runScenario('graph', 5, editor, async (page, check) => {
    const want = expected(path.join(editor.workspace, FILE), python);
    await page.locator(`.explorer-folders-view .monaco-list-row[aria-label*="${FILE}"]`).first().click({ timeout: 90000 });
    await page.locator(`.tabs-container .tab.active[aria-label*="${FILE}"]`).waitFor({ timeout: 30000 });
    await page.locator('.codelens-decoration', { hasText: '✓ exports' }).first().waitFor({ timeout: SLOW });
    await page.keyboard.press('Control+B'); // room for the panel beside
    await page.locator('.monaco-editor .view-lines').first().click();
    await goToLine(page, 27); // Net's lens in view
    // Net's "Show graph" lens (Block, a part of Net, comes first in the file)
    const lens = page.locator('.codelens-decoration a', { hasText: /^Show graph$/ }).last();
    await lens.waitFor({ timeout: SLOW });
    const started = Date.now();
    await lens.click();
    const frame = graphFrame(page);
    await frame.locator('body[data-state="painted"]').waitFor({ timeout: SLOW });
    console.log(`  command -> first paint: ${Date.now() - started} ms (${want.nodes.length} nodes)`);

    const drawn = await frame.locator('.node').evaluateAll((els) =>
      els.map((el) => ({ id: el.getAttribute('data-id') ?? '', label: el.querySelector('.label')?.textContent ?? '' })),
    );
    const wantIds = want.nodes.map((n) => n.id).sort();
    const drawnIds = drawn.map((n) => n.id).sort();
    check('the panel draws every node of the exported program', JSON.stringify(drawnIds) === JSON.stringify(wantIds), `drawn ${drawnIds.join(',')}; program ${wantIds.join(',')}`);
    const wrong = want.nodes.filter((n) => drawn.find((d) => d.id === n.id)?.label !== n.label).map((n) => n.id);
    check('each node is labelled with its op (inputs by their name, outputs by kind)', wrong.length === 0, `wrong labels: ${wrong.join(', ')}`);

    const softmax = want.nodes.find((n) => n.label === 'softmax.int');
    if (softmax?.line == null) {
      throw new Error('the program has no softmax with a line');
    }
    await frame.locator(`.node[data-id="${softmax.id}"]`).click();
    const line = await until(() => cursorLine(page), (l) => l === softmax.line, 30000);
    check('clicking a node puts the editor cursor on its line', line === softmax.line, `cursor on line ${line}, node on ${softmax.line}`);

    const reluLine = want.nodes.find((n) => n.label === 'relu')?.line ?? -1;
    const atRelu = want.nodes.filter((n) => n.line === reluLine || n.lines.includes(reluLine)).map((n) => n.id).sort();
    await goToLine(page, reluLine);
    const lit = await until(
      () => frame.locator('.node.hl').evaluateAll((els) => els.map((el) => el.getAttribute('data-id') ?? '').sort()),
      (ids) => JSON.stringify(ids) === JSON.stringify(atRelu),
      30000,
    );
    check("moving the cursor highlights that line's nodes", atRelu.length > 0 && JSON.stringify(lit) === JSON.stringify(atRelu), `highlighted ${lit.join(',')}; line ${reluLine} made ${atRelu.join(',')}`);

    await frame.locator(`.node[data-id="${atRelu[0] ?? ''}"]`).hover();
    await frame.locator('#card:not([hidden])').waitFor({ timeout: 10000 });
    await page.screenshot({ path: path.join(SHOTS, 'graph.png') });
    console.log(`  screenshot ${path.relative(ROOT, SHOTS)}/graph.png`);
  });
}

exitWith(main());
