/**
 * The text of a graph document: a Python-comment header, then the server's graph code, or,
 * when the export failed, why. Pure (no `vscode`): unit-tested.
 */
import type { ExportModuleResult, FindingJson, GraphResult } from './protocol';

export interface GraphDocumentInput {
  module: string;
  file: string;
  /** The last explicit export's result, when the document was opened by one. */
  exported?: ExportModuleResult;
  graph?: GraphResult;
}

const WIDTH = 60;

/** Words of `text` in lines of at most `width` characters (a longer word stays whole). */
export function wrap(text: string, width = WIDTH): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let current = '';
    for (const word of paragraph.split(/\s+/).filter((w) => w !== '')) {
      if (current !== '' && current.length + 1 + word.length > width) {
        lines.push(current);
        current = word;
      } else {
        current = current === '' ? word : `${current} ${word}`;
      }
    }
    lines.push(current);
  }
  return lines;
}

function findingLines(finding: FindingJson): string[] {
  const line = finding.range !== undefined ? ` line ${finding.range.start.line + 1}` : '';
  const code = finding.code !== undefined ? `[${finding.code}]` : '';
  return [`#   ${finding.severity ?? 'error'}${code}${line}:`, ...wrap(finding.message).map((l) => `#     ${l}`.trimEnd())];
}

export function graphDocumentText(input: GraphDocumentInput): string {
  const head = `# ExportLens · ATen graph of ${input.module} (${input.file})`;
  const code = (input.graph?.code ?? input.exported?.graph ?? '').trim().replace(/\n{3,}/g, '\n\n');
  if (code !== '') {
    const lines = [head];
    const ops = input.exported?.summary.ops;
    if (input.exported !== undefined) {
      lines.push(`# status: ${input.exported.status}${ops !== undefined ? ` · ${ops} ops` : ''}`);
    }
    if (input.graph?.stale === true) {
      lines.push('# stale: the source changed since this export; it is being re-checked.');
    }
    lines.push('# read-only: refreshed on every re-export', '', code, '');
    return lines.join('\n');
  }
  const status = input.exported?.status ?? 'not exported';
  const why =
    status === 'compiled'
      ? 'it is only compiled (a torch.compile check), not exported'
      : `the export ${status === 'exported' ? 'produced none' : `ended "${status}"`}`;
  const lines = [head, `# No graph: ${why}.`];
  const findings = input.exported?.findings ?? [];
  if (findings.length > 0) {
    lines.push('# Why:', ...findings.flatMap(findingLines));
  } else {
    lines.push('# See the Problems panel for why, and the quick fixes.');
  }
  lines.push('');
  return lines.join('\n');
}
