// Renders extension/media/icon.svg to icon.png (128x128, transparent corners), the icon
// package.json names, with Debian's chromium through playwright-core: `make ext-icon`.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const executablePath = execFileSync('sh', ['-c', 'command -v chromium || true'], { encoding: 'utf8' }).trim();
if (executablePath === '') {
  console.error('render-icon: chromium is not installed (make ext-setup installs it)');
  process.exit(1);
}
const svg = readFileSync(join(here, 'icon.svg'), 'utf8');
const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 128, height: 128 } });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  await page.locator('svg').screenshot({ path: join(here, 'icon.png'), omitBackground: true });
} finally {
  await browser.close();
}
console.log('render-icon: extension/media/icon.png');
