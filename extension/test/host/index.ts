/**
 * Extension-host tests, inside a real code-server 4.100.3 with the repository loaded as the
 * development extension (runner/host.ts). The workspace is a copy of test/fixtures/; the
 * user settings point exportlens.interpreter at the repository's .venv.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, symlinkSync, unlinkSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExportLensApi } from '../../src/extension';
import { EXTENSION_ID } from '../extensionId';
import { GRAPH_SCHEME } from '../../src/graphDocuments';
import type { CompileAotiResult, ExportModuleResult, SavePt2Result, ServerStatus } from '../../src/protocol';
import { expectErrorNotification, runAll, shownWarnings, test, waitFor } from './harness';


function workspaceFile(name: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'a workspace folder is open');
  return vscode.Uri.joinPath(folder.uri, name);
}

async function api(): Promise<ExportLensApi> {
  const extension = vscode.extensions.getExtension<ExportLensApi>(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is installed`);
  return extension.isActive ? extension.exports : extension.activate();
}

async function ready(): Promise<ExportLensApi> {
  const lens = await api();
  await waitFor('the server to start', async () => {
    await lens.whenStarted();
    const state = lens.status();
    return state.kind === 'starting' ? undefined : state;
  });
  return lens;
}

async function open(name: string): Promise<vscode.TextEditor> {
  const document = await vscode.workspace.openTextDocument(workspaceFile(name));
  return vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.One });
}

function codeOf(diagnostic: vscode.Diagnostic): string {
  const code = diagnostic.code;
  return typeof code === 'object' ? String(code.value) : String(code);
}

async function lensTitles(uri: vscode.Uri): Promise<string[]> {
  const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 10);
  return lenses.map((l) => l.command?.title ?? '');
}

function hoverText(hovers: vscode.Hover[]): string {
  return hovers
    .flatMap((h) => h.contents)
    .map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : ''))
    .join('\n');
}

async function serverStatus(): Promise<ServerStatus> {
  return vscode.commands.executeCommand<ServerStatus>('exportlens.status');
}

async function setSetting(name: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration('exportlens').update(name, value, vscode.ConfigurationTarget.Global);
}

function graphDocuments(module: string): vscode.TextDocument[] {
  return vscode.workspace.textDocuments.filter(
    (d) => d.uri.scheme === GRAPH_SCHEME && d.uri.path.endsWith(`/${module}.aten.py`),
  );
}

test('activates; the status says ready with the torch version', async () => {
  const lens = await ready();
  const state = lens.status();
  assert.equal(state.kind, 'ready', JSON.stringify(state));
  assert.match(state.torch, /^2\./);
});

test('a data-dependent branch becomes an error diagnostic on its line', async () => {
  const editor = await open('guarded.py');
  const uri = editor.document.uri;
  const diagnostic = await waitFor('the data-dependent-branch diagnostic', () =>
    vscode.languages.getDiagnostics(uri).find((d) => codeOf(d) === 'data-dependent-branch'),
  );
  assert.equal(diagnostic.severity, vscode.DiagnosticSeverity.Error);
  assert.equal(diagnostic.source, 'exportlens');
  assert.equal(diagnostic.range.start.line, 7, 'on `if (x < 0).any():`');
  assert.match(diagnostic.message, /data|branch|control flow|torch\.cond/i);
});

test("a code's documentation link opens its section of docs/codes.md in the markdown preview", async () => {
  // a code documented in codes.md alone (data-dependent-branch links to torch's page)
  const source = 'import torch\n\n\nclass Gate(torch.nn.Module):\n    def forward(self, x):\n'
    + '        return x + 1  # exportlens: ignore[no-such-code]\n\n\n'
    + 'torch.export.export(Gate(), (torch.randn(2),))\n';
  await vscode.workspace.fs.writeFile(workspaceFile('unknown_ignore.py'), new TextEncoder().encode(source));
  const editor = await open('unknown_ignore.py');
  const diagnostic = await waitFor('the unknown-ignore-code diagnostic', () =>
    vscode.languages.getDiagnostics(editor.document.uri).find((d) => codeOf(d) === 'unknown-ignore-code'),
  );
  assert.ok(typeof diagnostic.code === 'object', 'the code has a documentation link');
  const link = diagnostic.code.target;
  assert.equal(`${link.scheme}:${link.path}`, 'command:exportlens.openDocs', link.toString());
  // as the Problems panel and the hover open it: the command, with the link's JSON arguments
  const args = JSON.parse(link.query) as string[];
  const [target] = args;
  assert.ok(target !== undefined, link.toString());
  const docs = vscode.Uri.parse(target);
  assert.equal(path.basename(docs.fsPath), 'codes.md');
  assert.equal(docs.fragment, 'unknown-ignore-code');
  assert.ok(existsSync(docs.fsPath), `${docs.fsPath} ships with the extension`);
  await vscode.commands.executeCommand(link.path, ...args);
  const tab = await waitFor('the rendered codes.md', () =>
    vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .find((t) => t.input instanceof vscode.TabInputWebview && /markdown\.preview/.test(t.input.viewType)),
  );
  assert.match(tab.label, /codes\.md/);
});

test('a clean module has no error and a "✓ exports" code lens', async () => {
  const editor = await open('clean_mlp.py');
  const uri = editor.document.uri;
  const title = await waitFor('the ✓ exports lens', async () =>
    (await lensTitles(uri)).find((t) => t.startsWith('✓ exports')),
  );
  assert.match(title, /ops/);
  const errors = vscode.languages.getDiagnostics(uri).filter((d) => d.severity === vscode.DiagnosticSeverity.Error);
  assert.deepEqual(errors.map((d) => d.message), []);
});

test('hover on the module shows its export summary', async () => {
  const editor = await open('clean_mlp.py');
  const line = editor.document.getText().split('\n').findIndex((l) => l.startsWith('class TinyMLP'));
  const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
    'vscode.executeHoverProvider',
    editor.document.uri,
    new vscode.Position(line, 8),
  );
  const text = hoverText(hovers);
  assert.match(text, /ExportLens/);
  assert.match(text, /TinyMLP/);
  assert.match(text, /aten\./, 'the hover holds a graph excerpt');
});

test('hover on the failing module lists its finding', async () => {
  const editor = await open('guarded.py');
  const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
    'vscode.executeHoverProvider',
    editor.document.uri,
    new vscode.Position(5, 8),
  );
  assert.match(hoverText(hovers), /data-dependent-branch/);
});

test('the data-dependent branch gets a torch.cond quick-fix, proven by the worker', async () => {
  const editor = await open('guarded.py');
  const diagnostic = vscode.languages.getDiagnostics(editor.document.uri).find((d) => codeOf(d) === 'data-dependent-branch');
  assert.ok(diagnostic);
  let titles: string[] = [];
  const deadline = Date.now() + 180000;
  // Offered "(checking…)" until the worker has exported the rewrite and compared it with eager.
  while (!titles.some((t) => t.includes('torch.cond') && t.includes('matches eager')) && Date.now() < deadline) {
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      editor.document.uri,
      diagnostic.range,
    );
    titles = actions.map((a) => a.title);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  console.log(`EXPORTLENS-TEST # code actions: ${titles.join('; ')}`);
  assert.ok(titles.some((t) => t.includes('torch.cond') && t.includes('matches eager')), titles.join('; '));
});

test('Export this module (clean) opens the ATen graph beside, read-only, as Python', async () => {
  const editor = await open('clean_mlp.py');
  editor.selection = new vscode.Selection(12, 8, 12, 8);
  const result = await vscode.commands.executeCommand<ExportModuleResult | undefined>('exportlens.exportThisModule');
  assert.ok(result);
  assert.equal(result.module, 'TinyMLP');
  assert.equal(result.status, 'exported');
  const document = await waitFor('the graph document', () => graphDocuments('TinyMLP')[0]);
  assert.equal(document.languageId, 'python');
  assert.match(document.getText(), /aten\.(linear|addmm|relu)/);
  const beside = vscode.window.visibleTextEditors.find((e) => e.document === document);
  assert.ok(beside, 'the graph is visible');
  assert.notEqual(beside.viewColumn, editor.viewColumn, 'beside the source editor');
  assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), editor.document.uri.toString(), 'focus stays');
});

test('Export this module (failing) says why, in the graph document', async () => {
  const editor = await open('guarded.py');
  editor.selection = new vscode.Selection(8, 0, 8, 0);
  const result = await vscode.commands.executeCommand<ExportModuleResult | undefined>('exportlens.exportThisModule');
  assert.ok(result);
  assert.notEqual(result.status, 'exported');
  const document = await waitFor('the failure document', () => graphDocuments('Guarded')[0]);
  assert.match(document.getText(), /No graph/);
  assert.match(document.getText(), /data-dependent-branch/);
});

test('the "Export" code lens runs through the client (graph opens)', async () => {
  const editor = await open('clean_mlp.py');
  const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri, 10);
  const lens = lenses.find((l) => l.command?.title === 'Export');
  assert.ok(lens?.command, 'an Export lens');
  const result = await vscode.commands.executeCommand<ExportModuleResult | undefined>(
    lens.command.command,
    ...((lens.command.arguments ?? []) as unknown[]),
  );
  assert.equal(result?.status, 'exported');
  const show = (await lensTitles(editor.document.uri)).includes('Show graph');
  assert.ok(show, 'a Show graph lens once exported');
});

test('Show ATen graph from a lens / hover link (uri, module) opens the graph', async () => {
  const editor = await open('clean_mlp.py');
  for (const d of graphDocuments('TinyMLP')) {
    await vscode.window.showTextDocument(d, { preview: true });
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  }
  await vscode.window.showTextDocument(editor.document, vscode.ViewColumn.One);
  await vscode.commands.executeCommand('exportlens.showGraph', editor.document.uri.toString(), 'TinyMLP');
  const document = await waitFor('the graph document', () => graphDocuments('TinyMLP')[0]);
  assert.match(document.getText(), /aten\./);
});

test('the graph document is refreshed on re-export', async () => {
  const editor = await open('clean_mlp.py');
  await vscode.commands.executeCommand('exportlens.showGraph', editor.document.uri.toString(), 'TinyMLP');
  const document = await waitFor('the graph document', () => graphDocuments('TinyMLP')[0]);
  const line = editor.document.getText().split('\n').findIndex((l) => l.includes('return self.fc2'));
  const changed = new Promise<void>((resolve) => {
    const sub = vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document === document && /sigmoid/.test(document.getText())) {
        sub.dispose();
        resolve();
      }
    });
  });
  await editor.edit((b) => {
    b.replace(new vscode.Range(line, 0, line, 1000), '        return torch.sigmoid(self.fc2(torch.relu(self.fc1(x))))');
  });
  await changed;
  assert.match(document.getText(), /aten\.sigmoid/);
  await vscode.commands.executeCommand('workbench.action.files.revert');
});

test('Save .pt2… writes the ExportedProgram', async () => {
  const editor = await open('clean_mlp.py');
  editor.selection = new vscode.Selection(12, 8, 12, 8);
  const target = workspaceFile('TinyMLP.pt2');
  const result = await vscode.commands.executeCommand<SavePt2Result | undefined>(
    'exportlens.savePt2As',
    editor.document.uri,
    target,
  );
  assert.ok(result, 'a result');
  assert.equal(result.saved, true, JSON.stringify(result));
  assert.ok(existsSync(target.fsPath), `${target.fsPath} exists`);
});

test('Save as ONNX… writes the .onnx of the module at the cursor', async () => {
  const editor = await open('clean_mlp.py');
  editor.selection = new vscode.Selection(12, 8, 12, 8);
  const target = workspaceFile('TinyMLP.onnx');
  const result = await vscode.commands.executeCommand<SavePt2Result | undefined>('exportlens.saveOnnxAs', editor.document.uri, target);
  assert.ok(result, 'a result');
  assert.equal(result.saved, true, JSON.stringify(result));
  assert.equal(result.path, target.fsPath);
  const bytes = readFileSync(target.fsPath);
  assert.ok(bytes.length > 4 * (8 * 16 + 16 * 4), `${bytes.length} bytes: the weights are in it`);
});

test('Compile with AOTInductor compiles the module at the cursor and says its package size', async () => {
  const editor = await open('clean_mlp.py');
  editor.selection = new vscode.Selection(12, 8, 12, 8);
  const result = await vscode.commands.executeCommand<CompileAotiResult | undefined>('exportlens.compileWithAoti');
  assert.ok(result, 'a result');
  assert.equal(result.module, 'TinyMLP');
  assert.equal(result.ok, true, JSON.stringify(result));
  assert.ok((result.facts.package_bytes ?? 0) > 0 && existsSync(result.facts.package_path ?? ''), JSON.stringify(result.facts));
  assert.deepEqual(
    vscode.languages.getDiagnostics(editor.document.uri).filter((d) => codeOf(d).startsWith('aoti-')),
    [],
  );
}, 600000);

test('Set mode changes the setting and the server gets it live', async () => {
  await vscode.commands.executeCommand('exportlens.setMode', 'strict');
  assert.equal(vscode.workspace.getConfiguration('exportlens').get('mode'), 'strict');
  await waitFor('the server to see mode strict', async () => ((await serverStatus()).settings.mode === 'strict' ? true : undefined), 30000);
  await vscode.commands.executeCommand('exportlens.setMode', 'auto');
  await waitFor('the server to see mode null (auto)', async () => ((await serverStatus()).settings.mode === null ? true : undefined), 30000);
});

test('other settings are mapped and applied live', async () => {
  await setSetting('runOn', 'save');
  await setSetting('timeoutSeconds', 12);
  await setSetting('memoryLimitMb', 4096);
  await waitFor('the server to see the settings', async () => {
    const s = (await serverStatus()).settings;
    return s.runOn === 'save' && s.timeoutSeconds === 12 && s.memoryLimitMb === 4096 ? true : undefined;
  }, 30000);
  const status = await serverStatus();
  assert.equal(status.trusted, true);
  assert.equal(status.torchImported, false, 'the server itself never imports torch');
  await setSetting('runOn', undefined);
  await setSetting('timeoutSeconds', undefined);
  await setSetting('memoryLimitMb', undefined);
});

test('the export worker sees none of the bundled libraries', async () => {
  const status = await vscode.commands.executeCommand<ServerStatus>('exportlens.status');
  assert.ok(status.workerPid !== null, 'a worker runs');
  const environ = readFileSync(`/proc/${status.workerPid}/environ`, 'utf8').split('\0');
  const cmdline = readFileSync(`/proc/${status.workerPid}/cmdline`, 'utf8').split('\0');
  const bundled = path.join('dist', 'libs');
  assert.deepEqual(environ.filter((e) => e.includes(bundled)), [], 'no bundled path in its environment');
  assert.deepEqual(cmdline.filter((a) => a.includes(bundled)), [], 'nor on its command line');
  const serverEnv = readFileSync(`/proc/${status.pid}/environ`, 'utf8').split('\0');
  assert.deepEqual(serverEnv.filter((e) => e.startsWith('PYTHONPATH=') && e.includes(bundled)), [], 'the server gets them by its launcher, not PYTHONPATH');
  const serverCmd = readFileSync(`/proc/${status.pid}/cmdline`, 'utf8').split('\0');
  assert.ok(serverCmd.some((a) => a.endsWith(bundled)), `the server's launcher gets ${bundled}: ${serverCmd.join(' ')}`);
});

test('Show logs and Restart server work; the server comes back ready', async () => {
  await vscode.commands.executeCommand('exportlens.showLogs');
  await vscode.commands.executeCommand('exportlens.restartServer');
  const lens = await ready();
  assert.equal(lens.status().kind, 'ready');
  const editor = await open('guarded.py');
  await waitFor('diagnostics after the restart', () =>
    vscode.languages.getDiagnostics(editor.document.uri).find((d) => codeOf(d) === 'data-dependent-branch'),
  );
});

test('a restart while the editor asks for code lenses shows no error', async () => {
  // The editor asks again after each check; a request on its way as the client stops met a
  // closed connection, and the stock client told the user "Request textDocument/codeLens failed."
  const editor = await open('guarded.py');
  let asking = true;
  let asked = 0;
  const askers = [0, 1, 2, 3].map(async () => {
    while (asking) {
      await vscode.commands.executeCommand('vscode.executeCodeLensProvider', editor.document.uri);
      asked++;
    }
  });
  await new Promise((r) => setTimeout(r, 300));
  await vscode.commands.executeCommand('exportlens.restartServer');
  await ready();
  asking = false;
  await Promise.all(askers);
  assert.ok(asked > 20, `asked for code lenses ${asked} times across the restart`);
});

test('a bad interpreter gives a clear error status; commands explain it', async () => {
  const lens = await api();
  const original = vscode.workspace.getConfiguration('exportlens').get<string>('interpreter');
  const noTorch = process.env.EXPORTLENS_TEST_NO_TORCH_PYTHON;
  assert.ok(noTorch !== undefined && noTorch !== '', 'the runner passes a Python without torch');
  try {
    await setSetting('interpreter', '/nonexistent/python3');
    const missing = await waitFor('the error status', () => {
      const s = lens.status();
      return s.kind === 'error' && s.message.includes('/nonexistent/python3') ? s : undefined;
    }, 30000);
    assert.match(missing.message, /not an executable/);
    // commands exist and explain themselves while the server is down (this also proves the
    // harness sees the extension's error notifications)
    expectErrorNotification(/^ExportLens: the server is not running: .*\/nonexistent\/python3/);
    const result = await vscode.commands.executeCommand('exportlens.exportThisModule');
    assert.equal(result, undefined);
    await setSetting('interpreter', noTorch);
    const state = await waitFor('the torch-not-found status', () => {
      const s = lens.status();
      return s.kind === 'error' && s.message.includes('torch not found') ? s : undefined;
    }, 60000);
    assert.equal(
      state.message,
      `torch not found in ${noTorch} — select an interpreter or pip install torch.`,
    );
    offersToSelectAnInterpreter(lens, state.message);
    const notified = await waitFor('the one notification', () => {
      const found = nothingUsableNotifications();
      return found.length > 0 ? found : undefined;
    }, 10000);
    assert.deepEqual(notified, [
      `ExportLens found no Python with torch to export with: ${noTorch} (no torch). Select an interpreter that has torch, or install torch into one.`,
    ]);
  } finally {
    await setSetting('interpreter', original);
    await ready();
  }
  await waitFor('ready again', () => (lens.status().kind === 'ready' ? true : undefined), 60000);
});

function nothingUsableNotifications(): string[] {
  return shownWarnings.filter((m) => m.startsWith('ExportLens found no Python with torch'));
}

/** The status item says what is wrong, in red, and its link is "Select interpreter". */
function offersToSelectAnInterpreter(lens: ExportLensApi, message: string): void {
  const item = lens.statusItem();
  assert.equal(item.text, '$(error) ExportLens: select an interpreter');
  assert.equal(item.detail, message);
  assert.equal(item.command, 'exportlens.selectInterpreter');
  assert.equal(item.severity, vscode.LanguageStatusSeverity.Error);
}

test('torch older than 2.10: the status says so with the fix, never a tick; Select interpreter fixes it', async () => {
  const lens = await api();
  const original = vscode.workspace.getConfiguration('exportlens').get<string>('interpreter');
  const oldTorch = process.env.EXPORTLENS_TEST_OLD_TORCH_PYTHON;
  assert.ok(original !== undefined && oldTorch !== undefined && oldTorch !== '', 'the runner passes a stand-in torch 2.9');
  const before = nothingUsableNotifications().length;
  try {
    await setSetting('interpreter', oldTorch);
    const ticks: string[] = []; // the item while it showed the old torch as ready: the bug this guards
    const state = await waitFor('the too-old status', () => {
      const s = lens.status();
      if (s.kind === 'ready' && s.python === oldTorch) {
        ticks.push(lens.statusItem().text);
      }
      return s.kind === 'error' && s.message.includes('too old') ? s : undefined;
    }, 60000);
    assert.equal(
      state.message,
      `torch 2.9.0 in ${oldTorch} is too old: ExportLens needs torch ≥ 2.10 — select another interpreter, or upgrade it there (pip install -U 'torch>=2.10').`,
    );
    offersToSelectAnInterpreter(lens, state.message);
    assert.deepEqual(ticks, [], 'never ready, never a green tick, with torch 2.9');
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(nothingUsableNotifications().length, before, 'the notification is not repeated');
    // the status item's link, with the interpreter a user would pick
    await vscode.commands.executeCommand('exportlens.selectInterpreter', original);
    const fixed = await waitFor('ready with the chosen interpreter', () => {
      const s = lens.status();
      return s.kind === 'ready' && s.python === original ? s : undefined;
    }, 90000);
    // once its files are re-checked (meanwhile it says "exporting…")
    const item = await waitFor('the green tick', () => {
      const shown = lens.statusItem();
      return shown.text.startsWith('$(check)') ? shown : undefined;
    }, 90000);
    assert.match(item.text, /^\$\(check\) ExportLens: torch 2\.\d+/);
    assert.equal(item.command, 'exportlens.selectInterpreter');
    assert.ok(fixed.torch.startsWith('2.'));
  } finally {
    // the folder's setting (Select interpreter wrote it) first: the user's then decides; one
    // restart at a time (two at once log "restarting" twice in a row, which the runner flags)
    await vscode.workspace.getConfiguration('exportlens').update('interpreter', undefined, vscode.ConfigurationTarget.Workspace);
    await waitFor('the stand-in again', () => {
      const s = lens.status();
      return s.kind === 'error' && s.message.includes(oldTorch) ? true : undefined;
    }, 60000).catch(() => undefined);
    await setSetting('interpreter', original);
    await readyWith(lens, original);
  }
});

/** Ready with `python`: a start that the test's last setting change began has finished. */
async function readyWith(lens: ExportLensApi, python: string | undefined): Promise<void> {
  await waitFor(`ready with ${String(python)}`, () => {
    const s = lens.status();
    return s.kind === 'ready' && s.python === python ? true : undefined;
  }, 90000);
}

test("without the setting: the workspace's .venv, before python3 on PATH", async () => {
  const lens = await api();
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(folder !== undefined && extension !== undefined);
  const venv = path.join(folder, '.venv');
  symlinkSync(path.join(extension.extensionPath, '.venv'), venv); // the repository's, which has torch
  const original = vscode.workspace.getConfiguration('exportlens').get<string>('interpreter');
  try {
    await setSetting('interpreter', undefined);
    const state = await waitFor('ready with the workspace venv', () => {
      const s = lens.status();
      return s.kind === 'ready' && s.python === path.join(venv, 'bin', 'python') ? s : undefined;
    }, 90000);
    assert.ok(state.torch.startsWith('2.'));
  } finally {
    await setSetting('interpreter', original);
    await readyWith(lens, original);
    unlinkSync(venv);
  }
});

export async function run(): Promise<void> {
  console.log(`EXPORTLENS-TEST # workspace ${path.basename(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '')}`);
  await runAll();
}
