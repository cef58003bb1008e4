import * as vscode from 'vscode';

/** Where the cursor is in a file buffer, as `exportlens/cursor` sends it (protocol.ts). */
export type SendCursor = (uri: string, line: number) => void;

const SETTLE_MS = 150; // a selection drag or held arrow key sends its last line only

function isChecked(document: vscode.TextDocument): boolean {
  return document.languageId === 'python' && (document.uri.scheme === 'file' || document.uri.scheme === 'untitled');
}

/** The line of `document`'s cursor in the active editor (else a visible one), if it is shown. */
export function cursorLine(document: vscode.TextDocument): number | undefined {
  const editors = [vscode.window.activeTextEditor, ...vscode.window.visibleTextEditors];
  return editors.find((e) => e?.document === document)?.selection.active.line;
}

/**
 * Tells the server where the cursor is, so the module under it is checked first
 * (server/exportlens/lsp/cursor.py): on each settled selection change and editor switch.
 */
export function watchCursor(send: SendCursor): vscode.Disposable {
  let pending: NodeJS.Timeout | undefined;
  const tell = (editor: vscode.TextEditor | undefined): void => {
    if (editor === undefined || !isChecked(editor.document)) {
      return;
    }
    clearTimeout(pending);
    pending = setTimeout(() => send(editor.document.uri.toString(), editor.selection.active.line), SETTLE_MS);
  };
  return vscode.Disposable.from(
    vscode.window.onDidChangeTextEditorSelection((event) => tell(event.textEditor)),
    vscode.window.onDidChangeActiveTextEditor(tell),
    new vscode.Disposable(() => clearTimeout(pending)),
  );
}

/** Just before a buffer's didOpen: its cursor, which the server keeps for that first check. */
export function tellOpened(document: vscode.TextDocument, send: SendCursor): void {
  const line = isChecked(document) ? cursorLine(document) : undefined;
  if (line !== undefined) {
    send(document.uri.toString(), line);
  }
}
