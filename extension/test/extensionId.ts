/**
 * The extension's id as VS Code names it, `<publisher>.<name>`: read from package.json, where
 * the publisher id is declared once (the .vsix, the Marketplace and Open VSX take it from there).
 */
import manifest from '../../package.json';

export const EXTENSION_ID = `${manifest.publisher}.${manifest.name}`;
