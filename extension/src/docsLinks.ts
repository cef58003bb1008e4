/**
 * A code's documentation link opens that code's section rendered.
 *
 * The server links each code to its section of the docs it ships (`file:///…/docs/codes.md#code`,
 * offline, for any client and the CLI's SARIF). VS Code opens such a link as text, at the top of
 * the file. The client turns it into a link to `exportlens.openDocs`, which opens the built-in
 * markdown preview scrolled to the fragment (VS Code and code-server alike, no network); where the
 * preview is missing, the text at the section's heading. The Problems panel and the hover open a
 * diagnostic's code link with commands allowed.
 */
import * as vscode from 'vscode';

export const OPEN_DOCS_COMMAND = 'exportlens.openDocs';
const PREVIEW = 'markdown.showPreview';

/** `target` as the link the editor shows: a markdown section's becomes the command's. */
export function docsLink(target: vscode.Uri): vscode.Uri {
  if (target.scheme !== 'file' || !target.path.endsWith('.md') || target.fragment === '') {
    return target;
  }
  const args = encodeURIComponent(JSON.stringify([target.toString()]));
  return vscode.Uri.parse(`command:${OPEN_DOCS_COMMAND}?${args}`);
}

/** The server's diagnostics with their documentation links made `docsLink`s (client middleware). */
export function withDocsLinks(diagnostics: vscode.Diagnostic[]): vscode.Diagnostic[] {
  for (const diagnostic of diagnostics) {
    const code = diagnostic.code;
    if (typeof code === 'object') {
      diagnostic.code = { value: code.value, target: docsLink(code.target) };
    }
  }
  return diagnostics;
}

/** Open `link` (a markdown file with a `#section`) rendered at its section. */
export async function openDocs(link: string): Promise<void> {
  const target = vscode.Uri.parse(link);
  try {
    // (not in getCommands until the markdown extension activates: this call activates it)
    await vscode.commands.executeCommand(PREVIEW, target);
    return;
  } catch {
    // the built-in markdown extension is disabled: the text, at the section
  }
  const document = await vscode.workspace.openTextDocument(target.with({ fragment: '' }));
  const heading = document.getText().split('\n').findIndex((line) => line.trim() === `## ${target.fragment}`);
  const at = new vscode.Position(Math.max(heading, 0), 0);
  await vscode.window.showTextDocument(document, { selection: new vscode.Range(at, at), preview: true });
}

export function registerDocsLinks(): vscode.Disposable {
  return vscode.commands.registerCommand(OPEN_DOCS_COMMAND, (link: string) => openDocs(link));
}
