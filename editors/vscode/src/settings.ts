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

/** Where the binary to start was found: the setting, the one bundled in the platform package, or PATH. */
export type ServerSource = 'agentLsp.serverPath' | 'bundled' | 'PATH';

/** The binary bundled in a platform package: `<extension>/server/agent-lsp[.exe]`. */
export function bundledServerPath(extensionPath: string, platform: NodeJS.Platform = process.platform): string {
  return path.join(extensionPath, 'server', platform === 'win32' ? `${BINARY_NAME}.exe` : BINARY_NAME);
}

/**
 * The binary to start, in this order: the setting (with `~` and
 * `${workspaceFolder}` expanded; a relative path is taken from the first
 * workspace folder; a bare name is looked up on PATH); the binary bundled
 * in the platform package; `agent-lsp` on PATH.
 */
export function findServer(setting: string, workspaceFolder: string | undefined, pathVar: string | undefined, bundled: string | undefined, exists = isExecutable): { path: string; source: ServerSource } {
  let p = setting.trim();
  if (!p) {
    if (bundled && exists(bundled)) return { path: bundled, source: 'bundled' };
    const found = which(BINARY_NAME, pathVar, exists);
    if (found) return { path: found, source: 'PATH' };
    throw new ServerNotFoundError(`${BINARY_NAME} was not found: no binary is bundled for ${process.platform}-${process.arch} and none is on PATH. Install the extension's package for your platform, install agent-lsp (go install github.com/agent-lsp/agent-lsp/cmd/agent-lsp@latest) or set "agentLsp.serverPath".`);
  }
  p = p.replace(/\$\{workspaceFolder\}/g, workspaceFolder ?? '');
  if (p === '~' || p.startsWith('~/')) p = path.join(os.homedir(), p.slice(1));
  if (!p.includes('/') && !p.includes('\\')) {
    const found = which(p, pathVar, exists);
    if (found) return { path: found, source: 'agentLsp.serverPath' };
    throw new ServerNotFoundError(`"agentLsp.serverPath" is "${setting}", which is not on PATH.`);
  }
  if (!path.isAbsolute(p) && workspaceFolder) p = path.join(workspaceFolder, p);
  if (!exists(p)) throw new ServerNotFoundError(`"agentLsp.serverPath" points at ${p}, which is not an executable file.`);
  return { path: p, source: 'agentLsp.serverPath' };
}

/** The binary to start when none is bundled: see findServer. */
export function resolveServerPath(setting: string, workspaceFolder: string | undefined, pathVar: string | undefined, exists = isExecutable): string {
  return findServer(setting, workspaceFolder, pathVar, undefined, exists).path;
}

/** The environment variable a key for the provider goes in. */
export function keyVariable(provider: string): string {
  return /^(openai|ollama|vllm|llamacpp|llama\.cpp|openrouter|openai-compatible)$/i.test(provider.trim()) ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY';
}

const KEY_VARIABLES = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'OPENAI_API_KEY'];

/** Whether env holds a model key. */
export function hasKey(env: NodeJS.ProcessEnv): boolean {
  return KEY_VARIABLES.some(k => !!env[k]);
}

/**
 * Adds the key kept in VS Code's SecretStorage to env, under the
 * provider's variable, unless env already has a key (the environment and
 * the agentLsp.env setting win).
 */
export function withSecretKey(env: NodeJS.ProcessEnv, provider: string, key: string | undefined): NodeJS.ProcessEnv {
  if (!key || hasKey(env)) return env;
  return { ...env, [keyVariable(provider)]: key };
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
