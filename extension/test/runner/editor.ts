/**
 * A real VS Code for the tests: code-server 4.100.3 (extension/editor) in its own process
 * group, driven by Playwright with Debian's chromium, headless. Every byte either of them
 * writes goes under `runDir` (dist/run/...): HOME, XDG_*, user data, extensions, config.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { NotificationWatch } from './notifications';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const CODE_SERVER = path.join(ROOT, 'extension', 'editor', 'node_modules', 'code-server', 'out', 'node', 'entry.js');
/** Where the UI scenarios put their screenshots (`make screenshots` copies them into docs/). */
export const SHOTS = path.join(ROOT, 'dist', 'screenshots');

/** What a UI scenario of the packaged extension needs, checked: the .vsix and the project venv's
 *  interpreter (`venv` says what it must hold); the screenshots' folder is made. */
export function packagedScenario(venv = 'the project venv (make setup)'): { vsix: string; python: string } {
  const vsix = path.join(ROOT, 'dist', 'exportlens.vsix');
  need(vsix, 'the packaged extension (make ext-package)');
  const python = path.join(ROOT, '.venv', 'bin', 'python');
  need(python, venv);
  mkdirSync(SHOTS, { recursive: true });
  return { vsix, python };
}

export interface EditorOptions {
  /** Folder under dist/run/ for this run (wiped first). */
  name: string;
  /** Files copied into the workspace folder. */
  fixtures: string;
  /** User settings (merged over the quiet defaults). */
  settings?: Record<string, unknown>;
  /** false: leave workspace trust on, so the folder opens untrusted. */
  trustAll?: boolean;
  /** Install this .vsix instead of loading the repository as the development extension. */
  vsix?: string;
  /** Extension-host tests to run (a CommonJS file exporting `run()`). */
  extensionTests?: string;
  /** File of the workspace to open first. */
  openFile?: string;
}

export interface Editor {
  page: Page;
  workspace: string;
  runDir: string;
  url: string;
  /** Resolves with the exit code the workbench reports after `extensionTests` ran. */
  testsExit: Promise<number>;
  /** Browser console lines seen so far. */
  console: string[];
  /** Every notification the workbench has shown so far. */
  notices: NotificationWatch;
  stop(): Promise<void>;
}

const QUIET_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'git.enabled': false,
  'editor.hover.delay': 300,
  'security.workspace.trust.startupPrompt': 'never',
  'window.restoreWindows': 'none',
  'files.hotExit': 'off',
  'chat.disableAIFeatures': true,
};

export function need(file: string, what: string): void {
  if (!existsSync(file)) {
    throw new Error(`${what} is missing: ${file} — run \`make ext-setup\` first`);
  }
}

export function chromiumPath(): string {
  const found = spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).stdout.trim();
  if (found === '') {
    throw new Error('chromium is not installed: apt-get install chromium (make ext-setup does it)');
  }
  return found;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitHealthy(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`code-server exited with ${child.exitCode} (see its log)`);
    }
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) {
        return;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer ${url}/healthz within ${timeoutMs / 1000} s`);
}

function killGroup(child: ChildProcess | undefined): void {
  if (child?.pid !== undefined && child.exitCode === null) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
}

/** Worker daemons (docs/daemon.md) run detached from the editor's process group: the servers of
 *  this run started them in `folder`, and none may outlive the run (they would wait 10 min). */
function stopDaemons(folder: string): void {
  const python = path.join(ROOT, '.venv', 'bin', 'python');
  if (!existsSync(folder) || !existsSync(python)) {
    return;
  }
  const stopped = spawnSync(
    python,
    ['-c', 'import sys; from exportlens.engine.daemon_stop import stop_daemons; stop_daemons(sys.argv[1])', folder],
    { env: { ...process.env, PYTHONPATH: path.join(ROOT, 'server') }, encoding: 'utf8', timeout: 30000 },
  );
  if (stopped.status !== 0) {
    console.error(`# stopping the worker daemons in ${folder} failed:\n${stopped.stderr}`);
  }
}

export async function startEditor(options: EditorOptions): Promise<Editor> {
  need(CODE_SERVER, 'code-server 4.100.3 (extension/editor)');
  const executablePath = chromiumPath();
  const runDir = path.join(ROOT, 'dist', 'run', options.name);
  rmSync(runDir, { recursive: true, force: true });
  const dirs = {
    home: path.join(runDir, 'home'),
    data: path.join(runDir, 'user-data'),
    extensions: path.join(runDir, 'extensions'),
    workspace: path.join(runDir, 'workspace'),
    tmp: path.join(runDir, 'tmp'),
  };
  for (const dir of Object.values(dirs)) {
    mkdirSync(dir, { recursive: true });
  }
  cpSync(options.fixtures, dirs.workspace, { recursive: true });
  mkdirSync(path.join(dirs.data, 'User'), { recursive: true });
  writeFileSync(
    path.join(dirs.data, 'User', 'settings.json'),
    JSON.stringify({ ...QUIET_SETTINGS, ...options.settings }, null, 2),
  );
  const config = path.join(runDir, 'config.yaml');
  writeFileSync(config, 'auth: none\ncert: false\n');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: dirs.home,
    XDG_CONFIG_HOME: path.join(dirs.home, '.config'),
    XDG_DATA_HOME: path.join(dirs.home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(dirs.home, '.cache'),
    XDG_RUNTIME_DIR: dirs.tmp,
    TMPDIR: dirs.tmp,
    // said, not inherited: a caller's own folders would share results and daemons with the run
    EXPORTLENS_CACHE_DIR: path.join(dirs.home, '.cache', 'exportlens'),
    EXPORTLENS_RUNTIME_DIR: path.join(dirs.tmp, 'exportlens'),
  };
  const common = ['--config', config, '--user-data-dir', dirs.data, '--extensions-dir', dirs.extensions];
  if (options.vsix !== undefined) {
    need(options.vsix, 'the packaged extension');
    const installed = spawnSync(process.execPath, [CODE_SERVER, ...common, '--install-extension', options.vsix], {
      env,
      encoding: 'utf8',
      timeout: 120000,
    });
    if (installed.status !== 0) {
      throw new Error(`installing ${options.vsix} failed:\n${installed.stdout}\n${installed.stderr}`);
    }
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const logFile = openSync(path.join(runDir, 'code-server.log'), 'w');
  const args = [
    CODE_SERVER,
    ...common,
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    '--ignore-last-opened',
  ];
  if (options.trustAll !== false) {
    args.push('--disable-workspace-trust');
  }
  const child = spawn(process.execPath, args, { env, detached: true, stdio: ['ignore', logFile, logFile] });
  let browser: Browser | undefined;
  const stop = async (): Promise<void> => {
    await browser?.close().catch(() => undefined);
    killGroup(child);
    stopDaemons(env.EXPORTLENS_RUNTIME_DIR as string);
  };
  try {
    await waitHealthy(url, child, 60000);
    browser = await chromium.launch({
      executablePath,
      headless: true,
      env: { HOME: dirs.home, XDG_CONFIG_HOME: env.XDG_CONFIG_HOME, XDG_CACHE_HOME: env.XDG_CACHE_HOME, TMPDIR: dirs.tmp },
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    const context = await browser.newContext({ viewport: { width: 1400, height: 860 } });
    const page = await context.newPage();
    const consoleLines: string[] = [];
    page.on('console', (message) => consoleLines.push(message.text()));
    const notices = new NotificationWatch();
    await notices.attach(page);
    let exit: (code: number) => void = () => undefined;
    const testsExit = new Promise<number>((resolve) => {
      exit = resolve;
    });
    await page.exposeFunction('codeAutomationExit', (code: number) => exit(code));
    const remote = (file: string): string => `vscode-remote://127.0.0.1:${port}${file}`;
    const payload: [string, string][] = [];
    if (options.vsix === undefined) {
      payload.push(['extensionDevelopmentPath', remote(ROOT)]);
    }
    if (options.extensionTests !== undefined) {
      payload.push(['extensionTestsPath', remote(options.extensionTests)]);
    }
    if (options.openFile !== undefined) {
      payload.push(['openFile', remote(path.join(dirs.workspace, options.openFile))]);
    }
    const query = `folder=${encodeURIComponent(dirs.workspace)}` +
      (payload.length > 0 ? `&payload=${encodeURIComponent(JSON.stringify(payload))}` : '');
    await page.goto(`${url}/?${query}`);
    return { page, workspace: dirs.workspace, runDir, url, testsExit, console: consoleLines, notices, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Stops the editor on Ctrl+C / kill too: no code-server or chromium may outlive a run. */
export function stopOnSignals(stop: () => Promise<void>): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void stop().finally(() => process.exit(130));
    });
  }
}
