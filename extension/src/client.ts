/**
 * The server's lifecycle: resolve and check the interpreter, start the language client,
 * restart it (interpreter change, trust granted, command), stop it. Owns no UI besides
 * reporting its state to the status item.
 */
import * as vscode from 'vscode';
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  ExecuteCommandRequest,
  type LanguageClient,
  LogMessageNotification,
  State,
  type ErrorHandler,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { tellOpened, watchCursor } from './cursor';
import { withDocsLinks } from './docsLinks';
import { InterpreterChoice } from './interpreterChoice';
import { layout, serverLaunch } from './launch';
import { exportsUnsupported } from './platform';
import type { Check } from './probe';
import { QuietLanguageClient } from './quietClient';
import { ServerProcesses, type ProcessLaunch } from './serverProcess';
import {
  CONFIG_SECTION,
  CursorNotification,
  FileCheckedNotification,
  ServerCommand,
  ShowGraphCommand,
  type CommandArgs,
  type CommandType,
  type FileCheckedParams,
  type InitializationOptions,
  type ServerSettings,
} from './protocol';
import { onInterpreterChange } from './pythonExtension';
import { serverOutputChannel } from './serverOutput';
import {
  RESTART_SETTINGS,
  SECTION,
  explicitSettings,
  modeLabel,
  readClientSettings,
  toServerSettings,
} from './settings';
import type { ServerStatus } from './status';
import { NOTEBOOK_CELLS } from './notebooks';

export interface ClientHooks {
  /** A check of a file ended (server notification). */
  onFileChecked(params: FileCheckedParams): void;
  /** A document event that makes the server check a file was sent. */
  onCheckScheduled(uri: string): void;
  /** A document was closed: no check result will come for it. */
  onDocumentClosed(uri: string): void;
  /** The server asked to run `exportlens.exportModule` (a code lens): the UI runs it. */
  onExportModuleCommand(...args: CommandArgs<typeof ServerCommand.exportModule>): Promise<unknown>;
}

const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60 * 1000;

export class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private check: Check | undefined;
  private starting: Promise<void> | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private clientDisposables: { dispose(): unknown }[] = [];
  private crashes: number[] = [];
  private readonly processes = new ServerProcesses((message) => this.log.warn(message));
  /** When this start attempt began (activation, a restart). */
  private since = Date.now();
  /** Why the server is not running, for commands run meanwhile. */
  private downReason = 'the server is starting';
  readonly interpreters: InterpreterChoice;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly status: ServerStatus,
    private readonly hooks: ClientHooks,
  ) {
    this.interpreters = new InterpreterChoice(log);
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((event) => this.onConfigurationChange(event)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.log.info('workspace trusted: restarting the server so it may run exports');
        void this.restart();
      }),
    );
    void onInterpreterChange(() => {
      if (readClientSettings(this.reader()).interpreter === '') {
        this.log.info('the Python (Environments) extension selected another interpreter: restarting');
        void this.restart();
      }
    }).then((d) => this.disposables.push(d));
  }

  /** The running client, or undefined (then `whyDown` says why). */
  get running(): LanguageClient | undefined {
    return this.client?.state === State.Running ? this.client : undefined;
  }

  get whyDown(): string {
    return this.downReason;
  }

  /** The interpreter the server runs with (or would, had its probe passed). */
  get python(): string | undefined {
    return this.check?.python;
  }

  /** Resolves once the current start attempt is over (running or not). */
  async whenStarted(): Promise<void> {
    await this.starting;
  }

  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  async restart(): Promise<void> {
    await this.starting?.catch(() => undefined);
    await this.stop();
    this.crashes = [];
    await this.start();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.clientDisposables.forEach((d) => d.dispose());
    this.clientDisposables = [];
    if (client !== undefined) {
      try {
        if (client.state !== State.Stopped) {
          await client.stop(5000);
        }
      } catch (error) {
        this.log.warn(`stopping the server: ${String(error)}`);
      }
      await client.dispose().catch(() => undefined);
    }
    this.processes.stopAll();
  }

  /** The settings the server gets, mapped from exportlens.* (settings.ts). */
  serverSettings(scope?: vscode.ConfigurationScope): ServerSettings {
    const config = vscode.workspace.getConfiguration(SECTION, scope ?? vscode.workspace.workspaceFolders?.[0]);
    const settings = toServerSettings(readClientSettings((name) => config.get(name)), {
      python: this.check?.kind === 'ok' ? this.check.python : null,
      trusted: vscode.workspace.isTrusted,
    });
    const isSet = (name: string): boolean => {
      const seen = config.inspect(name);
      return (
        seen !== undefined &&
        (seen.globalValue !== undefined || seen.workspaceValue !== undefined || seen.workspaceFolderValue !== undefined)
      );
    };
    return { ...settings, explicit: explicitSettings(isSet) };
  }

  private reader(): (name: string) => unknown {
    const config = vscode.workspace.getConfiguration(SECTION, vscode.workspace.workspaceFolders?.[0]);
    return (name) => config.get(name);
  }

  private async doStart(): Promise<void> {
    this.since = Date.now();
    this.status.set({ kind: 'starting', detail: 'finding the interpreter' });
    this.downReason = 'the server is starting';
    let spawned = Date.now();
    const choice = await this.interpreters.find(readClientSettings(this.reader()).interpreter, (first) => {
      // The server (and the worker it starts) run while the probe reads torch's version.
      this.processes.spawnEarly(this.launchFor(first));
      spawned = Date.now();
      this.status.set({ kind: 'starting', detail: `checking ${first}` });
    });
    if ('kind' in choice) {
      return this.fail(choice.message, true);
    }
    const check = choice.check;
    this.check = check;
    if (check.kind === 'problem') {
      this.processes.discardEarly();
      return this.fail(check.message, true);
    }
    this.log.info(`Python ${check.pythonVersion}, torch ${check.torch}`);
    // Where a slow start goes: the extension host's own timestamps of these lines are batched.
    this.log.info(
      `server process started at ${new Date(spawned).toISOString()} (${spawned - this.since} ms into the start), interpreter probed in ${Date.now() - spawned} ms`,
    );
    const client = this.createClient(check.python);
    this.client = client;
    this.status.set({ kind: 'starting', detail: 'starting the language server' });
    try {
      await client.start();
    } catch (error) {
      if (this.client === client) {
        this.client = undefined;
      }
      return this.fail(`the server did not start with ${check.python}: ${String(error)} — see the logs.`);
    }
    this.ready(check);
  }

  private ready(check: Extract<Check, { kind: 'ok' }>): void {
    const unsupported = exportsUnsupported();
    if (unsupported !== undefined) {
      this.status.set({ kind: 'static-only', reason: unsupported, python: check.python });
      return;
    }
    this.status.set({
      kind: 'ready',
      torch: check.torch,
      mode: modeLabel(readClientSettings(this.reader()).mode),
      python: check.python,
      trusted: vscode.workspace.isTrusted,
    });
  }

  /** `interpreter`: another interpreter would fix it (the status item offers to select one). */
  private fail(message: string, interpreter = false): void {
    this.downReason = message;
    this.log.error(message);
    this.status.set({ kind: 'error', message, interpreter });
  }

  private launchFor(python: string): ProcessLaunch {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const startWorker = vscode.workspace.isTrusted && exportsUnsupported() === undefined;
    const launch = serverLaunch(python, layout(this.context.extensionPath), process.env, false, startWorker);
    return { ...launch, cwd: folder?.uri.fsPath ?? this.context.extensionPath };
  }

  private createClient(python: string): LanguageClient {
    const launch = this.launchFor(python);
    // The early process first; each restart of the client spawns a fresh one.
    const serverOptions: ServerOptions = () => Promise.resolve(this.processes.take(launch));
    const initializationOptions: InitializationOptions = {
      trusted: vscode.workspace.isTrusted,
      settings: this.serverSettings(),
      cacheDir: this.context.storageUri?.fsPath,
    };
    const clientOptions: LanguageClientOptions = {
      // untitled: buffers run user code too: only in a trusted workspace
      documentSelector: [
        { scheme: 'file', language: 'python' },
        ...(vscode.workspace.isTrusted ? [{ scheme: 'untitled', language: 'python' }] : []),
        ...NOTEBOOK_CELLS,
      ],
      outputChannel: serverOutputChannel(this.log),
      traceOutputChannel: this.log,
      initializationOptions,
      // hovers link to "Open the whole graph" (command:exportlens.showGraph?...): trust that one only
      markdown: { isTrusted: { enabledCommands: [ShowGraphCommand.name] }, supportHtml: false },
      errorHandler: this.errorHandler(),
      middleware: {
        // a code's documentation link opens its section rendered (docsLinks.ts)
        handleDiagnostics: (uri, diagnostics, next) => next(uri, withDocsLinks(diagnostics)),
        workspace: {
          configuration: async (params, token, next) => {
            const answers: unknown[] = [];
            for (const item of params.items) {
              if (item.section === CONFIG_SECTION) {
                // a folder's own settings when the server asks with its scopeUri (multi-root)
                const folder = item.scopeUri ? vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(item.scopeUri)) : undefined;
                answers.push(this.serverSettings(folder));
              } else {
                const other: unknown = await next({ items: [item] }, token);
                answers.push(Array.isArray(other) ? (other[0] as unknown) : null);
              }
            }
            return answers;
          },
        },
        didOpen: (document, next) => {
          this.hooks.onCheckScheduled(document.uri.toString());
          tellOpened(document, this.sendCursor); // before the didOpen: its first check plans with it
          return next(document);
        },
        didChange: (event, next) => {
          if (readClientSettings(this.reader()).runOn === 'type' && event.contentChanges.length > 0) {
            this.hooks.onCheckScheduled(event.document.uri.toString());
          }
          return next(event);
        },
        didSave: (document, next) => {
          this.hooks.onCheckScheduled(document.uri.toString());
          return next(document);
        },
        didClose: (document, next) => {
          this.hooks.onDocumentClosed(document.uri.toString());
          return next(document);
        },
        executeCommand: (command, args, next) =>
          command === ServerCommand.exportModule.name
            ? // the server's own code lens: its arguments are the command's
              this.hooks.onExportModuleCommand(...(args as CommandArgs<typeof ServerCommand.exportModule>))
            : (next(command, args) as unknown),
      },
    };
    const client = new QuietLanguageClient('exportlens', 'ExportLens', serverOptions, clientOptions);
    // The server writes each log record to stderr, which the client copies into this channel,
    // and sends it as window/logMessage too: both printed every line twice. stderr is the
    // complete one (pygls's own warnings, a traceback when the server dies), so it stays.
    // Lives as long as the client: it replaces the client's built-in handler.
    client.onNotification(LogMessageNotification.type, () => undefined);
    this.clientDisposables.push(
      client.onNotification(FileCheckedNotification, (params: FileCheckedParams) => this.hooks.onFileChecked(params)),
      watchCursor(this.sendCursor),
      client.onDidChangeState((event) => {
        if (event.newState === State.Stopped && this.client === client) {
          this.downReason = 'the server stopped — run "ExportLens: Restart server" (see the logs)';
          this.status.set({ kind: 'stopped', reason: this.downReason });
        } else if (event.newState === State.Running && this.check?.kind === 'ok') {
          this.ready(this.check);
        }
      }),
    );
    return client;
  }

  /** `exportlens/cursor` to the running server; nothing while it is down (cursor.ts). */
  private readonly sendCursor = (uri: string, line: number): void => {
    void this.running?.sendNotification(CursorNotification, { uri, line });
  };

  private errorHandler(): ErrorHandler {
    return {
      error: () => ({ action: ErrorAction.Continue }),
      closed: () => {
        const now = Date.now();
        this.crashes = [...this.crashes.filter((t) => now - t < RESTART_WINDOW_MS), now];
        if (this.crashes.length <= MAX_RESTARTS) {
          this.log.warn(`the server exited; restarting (${this.crashes.length}/${MAX_RESTARTS})`);
          return { action: CloseAction.Restart };
        }
        const message = `the server exited ${this.crashes.length} times in 3 minutes — see the logs, then run "ExportLens: Restart server".`;
        this.fail(message);
        return { action: CloseAction.DoNotRestart, message };
      },
    };
  }

  /** Sends `workspace/executeCommand` to the server (cancellable); the result is typed by the command. */
  async execute<Args extends unknown[], Result>(
    command: CommandType<Args, Result>,
    args: Args,
    token?: vscode.CancellationToken,
  ): Promise<Result> {
    const client = this.running;
    if (client === undefined) {
      throw new Error(`ExportLens server is not running: ${this.downReason}`);
    }
    const params = { command: command.name, arguments: args };
    // the one place a server answer becomes its declared type (protocol.ts)
    return (await client.sendRequest(ExecuteCommandRequest.type, params, token)) as Result;
  }

  private onConfigurationChange(event: vscode.ConfigurationChangeEvent): void {
    if (!event.affectsConfiguration(SECTION)) {
      return;
    }
    if (RESTART_SETTINGS.some((name) => event.affectsConfiguration(name))) {
      this.log.info('the interpreter setting changed: restarting the server');
      void this.restart();
      return;
    }
    const client = this.running;
    if (client !== undefined) {
      // Push the mapped settings (the server also pulls `workspace/configuration` on its own).
      void client.sendNotification(DidChangeConfigurationNotification.type, {
        settings: { [CONFIG_SECTION]: this.serverSettings() },
      });
      if (this.check?.kind === 'ok') {
        this.ready(this.check);
      }
    }
  }

  dispose(): void {
    void this.stop();
    this.disposables.forEach((d) => void d.dispose());
  }
}
