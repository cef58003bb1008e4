/**
 * exportlens.* settings → the server's configuration (protocol.ts ServerSettings).
 *
 * Pure: no `vscode` import, so the mapping is unit-tested with node's test runner.
 * Every value is validated here; a bad one falls back to its default rather than
 * reaching the server.
 */
import type { ServerSettings } from './protocol';

export const SECTION = 'exportlens';

export type Mode = 'auto' | 'non-strict' | 'strict' | 'both';
export const MODES: readonly Mode[] = ['auto', 'non-strict', 'strict', 'both'];
export type Device = ServerSettings['device'];
export const DEVICES: readonly Device[] = ['fake', 'real', 'cpu'];
export type Lowering = 'export' | 'core-aten' | 'onnx' | 'aoti' | 'executorch' | 'coreml';
export const LOWERINGS: readonly Lowering[] = ['export', 'core-aten', 'onnx', 'aoti', 'executorch', 'coreml'];
export type Quantize = 'none' | 'xnnpack';
export const QUANTIZE: readonly Quantize[] = ['none', 'xnnpack'];
export type CompileChoice = 'auto' | 'all' | 'off';
export const COMPILE_CHOICES: readonly CompileChoice[] = ['auto', 'all', 'off'];
export type Level = 'error' | 'warning' | 'information' | 'hint' | 'off';
export const LEVELS: readonly Level[] = ['error', 'warning', 'information', 'hint', 'off'];

/** The settings as the user sees them (package.json contributes.configuration). */
export interface ClientSettings {
  interpreter: string;
  mode: Mode;
  runOn: 'type' | 'save';
  debounceMs: number;
  timeoutSeconds: number;
  memoryLimitMb: number;
  allFailures: boolean;
  metaAboveMb: number;
  device: 'fake' | 'real' | 'cpu';
  targets: Lowering[];
  quantize: Quantize;
  enable: boolean;
  exclude: string[];
  ignore: string[];
  severity: Record<string, Level>;
  compile: CompileChoice;
  daemon: boolean;
}

export const DEFAULTS: ClientSettings = {
  interpreter: '',
  mode: 'auto',
  runOn: 'type',
  debounceMs: 300,
  timeoutSeconds: 30,
  memoryLimitMb: 0,
  allFailures: true,
  metaAboveMb: 1024,
  device: 'fake',
  targets: ['export'],
  quantize: 'none',
  enable: true,
  exclude: [],
  ignore: [],
  severity: {},
  compile: 'auto',
  daemon: true,
};

/** Settings whose change needs a new server process (the others apply live). */
export const RESTART_SETTINGS: readonly string[] = [`${SECTION}.interpreter`];

/** Reads one setting (without the section prefix); `vscode.WorkspaceConfiguration.get` fits. */
export type SettingReader = (name: string) => unknown;

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
}

function number(value: unknown, fallback: number, valid: (n: number) => boolean): number {
  return typeof value === 'number' && Number.isFinite(value) && valid(value) ? value : fallback;
}

/** The known targets of a list, once each, in its order; anything else: the default. */
function targets(value: unknown): Lowering[] {
  if (!Array.isArray(value)) {
    return [...DEFAULTS.targets];
  }
  const known = value.filter((t): t is Lowering => typeof t === 'string' && (LOWERINGS as readonly string[]).includes(t));
  return [...new Set(known)];
}

/** The strings of a list, once each; anything else: none. */
function strings(value: unknown): string[] {
  return Array.isArray(value) ? [...new Set(value.filter((v): v is string => typeof v === 'string'))] : [];
}

/** code -> level entries with a known level (the server checks the codes). */
function levels(value: unknown): Record<string, Level> {
  const out: Record<string, Level> = {};
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const [code, level] of Object.entries(value)) {
      if (typeof level === 'string' && (LEVELS as readonly string[]).includes(level)) {
        out[code] = level as Level;
      }
    }
  }
  return out;
}

export function readClientSettings(get: SettingReader): ClientSettings {
  const interpreter = get('interpreter');
  const memory = get('memoryLimitMb');
  const allFailures = get('allFailures');
  return {
    interpreter: typeof interpreter === 'string' ? interpreter.trim() : DEFAULTS.interpreter,
    mode: oneOf(get('mode'), MODES, DEFAULTS.mode),
    runOn: oneOf(get('runOn'), ['type', 'save'] as const, DEFAULTS.runOn),
    debounceMs: Math.round(number(get('debounceMs'), DEFAULTS.debounceMs, (n) => n >= 0)),
    timeoutSeconds: number(get('timeoutSeconds'), DEFAULTS.timeoutSeconds, (n) => n > 0),
    memoryLimitMb: typeof memory === 'number' && Number.isFinite(memory) && memory > 0 ? Math.round(memory) : 0,
    allFailures: typeof allFailures === 'boolean' ? allFailures : DEFAULTS.allFailures,
    metaAboveMb: number(get('metaAboveMb'), DEFAULTS.metaAboveMb, (n) => n >= 0),
    device: oneOf(get('device'), DEVICES, DEFAULTS.device),
    targets: targets(get('targets')),
    quantize: oneOf(get('quantize'), QUANTIZE, DEFAULTS.quantize),
    enable: get('enable') !== false,
    exclude: strings(get('exclude')),
    ignore: strings(get('ignore')),
    severity: levels(get('severity')),
    compile: oneOf(get('compile'), COMPILE_CHOICES, DEFAULTS.compile),
    daemon: get('daemon') !== false,
  };
}

export interface ServerContext {
  /** The resolved interpreter the server (and so its worker) runs in. */
  python: string | null;
  /** VS Code's workspace trust. */
  trusted: boolean;
}

export function toServerSettings(settings: ClientSettings, context: ServerContext): ServerSettings {
  return {
    mode: settings.mode === 'auto' ? null : settings.mode,
    runOn: settings.runOn,
    debounceMs: settings.debounceMs,
    timeoutSeconds: settings.timeoutSeconds,
    memoryLimitMb: settings.memoryLimitMb > 0 ? settings.memoryLimitMb : null,
    python: context.python,
    allFailures: settings.allFailures,
    metaAboveMb: settings.metaAboveMb,
    device: settings.device,
    targets: settings.targets,
    quantize: settings.quantize,
    trusted: context.trusted,
    enable: settings.enable,
    exclude: settings.exclude,
    ignore: settings.ignore,
    severity: settings.severity,
    compile: settings.compile,
    daemon: settings.daemon,
  };
}

/** The server's names of the settings the user set (settings.json of the user, the workspace or
 * the folder), which beat pyproject.toml's `[tool.exportlens]`; `isSet` is `inspect()`'s answer. */
export function explicitSettings(isSet: (name: string) => boolean): string[] {
  const names = Object.keys(DEFAULTS) as (keyof ClientSettings)[];
  return names.filter((name) => isSet(name)).map((name) => (name === 'interpreter' ? 'python' : name));
}

/** The label of a mode for the status item and the Set mode picker. */
export function modeLabel(mode: Mode): string {
  return mode === 'auto' ? 'auto (export call’s strict=)' : mode;
}
