// The extension's settings and what follows from them: where the agent-lsp
// binary is, its environment, and the initializationOptions. No `vscode`
// import: extension.ts reads the configuration and passes it in.

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { InitializationOptions, ModeId } from './protocol';

export interface Settings {
  /** Path of the agent-lsp binary; empty: find `agent-lsp` on PATH. */
  serverPath: string;
  /** Extra environment for the binary (API keys, base URLs, AGENT_LSP_HOME...). */
  env: Record<string, string>;
  provider: string;
  model: string;
  baseURL: string;
  permissionMode: ModeId;
  maxTurns: number;
}

export const DEFAULT_SETTINGS: Settings = {
  serverPath: '', env: {}, provider: '', model: '', baseURL: '', permissionMode: 'default', maxTurns: 0,
};

export const BINARY_NAME = 'agent-lsp';

function isExecutable(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return false;
    if (process.platform === 'win32') return true;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Finds a bare command name on PATH, as a shell would. */
export function which(name: string, pathVar: string | undefined, exists = isExecutable): string | undefined {
  const exts = process.platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  for (const dir of (pathVar ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const p = path.join(dir, name + ext);
      if (exists(p)) return p;
    }
  }
  return undefined;
}

export class ServerNotFoundError extends Error {}

/**
 * The binary to start: the setting (with `~` and `${workspaceFolder}`
 * expanded; a relative path is taken from the first workspace folder; a bare
 * name is looked up on PATH), else `agent-lsp` on PATH.
 */
export function resolveServerPath(setting: string, workspaceFolder: string | undefined, pathVar: string | undefined, exists = isExecutable): string {
  let p = setting.trim();
  if (!p) {
    const found = which(BINARY_NAME, pathVar, exists);
    if (found) return found;
    throw new ServerNotFoundError(`${BINARY_NAME} was not found on PATH. Install it (go install github.com/agent-lsp/agent-lsp/cmd/agent-lsp@latest) or set "agentLsp.serverPath".`);
  }
  p = p.replace(/\$\{workspaceFolder\}/g, workspaceFolder ?? '');
  if (p === '~' || p.startsWith('~/')) p = path.join(os.homedir(), p.slice(1));
  if (!p.includes('/') && !p.includes('\\')) {
    const found = which(p, pathVar, exists);
    if (found) return found;
    throw new ServerNotFoundError(`"agentLsp.serverPath" is "${setting}", which is not on PATH.`);
  }
  if (!path.isAbsolute(p) && workspaceFolder) p = path.join(workspaceFolder, p);
  if (!exists(p)) throw new ServerNotFoundError(`"agentLsp.serverPath" points at ${p}, which is not an executable file.`);
  return p;
}

/**
 * The initializationOptions the settings ask for; unset settings are left out.
 * workspaceTrusted is VS Code's workspace trust, passed when known.
 */
export function initializationOptions(s: Settings, workspaceTrusted?: boolean): InitializationOptions {
  const o: InitializationOptions = {};
  if (workspaceTrusted !== undefined) o.workspaceTrusted = workspaceTrusted;
  if (s.model) o.model = s.model;
  if (s.provider) o.provider = s.provider;
  if (s.baseURL) o.baseURL = s.baseURL;
  if (s.maxTurns > 0) o.maxTurns = s.maxTurns;
  if (s.permissionMode && s.permissionMode !== 'default') o.permissions = { defaultMode: s.permissionMode };
  return o;
}

/** The environment of the binary: the extension host's plus the setting's (string values only). */
export function serverEnv(base: NodeJS.ProcessEnv, extra: Record<string, unknown>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const [k, v] of Object.entries(extra ?? {})) {
    if (typeof v === 'string') env[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') env[k] = String(v);
  }
  return env;
}
