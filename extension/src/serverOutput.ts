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

type Sink = Pick<vscode.LogOutputChannel, 'name' | 'appendLine' | 'replace' | 'clear' | 'hide'> &
  Pick<vscode.LogOutputChannel, 'debug' | 'info' | 'warn' | 'error'> & {
    show(preserveFocus?: boolean): void;
  };

// The server's stderr lines start with their level (lsp/server.py's log format).
const LEVELED = /^(DEBUG|INFO|WARNING|ERROR|CRITICAL) (?=\S)/;

/**
 * Whole stderr lines into the log under their own level: a record's continuation lines (its
 * traceback) stay with it; what no level starts (pygls, the interpreter dying) is appended as is.
 */
export function fileByLevel(text: string, log: Sink): void {
  const records: { level: string | undefined; lines: string[] }[] = [];
  for (const line of text.split('\n')) {
    const level = LEVELED.exec(line)?.[1];
    const last = records.at(-1);
    if (level !== undefined || last === undefined) {
      records.push({ level, lines: [level === undefined ? line : line.slice(level.length + 1)] });
    } else {
      last.lines.push(line);
    }
  }
  for (const { level, lines } of records) {
    const entry = lines.join('\n');
    if (level === 'DEBUG') log.debug(entry);
    else if (level === 'INFO') log.info(entry);
    else if (level === 'WARNING') log.warn(entry);
    else if (level === 'ERROR' || level === 'CRITICAL') log.error(entry);
    else log.appendLine(entry);
  }
}

/** `log` as the client's outputChannel: `append` (stderr) joined into lines and filed under
 *  their level, the rest as is. Disposing it leaves `log` open (the extension owns it). */
export function serverOutputChannel(log: Sink): vscode.OutputChannel {
  const lines = new LineJoiner((text) => fileByLevel(text, log));
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
