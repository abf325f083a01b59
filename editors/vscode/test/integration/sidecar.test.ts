// Integration: the real agent-lsp binary over stdio (vscode-jsonrpc, LSP
// framing), a fake model, and this extension's protocol layer
// (src/protocol.ts). Each test starts its own fake model and agent.

import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import {
  type ApplyWorkspaceEditParams, type TextDocumentEdit, type TextEdit,
} from 'vscode-languageserver-protocol';
import {
  AgentStatusNotification, CancelNotification, ErrorCodes, ListSessionsRequest, LoadSessionRequest, NewSessionRequest, ResumeSessionRequest, SetConfigOptionRequest, SetModeRequest,
  type PermissionOption, PromptRequest, type RequestPermissionParams, RequestPermissionRequest, selectOutcome,
  type SessionNotification, SessionUpdateNotification, singleDiff, CANCELLED, optionOfKind, type AgentInitializeInfo,
} from '../../src/protocol';
import { SessionRoutes } from '../../src/shared/chats';
import { emptyState, reduce, type ViewState } from '../../src/shared/state';
import { type Agent, binaries, type FakeModel, startAgent, startFakeModel, tempDir } from '../support/sidecar';

const CALC = 'def total(values):\n    return sum(values)\n\n\ndef average(values):\n    return total(values) / 2\n';

interface Env {
  dir: string;
  ws: string;
  model: FakeModel;
  agent: Agent;
  updates: SessionNotification[];
  permissions: RequestPermissionParams[];
  edits: ApplyWorkspaceEditParams[];
  docs: Map<string, TextDocument>;
  /** How to answer the next permission request. */
  answer: (p: RequestPermissionParams) => unknown;
}

async function setup(turns: unknown[]): Promise<Env> {
  const { agent: agentBin, fakemodel } = binaries();
  const dir = tempDir('agent-lsp-vscode-it-');
  const ws = path.join(dir, 'ws');
  fs.mkdirSync(ws);
  fs.mkdirSync(path.join(dir, 'home'));
  fs.writeFileSync(path.join(ws, 'calc.py'), CALC);
  const model = await startFakeModel(fakemodel, dir, turns);
  const agent = startAgent(agentBin, model.url, path.join(dir, 'home'), ws);
  const env: Env = {
    dir, ws, model, agent, updates: [], permissions: [], edits: [], docs: new Map(),
    answer: () => CANCELLED,
  };
  agent.onNotification(SessionUpdateNotification, p => env.updates.push(p));
  agent.onNotification(AgentStatusNotification, () => undefined);
  agent.onRequest(RequestPermissionRequest, p => {
    env.permissions.push(p);
    if (process.env.IT_DEBUG) console.log(JSON.stringify(p, null, 1));
    return env.answer(p) as never;
  });
  // The editor side of workspace/applyEdit: apply to our open documents.
  agent.conn.onRequest('workspace/applyEdit', (p: ApplyWorkspaceEditParams): { applied: boolean; failureReason?: string } => {
    env.edits.push(p);
    for (const change of p.edit.documentChanges ?? []) {
      if (!('textDocument' in change)) continue;
      const c = change as TextDocumentEdit;
      const doc = env.docs.get(c.textDocument.uri);
      if (!doc) return { applied: false, failureReason: 'not open' };
      if (c.textDocument.version !== null && c.textDocument.version !== doc.version) return { applied: false, failureReason: 'version' };
      const text = TextDocument.applyEdits(doc, c.edits as TextEdit[]);
      const next = TextDocument.create(doc.uri, doc.languageId, doc.version + 1, text);
      env.docs.set(doc.uri, next);
      void agent.conn.sendNotification('textDocument/didChange', {
        textDocument: { uri: doc.uri, version: next.version },
        contentChanges: [{ text }],
      });
    }
    return { applied: true };
  });
  const uri = `file://${ws}`;
  const init = await agent.conn.sendRequest<{ capabilities: { experimental?: { agent?: AgentInitializeInfo } } }>('initialize', {
    processId: process.pid,
    rootUri: uri,
    workspaceFolders: [{ uri, name: 'ws' }],
    capabilities: {
      workspace: { applyEdit: true, workspaceEdit: { documentChanges: true, resourceOperations: ['create'] } },
      window: { workDoneProgress: true, showDocument: { support: true } },
      experimental: { agent: {} },
    },
    initializationOptions: {},
  });
  assert.strictEqual(init.capabilities.experimental?.agent?.protocolVersion, 1, 'initialize announces the agent');
  await agent.conn.sendNotification('initialized', {});
  const calcUri = `file://${ws}/calc.py`;
  env.docs.set(calcUri, TextDocument.create(calcUri, 'python', 1, CALC));
  await agent.conn.sendNotification('textDocument/didOpen', { textDocument: { uri: calcUri, languageId: 'python', version: 1, text: CALC } });
  return env;
}

async function teardown(env: Env | undefined, ok: boolean): Promise<void> {
  if (!env) return;
  const code = await env.agent.close();
  await env.model.stop();
  if (!ok) process.stderr.write(`agent-lsp stderr:\n${env.agent.stderr()}\n`);
  assert.strictEqual(code, 0, 'agent-lsp exits 0 after shutdown and exit');
  fs.rmSync(env.dir, { recursive: true, force: true });
}

function toolResults(req: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const m of (req.messages as Array<{ content: unknown }>) ?? []) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content as Array<{ type: string; content?: unknown }>) {
      if (b.type === 'tool_result') out.push(typeof b.content === 'string' ? b.content : JSON.stringify(b.content));
    }
  }
  return out;
}

async function waitFor<T>(what: string, f: () => T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise(r => setTimeout(r, 20));
  }
}

describe('agent-lsp over stdio (integration)', function () {
  this.timeout(60_000);
  let env: Env | undefined;
  let ok = false;
  beforeEach(() => { ok = false; env = undefined; });
  afterEach(async () => { await teardown(env, ok); });

  it('streams a turn, asks to edit with a diff, applies the user-edited text through workspace/applyEdit', async () => {
    const editedLine = 'return total(values) / len(values)  # checked by a human';
    env = await setup([
      [{ thinking: 'The average divides by 2.', signature: 's1' }, { text: ["I'll fix ", 'the average.'] },
        { tool_use: { id: 'toolu_it_0', name: 'Read', input: { file_path: 'calc.py' } } }],
      [{ tool_use: { id: 'toolu_it_1', name: 'Edit', input: { file_path: 'calc.py', old_string: '/ 2', new_string: '/ len(values)' } } }],
      [{ text: 'Fixed.' }],
    ]);
    const e = env;
    const session = await e.agent.request(NewSessionRequest, { cwd: e.ws, mcpServers: [] });
    assert.ok(session.sessionId, 'session/new returns a session id');
    await waitFor('available_commands_update', () => e.updates.find(u => u.update.sessionUpdate === 'available_commands_update'));

    e.answer = p => {
      const diff = singleDiff(p.toolCall)!;
      const edited = diff.newText.replace('return total(values) / len(values)', editedLine);
      return selectOutcome(optionOfKind(p.options, 'allow_once')!.optionId, diff.newText, edited);
    };
    const res = await e.agent.request(PromptRequest, { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'Fix average' }] });
    assert.strictEqual(res.stopReason, 'end_turn');

    // The permission request: an edit with a whole-file diff and the four options.
    assert.strictEqual(e.permissions.length, 1);
    const perm = e.permissions[0];
    assert.strictEqual(perm.sessionId, session.sessionId);
    assert.strictEqual(perm.toolCall.kind, 'edit');
    const diff = singleDiff(perm.toolCall);
    assert.ok(diff, 'the request carries one diff');
    assert.strictEqual(diff.path, path.join(e.ws, 'calc.py'));
    assert.strictEqual(diff.oldText, CALC);
    assert.ok(diff.newText.includes('/ len(values)'));
    assert.deepStrictEqual(perm.options.map((o: PermissionOption) => o.kind).sort(), ['allow_always', 'allow_once', 'reject_always', 'reject_once']);

    // The edit went through the editor, with the user's text.
    assert.strictEqual(e.edits.length, 1, 'one workspace/applyEdit');
    const doc = e.docs.get(`file://${e.ws}/calc.py`)!;
    assert.ok(doc.getText().includes(editedLine), `buffer has the user's text:\n${doc.getText()}`);
    assert.strictEqual(fs.readFileSync(path.join(e.ws, 'calc.py'), 'utf8'), CALC, 'the agent did not write the disk itself');

    // The transcript, through the view reducer.
    const state = emptyState();
    state.sessionId = session.sessionId;
    for (const u of e.updates) reduce(state, { type: 'update', update: u.update });
    const kinds = state.items.map(i => i.kind);
    assert.deepStrictEqual(kinds.filter(k => k !== 'plan' && k !== 'permission'), ['thought', 'agent', 'tool', 'tool', 'agent'], JSON.stringify(state.items, null, 1));
    // An agent that records the answer (tool_call_update _meta permission)
    // gives an "Allowed" line right after the edit's row.
    const perms = state.items.filter(i => i.kind === 'permission');
    assert.ok(perms.length <= 1 && perms.every(p => p.kind === 'permission' && p.state === 'allowed' && p.toolCallId === 'toolu_it_1'), JSON.stringify(perms));
    if (perms.length) assert.strictEqual(kinds[kinds.indexOf('permission') - 1], 'tool');
    const agentText = state.items.filter(i => i.kind === 'agent').map(i => (i as { text: string }).text);
    assert.deepStrictEqual(agentText, ["I'll fix the average.", 'Fixed.']);
    const tools = state.items.filter(i => i.kind === 'tool');
    assert.ok(tools.every(t => t.kind === 'tool' && t.call.status === 'completed'), `tools completed: ${JSON.stringify(tools)}`);

    // The model was told the user changed the proposal.
    const reqs = await waitFor('3 logged model requests', () => { const r = e.model.requests(); return r.length >= 3 ? r : undefined; });
    assert.strictEqual(reqs.length, 3);
    const results = toolResults(reqs[2]).slice(-1).join('\n');
    assert.match(results, /user/i, `tool result mentions the user's change: ${results}`);
    ok = true;
  });

  it('a rejected Bash call becomes an error result and the turn goes on', async () => {
    env = await setup([
      [{ tool_use: { id: 'toolu_it_2', name: 'Bash', input: { command: 'rm -rf build', description: 'clean' } } }],
      [{ text: 'OK, I will not.' }],
    ]);
    const e = env;
    const { sessionId } = await e.agent.request(NewSessionRequest, { cwd: e.ws, mcpServers: [] });
    e.answer = p => selectOutcome(optionOfKind(p.options, 'reject_once')!.optionId);
    const res = await e.agent.request(PromptRequest, { sessionId, prompt: [{ type: 'text', text: 'clean up' }] });
    assert.strictEqual(res.stopReason, 'end_turn');
    assert.strictEqual(e.permissions.length, 1);
    assert.strictEqual(e.permissions[0].toolCall.kind, 'execute');
    assert.strictEqual((e.permissions[0].toolCall.rawInput as { command: string }).command, 'rm -rf build');
    const failed = e.updates.find(u => u.update.sessionUpdate === 'tool_call_update' && u.update.status === 'failed');
    assert.ok(failed, 'the tool call ends failed');
    const reqs = await waitFor('2 logged model requests', () => { const r = e.model.requests(); return r.length >= 2 ? r : undefined; });
    assert.match(toolResults(reqs[1]).join('\n'), /rejected/);
    ok = true;
  });

  it('session/cancel ends a hanging turn with stopReason cancelled', async () => {
    env = await setup([[{ text: 'thinking about it...' }, { hang: true }]]);
    const e = env;
    const { sessionId } = await e.agent.request(NewSessionRequest, { cwd: e.ws, mcpServers: [] });
    const prompt = e.agent.request(PromptRequest, { sessionId, prompt: [{ type: 'text', text: 'go' }] });
    await waitFor('the first chunk', () => e.updates.find(u => u.update.sessionUpdate === 'agent_message_chunk'));
    await e.agent.conn.sendNotification(CancelNotification.method, { sessionId });
    const res = await prompt;
    assert.strictEqual(res.stopReason, 'cancelled');
    ok = true;
  });

  it('lists saved sessions and replays one with session/load', async () => {
    env = await setup([[{ text: 'Hello from the past.' }]]);
    const e = env;
    const { sessionId } = await e.agent.request(NewSessionRequest, { cwd: e.ws, mcpServers: [] });
    await e.agent.request(PromptRequest, { sessionId, prompt: [{ type: 'text', text: 'Remember me' }] });
    const list = await e.agent.request(ListSessionsRequest, { cwd: e.ws });
    const info = list.sessions.find(s => s.sessionId === sessionId);
    assert.ok(info, `session/list has the session: ${JSON.stringify(list)}`);
    assert.match(info.title ?? '', /Remember me/);

    e.updates.length = 0;
    const loaded = await e.agent.request(LoadSessionRequest, { sessionId, cwd: e.ws, mcpServers: [] });
    assert.ok(loaded !== null && typeof loaded === 'object');
    const state = emptyState();
    for (const u of e.updates.filter(x => x.sessionId === sessionId)) reduce(state, { type: 'update', update: u.update });
    const texts = state.items.map(i => `${i.kind}:${'text' in i ? i.text : ''}`);
    assert.deepStrictEqual(texts, ['user:Remember me', 'agent:Hello from the past.'], 'the history replays before the answer');

    // session/resume (what the extension does after agent-lsp restarts) answers without replaying.
    e.updates.length = 0;
    await e.agent.request(ResumeSessionRequest, { sessionId, cwd: e.ws, mcpServers: [] });
    await new Promise(r => setTimeout(r, 100));
    assert.deepStrictEqual(e.updates.filter(u => u.update.sessionUpdate.endsWith('_chunk')), [], 'no replay on resume');
    ok = true;
  });

  it('serves the mode and model pickers: modes and configOptions, set_mode, set_config_option', async () => {
    env = await setup([]);
    const e = env;
    const s = await e.agent.request(NewSessionRequest, { cwd: e.ws, mcpServers: [] });
    assert.ok(s.modes && s.modes.availableModes.some(m => m.id === 'plan'), `modes: ${JSON.stringify(s.modes)}`);
    const model = s.configOptions?.find(o => o.id === 'model');
    assert.ok(model && model.options.length > 0, `configOptions has the model: ${JSON.stringify(s.configOptions)}`);
    const state = emptyState();
    reduce(state, { type: 'session', sessionId: s.sessionId, modes: s.modes!.availableModes, currentModeId: s.modes!.currentModeId, configOptions: s.configOptions });
    await e.agent.request(SetModeRequest, { sessionId: s.sessionId, modeId: 'plan' });
    const other = model.options.find(o => o.value !== model.currentValue)!.value;
    const res = await e.agent.request(SetConfigOptionRequest, { sessionId: s.sessionId, configId: 'model', value: other });
    assert.strictEqual(res.configOptions.find(o => o.id === 'model')?.currentValue, other);
    await waitFor('current_mode_update', () => e.updates.find(u => u.update.sessionUpdate === 'current_mode_update'));
    await waitFor('available_commands_update', () => e.updates.find(u => u.update.sessionUpdate === 'available_commands_update'));
    for (const u of e.updates) reduce(state, { type: 'update', update: u.update });
    assert.strictEqual(state.currentModeId, 'plan');
    assert.strictEqual(state.currentModel, other);
    assert.ok(state.commands.some(c => c.name === 'compact'), 'slash commands announced');
    await assert.rejects(e.agent.request(SetModeRequest, { sessionId: s.sessionId, modeId: 'nope' }),
      (err: { code: number }) => err.code === ErrorCodes.InvalidParams);
    ok = true;
  });

  it('runs two chats\' sessions at once on one connection, each update routed to its own chat', async () => {
    env = await setup([
      [{ text: 'Chat A asks first.' }, { tool_use: { id: 'toolu_it_a', name: 'Bash', input: { command: 'rm -rf build', description: 'clean' } } }],
      [{ text: ['Chat B ', 'answers ', 'while A waits.'] }],
      [{ text: 'Chat A done.' }],
    ]);
    const e = env;
    // The extension's routing (src/shared/chats.ts): each chat owns its session.
    const routes = new SessionRoutes<ViewState>();
    const chatA = emptyState();
    const chatB = emptyState();
    const a = await e.agent.request(NewSessionRequest, { cwd: e.ws, mcpServers: [] });
    const b = await e.agent.request(NewSessionRequest, { cwd: e.ws, mcpServers: [] });
    assert.notStrictEqual(a.sessionId, b.sessionId);
    routes.move(chatA, undefined, a.sessionId);
    routes.move(chatB, undefined, b.sessionId);
    let release!: () => void;
    e.answer = p => new Promise(resolve => { release = () => resolve(selectOutcome(optionOfKind(p.options, 'reject_once')!.optionId)); });

    const turnA = e.agent.request(PromptRequest, { sessionId: a.sessionId, prompt: [{ type: 'text', text: 'Fix it in chat A' }] });
    await waitFor('chat A\'s permission request', () => e.permissions[0]);
    assert.strictEqual(e.permissions[0].sessionId, a.sessionId, 'the permission request names chat A\'s session');
    // Chat B's whole turn runs while chat A's waits for the user.
    const resB = await e.agent.request(PromptRequest, { sessionId: b.sessionId, prompt: [{ type: 'text', text: 'Explain it in chat B' }] });
    assert.strictEqual(resB.stopReason, 'end_turn');
    release();
    assert.strictEqual((await turnA).stopReason, 'end_turn');

    for (const u of e.updates) {
      const chat = routes.owner(u.sessionId);
      assert.ok(chat, `an update for a session no chat shows: ${u.sessionId}`);
      reduce(chat, { type: 'update', update: u.update });
    }
    const text = (s: ViewState) => s.items.map(i => 'text' in i ? i.text : '').join('|');
    assert.match(text(chatA), /Chat A asks first\.[\s\S]*Chat A done\./);
    assert.doesNotMatch(text(chatA), /Chat B/);
    assert.match(text(chatB), /Chat B answers while A waits\./);
    assert.doesNotMatch(text(chatB), /Chat A/);
    // The model saw two conversations: B's request holds nothing of A's.
    const reqs = await waitFor('three model requests', () => { const r = e.model.requests(); return r.length >= 3 ? r : undefined; });
    assert.strictEqual(reqs.length, 3);
    assert.doesNotMatch(JSON.stringify(reqs[1]), /chat A/);
    assert.match(JSON.stringify(reqs[2]), /Fix it in chat A/);
    assert.doesNotMatch(JSON.stringify(reqs[2]), /chat B/);
    ok = true;
  });

  it('answers protocol errors with the documented codes and keeps serving', async () => {
    env = await setup([]);
    const e = env;
    await assert.rejects(e.agent.request(PromptRequest, { sessionId: 'nope', prompt: [{ type: 'text', text: 'x' }] }),
      (err: { code: number }) => err.code === ErrorCodes.InvalidParams);
    await assert.rejects(e.agent.request(NewSessionRequest, { cwd: 'relative', mcpServers: [] }),
      (err: { code: number }) => err.code === ErrorCodes.InvalidParams);
    const s = await e.agent.request(NewSessionRequest, { cwd: e.ws, mcpServers: [] });
    assert.ok(s.sessionId);
    ok = true;
  });
});
