import * as path from 'node:path';

/**
 * Where VS Code keeps this extension's global storage, so the CLI reads and writes the same
 * sessions as the extension in desktop VS Code. SKILLWRIGHT_DATA_DIR (or --data-dir) overrides it,
 * e.g. for VS Code Insiders, VSCodium or code-server.
 */
export function defaultDataDir(homeDir: string, platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>): string {
  if (env.SKILLWRIGHT_DATA_DIR) return env.SKILLWRIGHT_DATA_DIR;
  const tail = ['Code', 'User', 'globalStorage', 'skillwright.skillwright'];
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(homeDir, 'AppData', 'Roaming'), ...tail);
  if (platform === 'darwin') return path.join(homeDir, 'Library', 'Application Support', ...tail);
  return path.join(env.XDG_CONFIG_HOME ?? path.join(homeDir, '.config'), ...tail);
}
