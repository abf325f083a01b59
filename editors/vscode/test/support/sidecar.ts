// Starts the fake model and the real agent-lsp binary for the integration
// test, and speaks to agent-lsp with vscode-jsonrpc over its stdio (LSP
// Content-Length framing), as the extension's language client does.

import { type ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as readline from 'readline';
import {
  createMessageConnection, type MessageConnection, StreamMessageReader, StreamMessageWriter,
} from 'vscode-jsonrpc/node';
import type { NotificationMethod, RequestMethod } from '../../src/protocol';

export function binaries(): { agent: string; fakemodel: string } {
  const agent = process.env.AGENT_LSP_BIN;
  const fakemodel = process.env.FAKEMODEL_BIN;
  if (!agent || !fakemodel) throw new Error('set AGENT_LSP_BIN and FAKEMODEL_BIN (test/run.sh builds them)');
  return { agent, fakemodel };
}

export interface FakeModel {
  url: string;
  logFile: string;
  requests(): Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** Starts fakemodel with a script of turns; resolves once it prints its URL. */
export async function startFakeModel(bin: string, dir: string, turns: unknown[]): Promise<FakeModel> {
  const script = path.join(dir, 'turns.json');
  const logFile = path.join(dir, 'requests.jsonl');
  fs.writeFileSync(script, JSON.stringify(turns));
  const p = spawn(bin, ['-script', script, '-log', logFile], { stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    const rl = readline.createInterface({ input: p.stdout! });
    rl.once('line', line => {
      const m = /^URL=(.*)$/.exec(line);
      if (m) resolve(m[1]); else reject(new Error(`fakemodel printed ${line}`));
    });
    p.once('exit', code => reject(new Error(`fakemodel exited with ${code}`)));
    setTimeout(() => reject(new Error('fakemodel did not print its URL in 10s')), 10_000);
  });
  return {
    url,
    logFile,
    requests: () => wholeLines(fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '').map(l => JSON.parse(l)),
    stop: () => stopProcess(p, () => p.stdin!.end()),
  };
}

function stopProcess(p: ChildProcess, polite: () => void): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
  return new Promise(resolve => {
    const t = setTimeout(() => p.kill('SIGKILL'), 5000);
    p.once('exit', () => { clearTimeout(t); resolve(); });
    polite();
  });
}

export interface Agent {
  conn: MessageConnection;
  process: ChildProcess;
  stderr(): string;
  request<P, R>(m: RequestMethod<P, R>, params: P): Promise<R>;
  onRequest<P, R>(m: RequestMethod<P, R>, handler: (params: P) => R | Promise<R>): void;
  onNotification<P>(m: NotificationMethod<P>, handler: (params: P) => void): void;
  /** shutdown + exit; resolves with the exit code. */
  close(): Promise<number | null>;
}

/** Starts agent-lsp with `--stdio` (as languageclient does) against the fake model. */
export function startAgent(bin: string, modelURL: string, home: string, cwd: string): Agent {
  const p = spawn(bin, ['--stdio'], {
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ANTHROPIC_API_KEY: 'test',
      ANTHROPIC_BASE_URL: modelURL,
      AGENT_LSP_HOME: home,
      AGENT_LSP_NO_USER_SETTINGS: '1',
      HOME: home,
    },
  });
  let err = '';
  p.stderr!.on('data', d => { err += d.toString(); });
  const conn = createMessageConnection(new StreamMessageReader(p.stdout!), new StreamMessageWriter(p.stdin!));
  conn.listen();
  return {
    conn,
    process: p,
    stderr: () => err,
    request: (m, params) => conn.sendRequest(m.method, params),
    onRequest: (m, handler) => { conn.onRequest(m.method, handler as (p: unknown) => unknown); },
    onNotification: (m, handler) => { conn.onNotification(m.method, handler as (p: unknown) => void); },
    close: async () => {
      const exited = new Promise<number | null>(resolve => {
        if (p.exitCode !== null) resolve(p.exitCode);
        p.once('exit', code => resolve(code));
      });
      try {
        await conn.sendRequest('shutdown');
        await conn.sendNotification('exit');
      } catch {
        // already gone
      }
      const t = setTimeout(() => p.kill('SIGKILL'), 5000);
      const code = await exited;
      clearTimeout(t);
      conn.dispose();
      return code;
    },
  };
}

export function tempDir(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/** wholeLines returns the non-empty lines that end in a newline: the model may be writing the last one as we read. */
function wholeLines(text: string): string[] {
  return text.slice(0, text.lastIndexOf('\n') + 1).split('\n').filter(Boolean);
}
