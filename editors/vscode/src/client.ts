// The language client that starts agent-lsp over stdio. Document sync and
// workspace/applyEdit come from vscode-languageclient; AgentFeature announces
// `capabilities.experimental.agent` so the sidecar serves the session
// methods instead of its plain-LSP door.

import * as vscode from 'vscode';
import {
  CancellationToken, type ClientCapabilities, type FeatureState, ResponseError, LanguageClient, type LanguageClientOptions, type ServerCapabilities,
  type ServerOptions, type StaticFeature, TransportKind,
} from 'vscode-languageclient/node';
import { applyEditAndSave } from './applyEdit';
import { AGENT_CAPABILITY, DIAGNOSTICS_CAPABILITY, type AgentInitializeInfo, type InitializationOptions } from './protocol';

/** Announces the agent capability and keeps what the agent answered. */
export class AgentFeature implements StaticFeature {
  info: AgentInitializeInfo | undefined;

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    // diagnostics: the agent asks for this editor's diagnostics (agent/diagnostics)
    // instead of starting language servers of its own.
    capabilities.experimental = { ...(capabilities.experimental as object | undefined), [AGENT_CAPABILITY]: { [DIAGNOSTICS_CAPABILITY]: {} } };
  }
  initialize(capabilities: ServerCapabilities): void {
    this.info = (capabilities.experimental as { agent?: AgentInitializeInfo } | undefined)?.agent;
  }
  getState(): FeatureState {
    return { kind: 'static' };
  }
  clear(): void {
    this.info = undefined;
  }
}

export interface ClientConfig {
  command: string;
  env: NodeJS.ProcessEnv;
  cwd?: string;
  initializationOptions: InitializationOptions;
  log: vscode.LogOutputChannel;
}

export function createClient(cfg: ClientConfig): { client: LanguageClient; agent: AgentFeature } {
  // TransportKind.stdio appends --stdio to the arguments; agent-lsp accepts it.
  const run = { command: cfg.command, args: [], transport: TransportKind.stdio, options: { env: cfg.env, cwd: cfg.cwd } };
  const serverOptions: ServerOptions = { run, debug: run };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file' }],
    outputChannel: cfg.log, // the sidecar's stderr log lands here
    initializationOptions: cfg.initializationOptions,
    connectionOptions: { maxRestartCount: 3 },
    middleware: {
      workspace: {
        handleApplyEdit: (params, next) => applyEditAndSave(params, async p => {
          const r = await next(p, CancellationToken.None);
          if (r instanceof ResponseError) throw r;
          return r;
        }, cfg.log),
      },
    },
  };
  const client = new LanguageClient('agentLsp', 'agent-lsp', serverOptions, clientOptions);
  const agent = new AgentFeature();
  client.registerFeature(agent);
  return { client, agent };
}
