/**
 * The output channel the language client writes the server's stderr into. The client appends
 * each chunk as it comes, and the log channel makes every append an entry of its own: an
 * unbuffered Python (PYTHONUNBUFFERED, launch.ts) writes a traceback in pieces, so the logs
 * showed "    ", "from .cli import main", "" as separate entries. Chunks are joined here
 * and only whole lines go on. No `vscode` import at run time: unit-tested.
 */
import type * as vscode from 'vscode';

/** Cuts a stream of chunks into whole lines: what ends without a newline waits for the next. */
export class LineJoiner {
  private pending = '';

  constructor(private readonly emit: (lines: string) => void) {}

  push(chunk: string): void {
    const text = this.pending + chunk;
    const end = text.lastIndexOf('\n');
    if (end < 0) {
      this.pending = text;
      return;
    }
    this.pending = text.slice(end + 1);
    // everything complete in one entry: a traceback that came in one chunk stays together
    this.emit(text.slice(0, end).replace(/\r$/, ''));
  }

  flush(): void {
    if (this.pending !== '') {
      const rest = this.pending;
      this.pending = '';
      this.emit(rest);
    }
  }
}

type Sink = Pick<vscode.OutputChannel, 'name' | 'appendLine' | 'replace' | 'clear' | 'hide'> & {
  show(preserveFocus?: boolean): void;
};

/** `log` as the client's outputChannel: `append` (stderr) joined into lines, the rest as is.
 *  Disposing it leaves `log` open (the extension owns it). */
export function serverOutputChannel(log: Sink): vscode.OutputChannel {
  const lines = new LineJoiner((text) => log.appendLine(text));
  return {
    name: log.name,
    append: (value) => lines.push(value),
    appendLine: (value) => {
      lines.flush(); // the client's own line must not land inside a half stderr line
      log.appendLine(value);
    },
    replace: (value) => {
      lines.flush();
      log.replace(value);
    },
    clear: () => log.clear(),
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the interface has both overloads
    show: (column?: vscode.ViewColumn | boolean, preserveFocus?: boolean) =>
      log.show(typeof column === 'boolean' ? column : preserveFocus),
    hide: () => log.hide(),
    dispose: () => lines.flush(),
  };
}
