/**
 * The ONE place that mirrors the ExportLens server's custom protocol
 * (server/exportlens/lsp/commands.py, scheduler.py, summary_text.py; config/settings.py).
 * When the server changes a name or a shape, only this file changes.
 */

import { NotificationType } from 'vscode-languageclient/node';

/**
 * A `workspace/executeCommand` command, typed by its arguments and its result (as rust-analyzer's
 * `lsp_ext.ts` types its requests): `ServerManager.execute(ServerCommand.graph, [uri, module])`
 * is a `Promise<GraphResult>`, and wrong arguments do not compile.
 */
export class CommandType<Args extends unknown[], Result> {
  /** Never set: it only carries the types (a command is called with `Args`, answers `Result`). */
  declare private readonly signature?: (...args: Args) => Result;

  constructor(readonly name: string) {}
}

export type CommandArgs<C> = C extends CommandType<infer A, unknown> ? A : never;
export type CommandResult<C> = C extends CommandType<unknown[], infer R> ? R : never;

export interface Position {
  line: number;
  character: number;
}

/** The commands the server registers (its executeCommandProvider, server/exportlens/lsp/commands.py). */
export const ServerCommand = {
  /** Exports the module at the position now; also the server's code lens (client.ts middleware runs it). */
  exportModule: new CommandType<[uri: string, position: Position], ExportModuleResult>('exportlens.exportModule'),
  /** Stops that export (its job's child is killed; exportModule answers status "cancelled"). */
  cancelExport: new CommandType<[uri: string, position: Position], { cancelled: boolean }>('exportlens.cancelExport'),
  /** Exports first when nothing is cached. */
  graph: new CommandType<[uri: string, module: string], GraphResult>('exportlens.graph'),
  /** The structured graph the "ExportLens: Graph" panel draws (lsp/graph_command.py); exports first when nothing is cached. */
  graphView: new CommandType<[uri: string, module: string], GraphViewResult>('exportlens.graphView'),
  savePt2: new CommandType<[uri: string, module: string, path: string], SavePt2Result>('exportlens.savePt2'),
  /** Exports the module and compiles it with AOTInductor (lsp/lowering_commands.py); cancellable. */
  compileAoti: new CommandType<[uri: string, module: string], CompileAotiResult>('exportlens.compileAoti'),
  /** Stops that module's compile: its child is killed, the compile answers status "cancelled". */
  cancelAoti: new CommandType<[uri: string, module: string], { cancelled: boolean }>('exportlens.cancelAoti'),
  /** Writes the module's `.onnx` (torch.onnx.export, dynamo=True); answers as savePt2 does. */
  saveOnnx: new CommandType<[uri: string, module: string, path: string], SavePt2Result>('exportlens.saveOnnx'),
  /** Re-checks every module of the file. */
  recheck: new CommandType<[uri: string], { scheduled: boolean }>('exportlens.recheck'),
  status: new CommandType<[], ServerStatus>('exportlens.status'),
} as const;

/**
 * Client-side command the server puts in code lenses and hover links: opens the graph panel
 * beside the editor.
 */
export const ShowGraphCommand = new CommandType<[uri: string, module: string], void>('exportlens.showGraph');

/** Client-side command: the graph as read-only Python text (what "Show graph" opened before the panel). */
export const ShowGraphTextCommand = new CommandType<[uri: string, module: string], void>('exportlens.showGraphText');

/** Notification `exportlens/fileChecked`: sent once a check of a file is over. */
export const FileCheckedNotification = new NotificationType<FileCheckedParams>('exportlens/fileChecked');

/**
 * Notification `exportlens/cursor` (client → server, server/exportlens/lsp/cursor.py): the cursor's
 * line (0-based) in a buffer; the module under it is checked first.
 */
export const CursorNotification = new NotificationType<CursorParams>('exportlens/cursor');

export interface CursorParams {
  uri: string;
  line: number;
}

export interface FileCheckedParams {
  uri: string;
  version: number;
  cancelled: boolean;
}

/** A finding as the server's `Finding.to_json()` sends it (only what the client reads). */
export interface FindingJson {
  code?: string;
  message: string;
  severity?: string;
  range?: { start: { line: number; character: number }; end: { line: number; character: number } };
  [key: string]: unknown;
}

export interface ExportModuleResult {
  module: string;
  /** "exported", "compiled" (a compile check only), "failed", "skipped", "timeout", "crashed", "cancelled", ... */
  status: string;
  findings: FindingJson[];
  summary: { ops?: number; inputs?: unknown; outputs?: unknown; dynamic?: unknown; warnings?: unknown };
  /** The ATen graph's Python text; empty when the export failed. */
  graph: string;
}

export interface GraphResult {
  module: string;
  /** One `# <mode>` section per tracer; empty when no export produced a graph. */
  code: string;
  /** The source changed since this graph was made. */
  stale: boolean;
}

/** A user frame of a node's stack (worker/wire/records.py ViewFrame). */
export interface ViewFrame {
  path: string;
  line: number;
  name: string;
  code: string;
}

/** One node of the exported program (worker/wire/records.py ViewNode, made by worker/capture/graph_json.py). */
export interface ViewNode {
  id: string;
  name: string;
  /** parameter, buffer, constant, user_input | op | user_output, buffer_mutation, ... | branch_input, branch_output */
  kind: string;
  op: string;
  inputs: string[];
  shape: string;
  dtype: string;
  /** nn_module_stack, outermost first. */
  module: string[];
  branch: string | null;
  target?: string;
  path?: string;
  /** 1-based. */
  line?: number;
  code?: string;
  stack?: ViewFrame[];
}

/** A subgraph of a higher-order op (cond's branches, map's body). */
export interface ViewBranch {
  id: string;
  op: string;
  name: string;
}

export interface GraphView {
  nodes: ViewNode[];
  branches: ViewBranch[];
  modules: Record<string, string>;
  total: number;
  truncated: boolean;
  error?: string;
}

export interface GraphViewResult {
  module: string;
  uri: string;
  /** The source changed since these results were made. */
  stale: boolean;
  /** One per tracer; `view` null when that export made no graph. */
  /** `placement`: node id -> where it runs on the device (the executorch target's backend, `portable`, `missing kernel`); empty without that target. */
  results: { mode: string; status: string; seconds: number; view: GraphView | null; placement: Record<string, string> }[];
  findings: FindingJson[];
}

export interface CompileAotiResult {
  module: string;
  /** The export's status: "exported", "failed", ..., "cancelled" (exportlens.cancelAoti). */
  status: string;
  /** AOTInductor compiled the program and its package ran as eager did. */
  ok: boolean;
  seconds: number | null;
  /** compile_seconds, package_bytes, package_path, checked (worker/lowering/aoti.py). */
  facts: { compile_seconds?: number; package_bytes?: number; package_path?: string; checked?: string[] };
  /** Why the target did not run (out of time), else empty. */
  skipped: string;
  findings: FindingJson[];
}

export interface SavePt2Result {
  path: string;
  status: string;
  seconds: number;
  saved: boolean;
  reason: string;
}

export interface ServerStatus {
  version: string;
  python: string | null;
  torch: string | null;
  torchImported: boolean;
  pid: number;
  rssMb: number;
  /** The export worker's pid; null until an export started it (never when untrusted). */
  workerPid: number | null;
  /** The worker daemon this server's worker is (docs/daemon.md), and how many clients it serves. */
  daemon: { pid: number; clients: number } | null;
  /** Export jobs the engine ran (a file that is not the user's code sends none). */
  jobsSent: number;
  trusted: boolean;
  openFiles: number;
  settings: Record<string, unknown>;
}

/** `initializationOptions` the server reads (lsp/app.py read_init_options). */
export interface InitializationOptions {
  /** false: untrusted workspace, the server runs no user code. */
  trusted: boolean;
  settings: ServerSettings;
  /** Where the server keeps results between sessions (persist/): the workspace's storage folder. */
  cacheDir?: string;
}

/** The server's configuration section `exportlens` (config/settings.py), camelCase on the wire. */
export interface ServerSettings {
  /** null: the export call's own strict= argument, else non-strict. */
  mode: 'non-strict' | 'strict' | 'both' | null;
  runOn: 'type' | 'save';
  debounceMs: number;
  timeoutSeconds: number;
  memoryLimitMb: number | null;
  /** Interpreter the export worker runs in; null: the server's own. */
  python: string | null;
  allFailures: boolean;
  /** Models with more MB of weights export on the meta device (nothing allocated); 0: never. */
  metaAboveMb: number;
  /** Where tensors the code puts on a GPU go (docs/devices.md). */
  device: 'fake' | 'real' | 'cpu';
  /** Where the program must lower after the export (docs/targets.md); `aoti` only on demand. */
  targets: ('export' | 'core-aten' | 'onnx' | 'aoti' | 'executorch' | 'coreml')[];
  /** The executorch target's program quantized first by torchao's pt2e flow (docs/targets.md). */
  quantize: 'none' | 'xnnpack';
  trusted: boolean;
  /** false: no file is checked. */
  enable: boolean;
  /** Globs of files never checked (relative to the project's folder). */
  exclude: string[];
  /** Codes never reported. */
  ignore: string[];
  /** A code's severity instead of its own ("off": not reported). */
  severity: Record<string, 'error' | 'warning' | 'information' | 'hint' | 'off'>;
  /** Which modules get a compile check (docs/compile.md). */
  compile: 'auto' | 'all' | 'off';
  /** Export in the interpreter's worker daemon (docs/daemon.md). */
  daemon: boolean;
  /** The settings the user set (VS Code's inspect()): they beat pyproject.toml's. */
  explicit?: string[];
}

/** The configuration section the server pulls with `workspace/configuration`. */
export const CONFIG_SECTION = 'exportlens';

/** Diagnostic source the server sets. */
export const DIAGNOSTIC_SOURCE = 'exportlens';
