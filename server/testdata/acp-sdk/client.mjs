// Conformance client: drives `agent-lsp acp` with the official Agent Client
// Protocol TypeScript SDK (@agentclientprotocol/sdk, pinned in
// package.json), the way an ACP editor would. server/acp_sdk_test.go runs
// one scenario per process against the fake model and checks what the
// scenario prints and what the model was sent.
//
//   node client.mjs <scenario>
//
// Environment: ACP_SDK (the install prefix of scripts/install-acp-sdk.sh),
// AGENT_LSP (the binary), WORKSPACE (the sessions' cwd); the agent inherits
// the rest (ANTHROPIC_BASE_URL, AGENT_LSP_HOME, ...).
//
// Every response is validated with the SDK's own zod schemas, and every
// session/update notification is validated by the SDK as it arrives; an
// SDK error about a message (logged through console.error) fails the run.
// On success the scenario prints one JSON line of results on stdout; on
// failure it prints the reason on stderr and exits with status 1.

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const need = (name) => {
  const v = process.env[name];
  if (!v) fail(`${name} is not set`);
  return v;
};
function fail(msg) {
  process.stderr.write(`acp-sdk client: ${msg}\n`);
  process.exit(1);
}
function check(cond, msg, value) {
  if (!cond) throw new Error(value === undefined ? msg : `${msg}: ${JSON.stringify(value)}`);
}

const prefix = need("ACP_SDK");
const binary = need("AGENT_LSP");
const workspace = need("WORKSPACE");
const sdkEntry = createRequire(join(prefix, "package.json")).resolve("@agentclientprotocol/sdk");
const acp = await import(pathToFileURL(sdkEntry).href);
// The zod schemas the SDK validates incoming messages with; the package
// does not export them, so they are loaded from the file.
const zod = await import(pathToFileURL(join(sdkEntry, "../../schema/zod.gen.js")).href);

// SDK errors about malformed messages go to console.error: record them.
const sdkErrors = [];
const consoleError = console.error;
console.error = (...args) => {
  sdkErrors.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
  consoleError(...args);
};

/** validate parses value with the SDK's schema for a message type. */
function validate(type, value) {
  const r = zod[`z${type}`].safeParse(value);
  check(r.success, `${type} does not match the ACP schema: ${r.error?.message}`, value);
  return value;
}

/**
 * Terminals is an editor's terminal: terminal/create runs the command as a
 * real process group, and the other terminal methods answer about it.
 */
class Terminals {
  constructor() {
    this.running = new Map();
    this.requests = [];
    this.next = 0;
  }

  handle(method, type, fn) {
    return async ({ params }) => {
      validate(type, params);
      this.requests.push(`${method} ${params.terminalId ?? params.command}`);
      if (method === "terminal/create") return fn(params);
      const t = this.running.get(params.terminalId);
      check(t, `${method} of an unknown terminal`, params);
      return fn(t, params);
    };
  }

  create(p) {
    const env = { ...process.env };
    for (const { name, value } of p.env ?? []) env[name] = value;
    const child = spawn(p.command, p.args ?? [], { cwd: p.cwd ?? undefined, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const t = { child, output: "", truncated: false, limit: p.outputByteLimit ?? Infinity };
    t.exit = new Promise((resolve) => child.on("exit", (exitCode, signal) => resolve({ exitCode, signal })));
    const take = (chunk) => {
      t.output += chunk;
      const over = Buffer.byteLength(t.output) - t.limit;
      if (over > 0) {
        t.output = Buffer.from(t.output).subarray(over).toString();
        t.truncated = true;
      }
    };
    child.stdout.setEncoding("utf8").on("data", take);
    child.stderr.setEncoding("utf8").on("data", take);
    const terminalId = `term_${++this.next}`;
    this.running.set(terminalId, t);
    return validate("CreateTerminalResponse", { terminalId });
  }

  kill(t) {
    if (t.child.exitCode === null && t.child.signalCode === null) process.kill(-t.child.pid, "SIGKILL");
  }

  /** on adds the terminal methods to a client app. */
  on(app) {
    return app
      .onRequest("terminal/create", this.handle("terminal/create", "CreateTerminalRequest", (p) => this.create(p)))
      .onRequest("terminal/output", this.handle("terminal/output", "TerminalOutputRequest", async (t) => {
        const exitStatus = t.child.exitCode !== null || t.child.signalCode !== null ? await t.exit : undefined;
        return validate("TerminalOutputResponse", { output: t.output, truncated: t.truncated, exitStatus });
      }))
      .onRequest("terminal/wait_for_exit", this.handle("terminal/wait_for_exit", "WaitForTerminalExitRequest", async (t) => validate("WaitForTerminalExitResponse", await t.exit)))
      .onRequest("terminal/kill", this.handle("terminal/kill", "KillTerminalRequest", async (t) => {
        this.kill(t);
        await t.exit;
        return {};
      }))
      .onRequest("terminal/release", this.handle("terminal/release", "ReleaseTerminalRequest", async (t, p) => {
        this.kill(t);
        this.running.delete(p.terminalId);
        return {};
      }));
  }
}

/**
 * Editor is one ACP client connected to one agent-lsp process: it serves
 * fs/read_text_file from its buffers (and the disk), records
 * fs/write_text_file, answers permission requests, runs terminals when
 * it offers them and records updates.
 */
class Editor {
  constructor({ fs = false, answer = "allow_once", terminal = false } = {}) {
    this.fs = fs;
    this.terminals = terminal ? new Terminals() : null;
    this.answer = answer;
    this.buffers = new Map();
    this.reads = [];
    this.writes = {};
    this.permissions = [];
    this.updates = [];
    this.waiters = [];
    this.t0 = performance.now();
    this.child = spawn(binary, ["acp"], { stdio: ["pipe", "pipe", "inherit"] });
    this.exited = new Promise((resolve) => this.child.on("exit", (code, signal) => resolve({ code, signal })));
    // wire keeps the agent's lines in arrival order: the SDK dispatches
    // notifications through async handlers, so the order in which they
    // reach ours can differ from the order on the wire.
    this.wire = [];
    let partial = "";
    const decoder = new TextDecoder();
    const tap = new TransformStream({
      transform: (chunk, controller) => {
        const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
        partial = lines.pop();
        this.wire.push(...lines.filter((l) => l.trim()));
        controller.enqueue(chunk);
      },
    });
    const stream = acp.ndJsonStream(Writable.toWeb(this.child.stdin), Readable.toWeb(this.child.stdout).pipeThrough(tap));
    const app = acp
      .client({ name: "agent-lsp-conformance" })
      .onRequest("session/request_permission", async ({ params }) => {
        validate("RequestPermissionRequest", params);
        this.permissions.push(params);
        const opt = params.options.find((o) => o.kind === this.answer);
        check(opt, `no ${this.answer} option offered`, params.options);
        return { outcome: { outcome: "selected", optionId: opt.optionId } };
      })
      .onRequest("fs/read_text_file", async ({ params }) => {
        validate("ReadTextFileRequest", params);
        this.reads.push(params.path);
        if (this.buffers.has(params.path)) return { content: this.buffers.get(params.path) };
        return { content: readFileSync(params.path, "utf8") };
      })
      .onRequest("fs/write_text_file", async ({ params }) => {
        validate("WriteTextFileRequest", params);
        this.writes[params.path] = params.content;
        this.buffers.set(params.path, params.content);
        return {};
      })
      .onNotification("session/update", async ({ params }) => {
        this.updates.push(params);
        for (const w of this.waiters.splice(0)) w();
      });
    this.connection = (this.terminals ? this.terminals.on(app) : app).connect(stream);
    this.agent = this.connection.agent;
  }

  /** request sends a request and validates its response as type. */
  async request(method, params, type, options) {
    const res = await this.agent.request(method, params, options);
    return type ? validate(type, res) : res;
  }

  async initialize(protocolVersion = 1) {
    const res = await this.request(
      "initialize",
      {
        protocolVersion,
        clientCapabilities: { fs: { readTextFile: this.fs, writeTextFile: this.fs }, terminal: this.terminals !== null },
        clientInfo: { name: "agent-lsp-conformance", version: "1" },
      },
      "InitializeResponse",
    );
    this.initializeMs = performance.now() - this.t0;
    return res;
  }

  /** waitFor resolves once pred holds for a recorded update. */
  async waitFor(what, pred, ms = 20000) {
    const deadline = Date.now() + ms;
    for (;;) {
      const u = this.updates.find(pred);
      if (u) return u;
      check(Date.now() < deadline, `timed out waiting for ${what}; updates`, this.updates.map((n) => n.update.sessionUpdate));
      await new Promise((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  kinds(sessionId) {
    return this.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update.sessionUpdate);
  }

  /** close ends stdin, as an editor that quits, and waits for the exit. */
  async close() {
    this.child.stdin.end();
    const exit = await Promise.race([this.exited, new Promise((r) => setTimeout(() => r(null), 10000))]);
    if (!exit) {
      this.child.kill("SIGKILL");
      throw new Error("agent-lsp acp did not exit within 10 s of stdin closing");
    }
    this.connection.close();
    return exit;
  }
}

const text = (n) => (n.update.content?.type === "text" ? n.update.content.text : "");

function checkAgentCapabilities(init) {
  check(init.protocolVersion === 1, "protocolVersion", init.protocolVersion);
  const c = init.agentCapabilities;
  check(c.loadSession === true, "loadSession", c);
  check(c.promptCapabilities.image && c.promptCapabilities.embeddedContext, "promptCapabilities", c.promptCapabilities);
  check(c.mcpCapabilities.http && c.mcpCapabilities.sse, "mcpCapabilities", c.mcpCapabilities);
  for (const k of ["list", "resume", "close"]) check(c.sessionCapabilities?.[k], `sessionCapabilities.${k}`, c.sessionCapabilities);
  check(init.authMethods.length > 0 && init.agentInfo?.name === "agent-lsp", "authMethods and agentInfo", init);
}

const scenarios = {
  // initialize (and version negotiation), authenticate, session/new with
  // modes and the model option, a prompt whose Write needs permission,
  // set_mode, set_config_option, list.
  async permission() {
    const ed = new Editor();
    const init = await ed.initialize();
    checkAgentCapabilities(init);
    await ed.request("authenticate", { methodId: "anthropic-api-key" }, "AuthenticateResponse");

    const session = await ed.agent.buildSession(workspace).start();
    const ns = validate("NewSessionResponse", session.newSessionResponse);
    check(ns.modes?.currentModeId === "default", "session/new modes", ns.modes);
    for (const m of ["plan", "acceptEdits", "bypassPermissions"]) {
      check(ns.modes.availableModes.some((x) => x.id === m), `mode ${m} offered`, ns.modes);
    }
    const model = ns.configOptions?.find((o) => o.id === "model");
    check(model?.type === "select" && model.currentValue, "model config option", ns.configOptions);

    // Every kind of block the agent announces: text, an embedded
    // resource, a resource link and an image.
    const stop = await session.prompt([
      { type: "text", text: "write hello.txt" },
      { type: "resource", resource: { uri: `file://${join(workspace, "notes.md")}`, mimeType: "text/markdown", text: "NOTE-CONTENT" } },
      { type: "resource_link", uri: `file://${join(workspace, "calc.py")}`, name: "calc.py" },
      { type: "image", mimeType: "image/png", data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==" },
    ]);
    validate("PromptResponse", stop);
    check(stop.stopReason === "end_turn", "stopReason", stop);
    const seen = [];
    for (;;) {
      const m = await session.nextUpdate();
      if (m.kind === "stop") break;
      seen.push(m.update);
    }
    const call = seen.find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "toolu_1");
    check(call && call.kind === "edit", "tool_call for the Write", seen);
    const done = seen.find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "toolu_1" && u.status === "completed");
    check(done, "completed tool_call_update", seen);
    check(seen.some((u) => u.sessionUpdate === "tool_call_update" && u.content?.some((c) => c.type === "diff" && c.newText === "hello\n")), "diff content", seen);
    check(ed.permissions.length === 1 && ed.permissions[0].toolCall.toolCallId === "toolu_1", "one permission request", ed.permissions);
    const answer = seen.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join("");

    await ed.request("session/set_mode", { sessionId: session.sessionId, modeId: "plan" }, "SetSessionModeResponse");
    await ed.waitFor("current_mode_update", (n) => n.update.sessionUpdate === "current_mode_update" && n.update.currentModeId === "plan");
    const other = model.options.find((o) => o.value !== model.currentValue);
    check(other, "a second model to pick", model.options);
    const set = await ed.request("session/set_config_option", { sessionId: session.sessionId, configId: "model", value: other.value }, "SetSessionConfigOptionResponse");
    check(set.configOptions.find((o) => o.id === "model").currentValue === other.value, "set_config_option result", set);
    const list = await ed.request("session/list", { cwd: workspace }, "ListSessionsResponse");
    check(list.sessions.some((s) => s.sessionId === session.sessionId), "session/list", list);
    const exit = await ed.close();
    check(exit.code === 0, "exit status after stdin closed", exit);

    // A client asking for a later protocol version gets 1.
    const later = new Editor();
    const neg = await later.initialize(2);
    check(neg.protocolVersion === 1, "negotiated protocolVersion", neg);
    await later.close();
    return { sessionId: session.sessionId, answer, kinds: ed.kinds(session.sessionId), model: other.value };
  },

  // Read and Edit through fs/read_text_file and fs/write_text_file.
  async fs() {
    const ed = new Editor({ fs: true });
    await ed.initialize();
    const path = join(workspace, "calc.py");
    ed.buffers.set(path, "x = 1  # unsaved\n");
    const session = await ed.agent.buildSession(workspace).start();
    const stop = await session.prompt("bump x");
    check(stop.stopReason === "end_turn", "stopReason", stop);
    check(ed.reads.includes(path), "fs/read_text_file of calc.py", ed.reads);
    check(ed.writes[path] === "x = 2  # unsaved\n", "fs/write_text_file of calc.py", ed.writes);
    await ed.close();
    return { reads: ed.reads, writes: ed.writes };
  },

  // Without fs capabilities the agent uses the disk.
  async nofs() {
    const ed = new Editor({ fs: false });
    await ed.initialize();
    const session = await ed.agent.buildSession(workspace).start();
    const stop = await session.prompt("bump x");
    check(stop.stopReason === "end_turn", "stopReason", stop);
    await ed.close();
    return { reads: ed.reads, writes: ed.writes };
  },

  // Cancel mid-stream, with session/cancel and with the SDK's request
  // cancellation ($/cancel_request); the session goes on after each.
  async cancel() {
    const ed = new Editor();
    await ed.initialize();
    const ns = await ed.request("session/new", { cwd: workspace, mcpServers: [] }, "NewSessionResponse");
    const sessionId = ns.sessionId;
    const chunk = (after) => (n) => n.sessionId === sessionId && n.update.sessionUpdate === "agent_message_chunk" && text(n).includes("Working") && ed.updates.indexOf(n) >= after;
    const prompt = (words, options) => ed.request("session/prompt", { sessionId, prompt: [{ type: "text", text: words }] }, "PromptResponse", options);

    let from = ed.updates.length;
    const first = prompt("take your time");
    await ed.waitFor("the first chunk", chunk(from));
    await ed.agent.notify("session/cancel", { sessionId });
    const r1 = await first;
    check(r1.stopReason === "cancelled", "stopReason after session/cancel", r1);
    const r2 = await prompt("go on");
    check(r2.stopReason === "end_turn", "prompt after cancel", r2);

    from = ed.updates.length;
    const abort = new AbortController();
    const third = prompt("again, slowly", { cancellationSignal: abort.signal });
    await ed.waitFor("the first chunk", chunk(from));
    abort.abort();
    const r3 = await third;
    check(r3.stopReason === "cancelled", "stopReason after $/cancel_request", r3);
    const r4 = await prompt("and on");
    check(r4.stopReason === "end_turn", "prompt after cancel", r4);
    await ed.close();
    return { stops: [r1.stopReason, r2.stopReason, r3.stopReason, r4.stopReason] };
  },

  // A session made by one agent process is listed and loaded by the next,
  // which replays its history as session/update before answering; a third
  // resumes it without replay.
  async load() {
    const first = new Editor();
    await first.initialize();
    const ns = await first.request("session/new", { cwd: workspace, mcpServers: [] }, "NewSessionResponse");
    const r = await first.request("session/prompt", { sessionId: ns.sessionId, prompt: [{ type: "text", text: "remember the number 42" }] }, "PromptResponse");
    check(r.stopReason === "end_turn", "first prompt", r);
    await first.close();

    const second = new Editor();
    const init = await second.initialize();
    check(init.agentCapabilities.loadSession, "loadSession", init);
    const list = await second.request("session/list", { cwd: workspace }, "ListSessionsResponse");
    check(list.sessions.some((s) => s.sessionId === ns.sessionId && s.cwd === workspace), "session/list", list);
    const loaded = await second.request("session/load", { sessionId: ns.sessionId, cwd: workspace, mcpServers: [] }, "LoadSessionResponse");
    check(loaded.modes?.currentModeId, "session/load modes", loaded);
    await second.waitFor("the replayed answer", (n) => n.update.sessionUpdate === "agent_message_chunk" && text(n).includes("42"));
    const replay = second.updates.filter((n) => n.sessionId === ns.sessionId && text(n)).map((n) => `${n.update.sessionUpdate}: ${text(n)}`);
    check(replay.includes("user_message_chunk: remember the number 42"), "replayed user message", replay);
    // On the wire, the history comes before session/load's response.
    const answerAt = second.wire.findIndex((l) => l.includes('"agent_message_chunk"') && l.includes("I will remember 42."));
    const responseAt = second.wire.findIndex((l) => l.includes('"result"') && l.includes('"availableModes"'));
    check(answerAt >= 0 && answerAt < responseAt, "the replay must precede the session/load response", second.wire);
    const r2 = await second.request("session/prompt", { sessionId: ns.sessionId, prompt: [{ type: "text", text: "which number?" }] }, "PromptResponse");
    check(r2.stopReason === "end_turn", "prompt after load", r2);
    await second.close();

    const third = new Editor();
    await third.initialize();
    await third.request("session/resume", { sessionId: ns.sessionId, cwd: workspace, mcpServers: [] }, "ResumeSessionResponse");
    await new Promise((r) => setTimeout(r, 100));
    const replayed = third.updates.filter((n) => text(n));
    check(replayed.length === 0, "session/resume must not replay", replayed);
    await third.close();
    return { sessionId: ns.sessionId, replay };
  },

  // Loading with a client that serves fs and terminals (issue 24): the
  // history holds a Read, an Edit (written through fs/write_text_file, so
  // the disk never changed) and a Bash run in the client's terminal.
  // session/load answers without a single request to the client, and the
  // replayed Edit shows the change it made, not one against the file as
  // it is now; session/resume asks nothing either.
  async loadfs() {
    const first = new Editor({ fs: true, terminal: true });
    await first.initialize();
    const ns = await first.request("session/new", { cwd: workspace, mcpServers: [] }, "NewSessionResponse");
    const r = await first.request("session/prompt", { sessionId: ns.sessionId, prompt: [{ type: "text", text: "set x to 2, then check" }] }, "PromptResponse");
    check(r.stopReason === "end_turn", "first prompt", r);
    check(Object.values(first.writes).includes("x = 2\n"), "the edit went through fs/write_text_file", first.writes);
    check(first.terminals.requests.length > 0, "Bash ran in the client's terminal", first.terminals.requests);
    await first.close();

    const second = new Editor({ fs: true, terminal: true });
    await second.initialize();
    const loading = second.request("session/load", { sessionId: ns.sessionId, cwd: workspace, mcpServers: [] }, "LoadSessionResponse");
    const loaded = await Promise.race([loading, new Promise((_, reject) => setTimeout(() => reject(new Error("session/load was not answered within 10 s")), 10000))]);
    check(loaded.modes?.currentModeId, "session/load modes", loaded);
    check(second.reads.length === 0 && second.terminals.requests.length === 0, "session/load must not call the client", { reads: second.reads, terminals: second.terminals.requests });
    const edit = second.updates.find((n) => n.update.sessionUpdate === "tool_call" && n.update.toolCallId === "toolu_2");
    const diff = edit?.update.content?.find((c) => c.type === "diff");
    check(diff && diff.oldText === "x = 1\n" && diff.newText === "x = 2\n", "the replayed Edit shows the change it made", edit?.update);
    const r2 = await second.request("session/prompt", { sessionId: ns.sessionId, prompt: [{ type: "text", text: "still there?" }] }, "PromptResponse");
    check(r2.stopReason === "end_turn", "prompt after load", r2);
    await second.close();

    const third = new Editor({ fs: true, terminal: true });
    await third.initialize();
    await third.request("session/resume", { sessionId: ns.sessionId, cwd: workspace, mcpServers: [] }, "ResumeSessionResponse");
    check(third.reads.length === 0 && third.terminals.requests.length === 0, "session/resume must not call the client", { reads: third.reads, terminals: third.terminals.requests });
    await third.close();
    return { sessionId: ns.sessionId, diff };
  },

  // Bash through the editor's terminal: the tool call embeds the
  // terminal while it runs, a command that outlives its timeout is killed
  // there, and every terminal is released.
  async terminal() {
    const ed = new Editor({ terminal: true });
    await ed.initialize();
    const session = await ed.agent.buildSession(workspace).start();
    const stop = await session.prompt("run it");
    check(stop.stopReason === "end_turn", "stopReason", stop);
    const running = await ed.waitFor("the running terminal embedded", (n) =>
      n.update.sessionUpdate === "tool_call_update" && n.update.status === "in_progress" && n.update.content?.[0]?.type === "terminal");
    check(running.update.content[0].terminalId === "term_1", "the embedded terminal", running.update);
    const failed = await ed.waitFor("the failed call", (n) => n.update.sessionUpdate === "tool_call_update" && n.update.status === "failed");
    check(failed.update.content?.[0]?.terminalId === "term_1", "the finished call keeps its terminal", failed.update);
    const slow = await session.prompt("run the slow one");
    check(slow.stopReason === "end_turn", "stopReason", slow);
    check(ed.terminals.running.size === 0, "every terminal released", [...ed.terminals.running.keys()]);
    await ed.close();
    return { requests: ed.terminals.requests };
  },

  // Timings for bench/acp: spawn -> initialize answered, session/new,
  // prompt -> first agent_message_chunk, and the agent's peak memory, for
  // BENCH_RUNS fresh agent processes started one after another by this
  // one client, after one warm-up agent that is not measured: an editor's
  // client is already running, and its own first-use costs (the JIT, the
  // SDK's schemas, node's first spawn) are not the agent's.
  async bench() {
    const runs = Number(process.env.BENCH_RUNS ?? "1");
    const results = [];
    for (let i = 0; i <= runs; i++) {
      const ed = new Editor();
      await ed.initialize();
      let t = performance.now();
      const ns = await ed.request("session/new", { cwd: workspace, mcpServers: [] }, "NewSessionResponse");
      const sessionNewMs = performance.now() - t;
      t = performance.now();
      const done = ed.request("session/prompt", { sessionId: ns.sessionId, prompt: [{ type: "text", text: "hello" }] }, "PromptResponse");
      await ed.waitFor("the first chunk", (n) => n.update.sessionUpdate === "agent_message_chunk");
      const firstChunkMs = performance.now() - t;
      await done;
      const hwm = readFileSync(`/proc/${ed.child.pid}/status`, "utf8").match(/^VmHWM:\s+(\d+) kB/m);
      await ed.close();
      if (i > 0) results.push({ initializeMs: ed.initializeMs, sessionNewMs, firstChunkMs, peakRssKb: hwm ? Number(hwm[1]) : 0 });
    }
    return results;
  },
};

const name = process.argv[2];
if (!scenarios[name]) fail(`unknown scenario ${JSON.stringify(name)} (want one of ${Object.keys(scenarios).join(", ")})`);
try {
  const result = await scenarios[name]();
  check(sdkErrors.length === 0, "the SDK reported errors", sdkErrors);
  process.stdout.write(JSON.stringify(result) + "\n");
  process.exit(0);
} catch (err) {
  fail(`${name}: ${err?.stack ?? err}`);
}
