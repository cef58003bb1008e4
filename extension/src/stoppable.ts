/**
 * A long server command behind a cancellable notification. Its Cancel runs the server's own
 * stop command with the same arguments: an executeCommand's `$/cancelRequest` cancels only
 * pygls's wrapper of the command, never the command's own task. No `vscode` import at run time.
 */
import type * as vscode from 'vscode';
import type { CommandType } from './protocol';

export type Execute = <Args extends unknown[], Result>(command: CommandType<Args, Result>, args: Args) => Promise<Result>;

export async function runStoppable<Args extends unknown[], Result>(
  execute: Execute,
  command: CommandType<Args, Result>,
  stop: CommandType<Args, { cancelled: boolean }>,
  args: Args,
  token: vscode.CancellationToken,
  onError: (message: string) => void,
): Promise<Result> {
  const cancel = token.onCancellationRequested(() => {
    execute(stop, args).catch((error: unknown) => onError(`${stop.name}: ${String(error)}`));
  });
  try {
    return await execute(command, args);
  } finally {
    cancel.dispose();
  }
}
