/**
 * The graph panel's page (dist/webview/graph.js, as the webview loads it) in Debian's chromium,
 * headless, fed the graph views named on the command line (JSON files bench/graph_view.py
 * writes): time to first paint and layout, collapsed as it opens and with every group expanded,
 * then the frame times while dragging the expanded graph around (requestAnimationFrame deltas).
 * Prints one JSON line per graph.
 *   node dist/test/runner/graphBench.js graph-a.json [graph-b.json ...]
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { graphHtml } from '../../src/graph/html';
import type { GraphPayload } from '../../src/graph/messages';
import type { GraphView } from '../../src/protocol';
import { ROOT, chromiumPath } from './editor';

const DIR = path.join(ROOT, 'dist', 'bench', 'graph-page');

async function painted(page: Page, count: number): Promise<{ nodes: number; layoutMs: number; paintMs: number; sinceSentMs: number }> {
  await page.waitForFunction((n) => (window as unknown as { posted: { type: string }[] }).posted.filter((m) => m.type === 'painted').length >= n, count, { timeout: 600000 });
  return page.evaluate((n) => (window as unknown as { posted: { type: string }[] }).posted.filter((m) => m.type === 'painted')[n - 1], count) as never;
}

async function pan(page: Page): Promise<{ frames: number; maxMs: number; p95Ms: number }> {
  await page.evaluate(() => {
    const w = window as unknown as { frames: number[]; recording: boolean };
    w.frames = [];
    w.recording = true;
    let last = performance.now();
    const tick = (now: number): void => {
      w.frames.push(now - last);
      last = now;
      if (w.recording) {
        requestAnimationFrame(tick);
      }
    };
    requestAnimationFrame(tick);
  });
  const box = await page.locator('#canvas').boundingBox();
  const cx = (box?.x ?? 0) + (box?.width ?? 800) / 2;
  const cy = (box?.y ?? 0) + (box?.height ?? 600) / 2;
  for (let round = 0; round < 3; round++) {
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    for (let step = 1; step <= 40; step++) {
      await page.mouse.move(cx + step * 8 * (round % 2 === 0 ? 1 : -1), cy + step * 12);
    }
    await page.mouse.up();
  }
  const frames = await page.evaluate(() => {
    const w = window as unknown as { frames: number[]; recording: boolean };
    w.recording = false;
    return w.frames.slice(1);
  });
  const sorted = [...frames].sort((a, b) => a - b);
  return { frames: frames.length, maxMs: sorted.at(-1) ?? 0, p95Ms: sorted[Math.floor(sorted.length * 0.95)] ?? 0 };
}

async function main(): Promise<void> {
  mkdirSync(DIR, { recursive: true });
  copyFileSync(path.join(ROOT, 'dist', 'webview', 'graph.js'), path.join(DIR, 'graph.js'));
  writeFileSync(path.join(DIR, 'index.html'), graphHtml({ cspSource: 'file:', scriptUri: 'graph.js', nonce: 'benchnonce' }));
  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    for (const file of process.argv.slice(2)) {
      const view = JSON.parse(readFileSync(file, 'utf8')) as GraphView;
      const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
      await page.addInitScript(() => {
        const w = window as unknown as { posted: unknown[]; acquireVsCodeApi: () => unknown };
        w.posted = [];
        let state: unknown;
        w.acquireVsCodeApi = () => ({ postMessage: (m: unknown) => w.posted.push(m), getState: () => state, setState: (s: unknown) => (state = s) });
      });
      await page.goto(`file://${path.join(DIR, 'index.html')}`);
      const payload: GraphPayload = { uri: 'file:///bench.py', module: path.basename(file, '.json'), file: 'bench.py', path: '/bench.py', mode: 'non-strict', status: 'exported', stale: false, view, placement: {}, findings: [] };
      await page.evaluate((p) => window.postMessage({ type: 'graph', payload: p, sentAt: Date.now() }, '*'), payload);
      const opened = await painted(page, 1);
      await page.screenshot({ path: path.join(DIR, `${path.basename(file, '.json')}.png`) });
      await page.click('#expand');
      const expanded = await painted(page, 2);
      await page.click('#fit');
      const frames = await pan(page);
      console.log(JSON.stringify({ graph: path.basename(file, '.json'), nodes: view.nodes.length, opened, expanded, pan: frames }));
      await page.close();
    }
  } finally {
    await browser.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? error.stack : error);
    process.exit(1);
  },
);
