/**
 * The ExportLens language status item (the `{}` area of the status bar on Python files):
 * starting / ready (torch version, mode) / exporting / static checks only / error. Its link is
 * "Select interpreter" when ready and when the interpreter is what is wrong (no torch, too old),
 * else "Show logs".
 */
import * as vscode from 'vscode';

export type StatusState =
  | { kind: 'starting'; detail?: string }
  | { kind: 'ready'; torch: string; mode: string; python: string; trusted: boolean }
  | { kind: 'stopped'; reason: string }
  /** The server runs, exports cannot (native Windows): `reason` says why and what to do. */
  | { kind: 'static-only'; reason: string; python: string }
  /** `interpreter`: choosing another interpreter fixes it. */
  | { kind: 'error'; message: string; interpreter?: boolean };

export const SHOW_LOGS_COMMAND = 'exportlens.showLogs';
export const SELECT_INTERPRETER_COMMAND = 'exportlens.selectInterpreter';

const SHOW_LOGS: vscode.Command = { title: 'Show logs', command: SHOW_LOGS_COMMAND };
const SELECT_INTERPRETER: vscode.Command = { title: 'Select interpreter', command: SELECT_INTERPRETER_COMMAND };

export class ServerStatus implements vscode.Disposable {
  private readonly item: vscode.LanguageStatusItem;
  private state: StatusState = { kind: 'starting' };
  private readonly exporting = new Set<string>();
  private readonly changed = new vscode.EventEmitter<StatusState>();
  /** Fires on every state change (tests and the commands read it). */
  readonly onDidChange = this.changed.event;

  constructor() {
    this.item = vscode.languages.createLanguageStatusItem('exportlens.status', { language: 'python' });
    this.item.name = 'ExportLens';
    this.render();
  }

  get current(): StatusState {
    return this.state;
  }

  /** What the item shows (the extension-host tests read it). */
  get shown(): { text: string; detail: string; command: string | undefined; severity: vscode.LanguageStatusSeverity } {
    const { text, detail, command, severity } = this.item;
    return { text, detail: detail ?? '', command: command?.command, severity };
  }

  set(state: StatusState): void {
    this.state = state;
    if (state.kind !== 'ready') {
      this.exporting.clear();
    }
    this.render();
    this.changed.fire(state);
  }

  /** A check of `key` (a document URI, or a command) started / ended. */
  busy(key: string, on: boolean): void {
    if (on) {
      this.exporting.add(key);
    } else {
      this.exporting.delete(key);
    }
    this.render();
  }

  get isExporting(): boolean {
    return this.exporting.size > 0;
  }

  private render(): void {
    const item = this.item;
    const state = this.state;
    item.busy = false;
    item.severity = vscode.LanguageStatusSeverity.Information;
    item.command = SHOW_LOGS;
    switch (state.kind) {
      case 'starting':
        item.text = 'ExportLens: starting…';
        item.detail = state.detail ?? '';
        item.busy = true;
        break;
      case 'ready':
        if (!state.trusted) {
          item.text = '$(shield) ExportLens: untrusted';
          item.detail = 'no code runs: static checks only';
          item.severity = vscode.LanguageStatusSeverity.Warning;
        } else if (this.exporting.size > 0) {
          item.text = 'ExportLens: exporting…';
          item.detail = `torch ${state.torch} · ${state.mode}`;
          item.busy = true;
        } else {
          item.text = `$(check) ExportLens: torch ${state.torch}`;
          item.detail = `mode ${state.mode} · ${state.python}`;
          item.command = SELECT_INTERPRETER;
        }
        break;
      case 'static-only':
        item.text = '$(warning) ExportLens: static checks only';
        item.detail = state.reason;
        item.severity = vscode.LanguageStatusSeverity.Warning;
        break;
      case 'stopped':
        item.text = 'ExportLens: stopped';
        item.detail = state.reason;
        item.severity = vscode.LanguageStatusSeverity.Warning;
        break;
      case 'error':
        item.text = state.interpreter === true ? '$(error) ExportLens: select an interpreter' : '$(error) ExportLens';
        item.detail = state.message;
        item.severity = vscode.LanguageStatusSeverity.Error;
        item.command = state.interpreter === true ? SELECT_INTERPRETER : SHOW_LOGS;
        break;
    }
    item.accessibilityInformation = { label: `${item.text} ${item.detail ?? ''}`.trim() };
  }

  dispose(): void {
    this.item.dispose();
    this.changed.dispose();
  }
}
