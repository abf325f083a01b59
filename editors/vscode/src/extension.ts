// Entry point. activate() registers the view, the status bar and the
// commands (from one table), then starts agent-lsp without waiting for it: a
// slow or missing binary must not keep the chat view from resolving.

import * as path from 'path';
import * as vscode from 'vscode';
import { CHAT_VIEW_ID, ChatViewProvider } from './chatView';
import { AgentController } from './controller';
import { bundledServerPath, DEFAULT_SETTINGS, keyVariable, type Settings } from './settings';
import { runDoctor } from './doctor';
import { pickMention } from './mentions';
import { type DiagnosticInfo, diagnosticsAttachment, fileAttachment, selectionAttachment, selectionSpan } from './shared/context';
import { pendingPermissions, turnWords, type ViewState } from './shared/state';

function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration('agentLsp');
  return {
    serverPath: c.get<string>('serverPath', DEFAULT_SETTINGS.serverPath),
    env: c.get<Record<string, string>>('env', {}),
    provider: c.get<string>('provider', ''),
    model: c.get<string>('model', ''),
    baseURL: c.get<string>('baseURL', ''),
    permissionMode: c.get<string>('permissionMode', 'default'),
    maxTurns: c.get<number>('maxTurns', 0),
  };
}

const SEVERITY: Record<number, DiagnosticInfo['severity']> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'info',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};

function statusText(s: ViewState): { text: string; tooltip: string } {
  if (s.connection === 'error') return { text: '$(error) Agent', tooltip: `agent-lsp: ${s.connectionMessage ?? 'not running'}` };
  if (s.connection === 'starting') return { text: '$(loading~spin) Agent', tooltip: 'agent-lsp is starting' };
  if (s.connection === 'stopped') return { text: '$(debug-disconnect) Agent', tooltip: 'agent-lsp stopped' };
  const waiting = pendingPermissions(s).length;
  if (waiting) return { text: `$(bell-dot) Agent: ${turnWords(s.busy, waiting)}`, tooltip: `The agent waits for your approval (${waiting})` };
  if (s.busy) return { text: `$(sync~spin) Agent: ${turnWords(s.busy, 0)}`, tooltip: 'The agent is working; click to open the chat' };
  return { text: '$(comment-discussion) Agent', tooltip: 'agent-lsp is idle; click to open the chat' };
}

let current: AgentController | undefined;
let doctorChannel: vscode.OutputChannel | undefined;

/** The SecretStorage key of the model API key. */
const API_KEY_SECRET = 'agentLsp.apiKey';

export function activate(context: vscode.ExtensionContext): void {
  // languageclient v11 needs a log output channel.
  const log = vscode.window.createOutputChannel('agent-lsp', { log: true });
  const secrets = context.secrets;
  const controller = new AgentController(log, readSettings, {
    bundledServer: bundledServerPath(context.extensionPath),
    apiKey: () => secrets.get(API_KEY_SECRET),
  });

  const setApiKey = async (): Promise<void> => {
    const variable = keyVariable(readSettings().provider);
    const key = await vscode.window.showInputBox({
      title: 'agent-lsp: model API key',
      prompt: `Your ${variable === 'OPENAI_API_KEY' ? 'OpenAI-compatible' : 'Anthropic'} API key. It is kept in VS Code's secret storage, not in settings.json, and given to agent-lsp as ${variable}. Empty: forget the key.`,
      password: true,
      ignoreFocusOut: true,
    });
    if (key === undefined) return;
    if (key.trim()) await secrets.store(API_KEY_SECRET, key.trim());
    else await secrets.delete(API_KEY_SECRET);
    log.info(key.trim() ? `API key stored in secret storage (passed as ${variable})` : 'API key removed from secret storage');
    await controller.restart();
  };
  const diagnose = async (): Promise<void> => {
    const out = doctorChannel ??= vscode.window.createOutputChannel('agent-lsp doctor');
    context.subscriptions.push(out);
    try {
      const { command, env } = await controller.serverCommand();
      const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      const r = await runDoctor(command, env, cwd);
      out.clear();
      out.append(r.text);
      out.show(true);
      if (r.ok) void vscode.window.showInformationMessage('agent-lsp doctor: nothing blocks a session.');
      else void vscode.window.showErrorMessage(`agent-lsp doctor: ${r.summary}`, 'Show').then(c => { if (c) out.show(); });
    } catch (e) {
      void vscode.window.showErrorMessage(`agent-lsp doctor: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const openSettings = (): Thenable<unknown> => vscode.commands.executeCommand('workbench.action.openSettings', '@ext:agent-lsp.agent-lsp');
  // No model configured (the agent says so at start): the chat shows it with
  // its two buttons; with the chat hidden, a notification offers them.
  let problemShown: string | undefined;
  controller.onDidChange(s => {
    if (s.providerProblem === problemShown) return;
    problemShown = s.providerProblem;
    if (!s.providerProblem || chat.visible) return;
    void vscode.window.showErrorMessage(s.providerProblem, 'Set API key', 'Open settings').then(c => {
      if (c === 'Set API key') void setApiKey();
      if (c === 'Open settings') void openSettings();
    });
  });
  current = controller;

  const attachDiagnostics = (): void => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showInformationMessage('Open a file and put the cursor on a problem to attach it.');
      return;
    }
    const doc = editor.document;
    const sel = editor.selection;
    const diags = vscode.languages.getDiagnostics(doc.uri).filter(d =>
      sel.isEmpty ? d.range.start.line <= sel.active.line && sel.active.line <= d.range.end.line : !!d.range.intersection(sel));
    const a = diagnosticsAttachment(doc.uri.toString(), diags.map(d => ({
      line: d.range.start.line, character: d.range.start.character, severity: SEVERITY[d.severity] ?? 'error', message: d.message,
      source: d.source, code: typeof d.code === 'object' ? String(d.code.value) : d.code,
    })), line => doc.lineAt(line).text);
    if (!a) {
      void vscode.window.showInformationMessage('No diagnostics at the cursor.');
      return;
    }
    controller.addAttachment(a);
  };

  const openLocation = (p: string, line?: number): void => {
    let uri: vscode.Uri;
    if (/^[a-z][\w+.-]*:/i.test(p) && !/^[a-z]:[\\/]/i.test(p)) {
      uri = vscode.Uri.parse(p);
      if (uri.scheme === 'http' || uri.scheme === 'https') {
        void vscode.env.openExternal(uri);
        return;
      }
    } else {
      const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      uri = vscode.Uri.file(path.isAbsolute(p) || !root ? p : path.join(root, p));
    }
    const m = /#L(\d+)/.exec(uri.fragment ? `#${uri.fragment}` : '');
    const l = line ?? (m ? Number(m[1]) - 1 : undefined);
    void vscode.window.showTextDocument(uri.with({ fragment: '' }), {
      preview: true,
      selection: l !== undefined ? new vscode.Range(l, 0, l, 0) : undefined,
    });
  };

  const mention = async () => {
    const a = await pickMention(() => controller.mcpResources());
    if (a) controller.addAttachment(a);
    await chat.focusPrompt();
  };
  const chat = new ChatViewProvider(context.extensionUri, controller, { attachDiagnostics, mention, openLocation, setApiKey, openSettings }, log);
  controller.addSink(chat);

  const status = vscode.window.createStatusBarItem('agentLsp.status', vscode.StatusBarAlignment.Right, 100);
  status.name = 'agent-lsp';
  status.command = 'agentLsp.focusChat';
  let pendingKey = false;
  const showStatus = (s: ViewState) => {
    const waiting = pendingPermissions(s).length > 0;
    if (waiting !== pendingKey) {
      pendingKey = waiting;
      void vscode.commands.executeCommand('setContext', 'agentLsp.pendingApproval', waiting);
    }
    const t = statusText(s);
    status.text = t.text;
    status.tooltip = t.tooltip;
    status.backgroundColor = pendingPermissions(s).length ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  };
  showStatus(controller.state);
  status.show();

  // Commands that take the resource the menu was opened on, or the active editor.
  const commands: Record<string, (...args: any[]) => unknown> = {
    'agentLsp.focusChat': () => chat.focusPrompt(),
    'agentLsp.newSession': () => controller.newSession().catch(e => vscode.window.showErrorMessage(`New chat: ${e.message ?? e}`)),
    'agentLsp.showHistory': () => controller.showHistory(),
    'agentLsp.cancel': () => controller.cancel(),
    'agentLsp.restart': () => controller.restart(),
    'agentLsp.showLog': () => log.show(),
    'agentLsp.setApiKey': () => setApiKey(),
    'agentLsp.diagnose': () => diagnose(),
    'agentLsp.askAboutSelection': () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return;
      const sel = editor.selection;
      const range = sel.isEmpty ? editor.document.lineAt(sel.active.line).range : sel;
      controller.addAttachment(selectionAttachment(editor.document.uri.toString(), editor.document.languageId,
        selectionSpan(range.start, range.end), editor.document.getText(range)));
      return chat.focusPrompt();
    },
    'agentLsp.addFileToChat': (uri?: vscode.Uri, uris?: vscode.Uri[]) => {
      const targets = uris?.length ? uris : [uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri].filter((u): u is vscode.Uri => !!u);
      for (const u of targets) controller.addAttachment(fileAttachment(u.toString()));
      return chat.focusPrompt();
    },
    'agentLsp.attachDiagnostics': () => { attachDiagnostics(); return chat.focusPrompt(); },
    'agentLsp.permission.allowOnce': (uri?: vscode.Uri) => controller.decideKind(controller.pendingFor(uri), ['allow_once']),
    'agentLsp.permission.allowAlways': (uri?: vscode.Uri) => controller.chooseAlways(controller.pendingFor(uri)),
    'agentLsp.permission.reject': (uri?: vscode.Uri) => controller.decideKind(controller.pendingFor(uri), ['reject_once', 'reject_always']),
  };

  context.subscriptions.push(
    log, controller, status,
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, chat),
    controller.onDidChange(showStatus),
    ...Object.entries(commands).map(([id, fn]) => vscode.commands.registerCommand(id, fn)),
    vscode.workspace.onDidGrantWorkspaceTrust(() => { void controller.workspaceTrustGranted(); }),
    vscode.workspace.onDidChangeConfiguration(e => {
      if (e.affectsConfiguration('editor.tabSize')) controller.setTabSizes(tabSizes());
      if (e.affectsConfiguration('agentLsp')) {
        void vscode.window.showInformationMessage('agent-lsp settings changed: restart the agent to apply them.', 'Restart').then(c => {
          if (c) void controller.restart();
        });
      }
    }),
  );

  controller.setTabSizes(tabSizes());
  void controller.start();
}

/** Languages whose editor.tabSize the chat's code blocks use (VS Code language ids). */
const CODE_LANGUAGES = [
  'go', 'python', 'typescript', 'javascript', 'rust', 'c', 'cpp', 'csharp', 'java', 'ruby', 'lua', 'json', 'yaml',
  'sql', 'shellscript', 'markdown', 'css', 'html', 'xml', 'makefile',
];

/** editor.tabSize by language, "" for the default. */
function tabSizes(): Record<string, number> {
  const sizes: Record<string, number> = {};
  const size = (languageId?: string) => {
    const v = vscode.workspace.getConfiguration('editor', languageId ? { languageId } : undefined).get<number | string>('tabSize');
    return typeof v === 'number' ? v : 4;
  };
  sizes[''] = size();
  for (const l of CODE_LANGUAGES) sizes[l] = size(l);
  return sizes;
}

/** Stops agent-lsp (shutdown, exit) before the extension host goes away. */
export function deactivate(): Promise<void> | undefined {
  const c = current;
  current = undefined;
  return c?.stop();
}
