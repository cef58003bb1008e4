/**
 * Extension-host tests in an UNTRUSTED folder (workspace trust left on, never granted):
 * the server is told so and runs no user code; the folder's own interpreter setting is ignored.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ExportLensApi } from '../../src/extension';
import { EXTENSION_ID } from '../extensionId';
import type { ServerStatus } from '../../src/protocol';
import { runAll, test, waitFor } from './harness';

function codeOf(diagnostic: vscode.Diagnostic): string {
  const code = diagnostic.code;
  return typeof code === 'object' ? String(code.value) : String(code);
}

async function api(): Promise<ExportLensApi> {
  const extension = vscode.extensions.getExtension<ExportLensApi>(EXTENSION_ID);
  assert.ok(extension);
  return extension.isActive ? extension.exports : extension.activate();
}

test('the folder is untrusted and its exportlens.interpreter is ignored', async () => {
  assert.equal(vscode.workspace.isTrusted, false);
  const lens = await api();
  const state = await waitFor('the server to start', async () => {
    await lens.whenStarted();
    const s = lens.status();
    return s.kind === 'starting' ? undefined : s;
  });
  assert.equal(state.kind, 'ready', JSON.stringify(state));
  assert.equal(state.trusted, false);
  assert.notEqual(state.python, '/untrusted/folder/python');
});

test('the server knows: untrusted, no worker, only the static notice', async () => {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder);
  const document = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder.uri, 'guarded.py'));
  await vscode.window.showTextDocument(document);
  const notice = await waitFor('the untrusted-workspace notice', () =>
    vscode.languages.getDiagnostics(document.uri).find((d) => codeOf(d) === 'untrusted-workspace'),
  );
  assert.equal(notice.severity, vscode.DiagnosticSeverity.Information);
  const status = await vscode.commands.executeCommand<ServerStatus>('exportlens.status');
  assert.equal(status.trusted, false);
  assert.equal(status.workerPid, null, 'no export worker was started');
  assert.ok(!vscode.languages.getDiagnostics(document.uri).some((d) => codeOf(d) === 'data-dependent-branch'));
});

export async function run(): Promise<void> {
  await runAll();
}
