/**
 * The "ExportLens" output channel, as the workbench wrote it to disk: each server log line must
 * be in it once. The server writes its log records both to stderr and as window/logMessage, and
 * the language client copies both into the channel unless the extension drops one (client.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const ENTRY = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \[\w+\] (.*)$/;

/** The channel's file under a run's user data (logs/<session>/exthost1/<extension id>/). */
export function outputLogFile(runDir: string, extensionId: string, channel: string): string {
  const logs = path.join(runDir, 'user-data', 'logs');
  for (const session of readdirSync(logs)) {
    for (const host of readdirSync(path.join(logs, session))) {
      const file = path.join(logs, session, host, extensionId, `${channel}.log`);
      if (existsSync(file)) {
        return file;
      }
    }
  }
  throw new Error(`no ${channel}.log of ${extensionId} under ${logs}`);
}

/** What a line says, without the client's "[Info  - 1:02:03 PM] " (window/logMessage) or the
 *  server's "exportlens.lsp: " (stderr) prefix: the two copies of one record differ there. */
function said(text: string): string {
  const client = /^\[(Info|Warn|Error|Debug) *- [^\]]*\] /;
  return client.test(text) ? text.replace(client, '') : text.replace(/^(exportlens|pygls)(\.\w+)*: /, '');
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/**
 * Problems with the log: a line said twice in a row (protocol traces aside, which legitimately
 * repeat), a failed request, or the server's "ready" line not once per start the client logged.
 */
export function outputLogProblems(file: string): string[] {
  const entries = readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => ENTRY.exec(line)?.[1])
    .filter((text): text is string => text !== undefined && !text.startsWith('[Trace'));
  const problems: string[] = [];
  for (let i = 1; i < entries.length; i++) {
    const [before, now] = [entries[i - 1] ?? '', entries[i] ?? ''];
    if (said(before) === said(now)) {
      problems.push(`logged twice: «${clip(before)}» / «${clip(now)}»`);
    }
  }
  // A feature request the server answered with an error (quietClient.ts logs it, shows nothing).
  for (const text of entries.filter((t) => /\bRequest \S+ failed\b/.test(t))) {
    problems.push(`a request failed: «${clip(text)}»`);
  }
  const starts = entries.filter((t) => /^Python \S+, torch \S+$/.test(t)).length;
  const ready = entries.filter((t) => t.includes('ExportLens server ready')).length;
  if (ready !== starts) {
    problems.push(`the server's "ExportLens server ready" line is in the log ${ready} time(s) for ${starts} start(s)`);
  }
  return problems;
}
