/**
 * Where exports run: Linux (WSL included) and macOS. On native Windows the server still runs its
 * static checks, and the status item and one notification say why nothing is exported. The
 * server says the same (server/exportlens/platforms.py: EXPORTS_NEED, which a test compares).
 * No `vscode` import: unit-tested.
 */
export const EXPORTS_NEED = 'Linux, WSL or macOS';

/** Why exports cannot run on `platform`, or undefined (they can). */
export function exportsUnsupported(platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform !== 'win32') {
    return undefined;
  }
  return `ExportLens exports need ${EXPORTS_NEED}: on native Windows only its static checks run (syntax errors, modules without example inputs). Open the folder in WSL (the WSL extension) to see where torch.export refuses your modules.`;
}
