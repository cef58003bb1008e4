import type { DocumentFilter } from 'vscode-languageclient/node';

/**
 * Jupyter notebooks: the Python cells of notebooks, saved or untitled, and of VS Code's
 * interactive window. Their text reaches the server through LSP notebook synchronisation (the
 * server's `notebookDocumentSync` names the notebook types); this filter lets the client's hover,
 * code lens and code actions ask the server about a cell.
 */
export const NOTEBOOK_CELLS: DocumentFilter[] = [{ scheme: 'vscode-notebook-cell', language: 'python' }];

/** A notebook cell's document (the commands accept it as they accept a file's). */
export function isNotebookCell(uri: { scheme: string }): boolean {
  return uri.scheme === 'vscode-notebook-cell';
}
