// Entry point. activate() registers the view, the status bar and the
// commands (from one table), then starts agent-lsp without waiting for it: a
// slow or missing binary must not keep the chat view from resolving. One
// agent connection serves the panel's chat and the chats in editor tabs.

import * as path from 'path';
import * as vscode from 'vscode';
import { CHAT_TAB_TYPE, CHAT_VIEW_ID } from './chatView';
import { Chats } from './chats';
import { AgentConnection } from './connection';
import type { AgentController } from './controller';
import { bundledServerPath, DEFAULT_SETTINGS, keyVariable, type Settings } from './settings';
import { runDoctor } from './doctor';
import { pickMention } from './mentions';
import { type DiagnosticInfo, diagnosticsAttachment, fileAttachment, selectionAttachment, selectionSpan } from './shared/context';
import { statusText } from './shared/chats';

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

let current: AgentConnection | undefined;
let doctorChannel: vscode.OutputChannel | undefined;

/** The SecretStorage key of the model API key. */
const API_KEY_SECRET = 'agentLsp.apiKey';

export function activate(context: vscode.ExtensionContext): void {
  // languageclient v11 needs a log output channel.
  const log = vscode.window.createOutputChannel('agent-lsp', { log: true });
  const secrets = context.secrets;
  const conn = new AgentConnection(log, readSettings, {
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
    await conn.restart();
  };
  const diagnose = async (): Promise<void> => {
    const out = doctorChannel ??= vscode.window.createOutputChannel('agent-lsp doctor');
    context.subscriptions.push(out);
    try {
      const { command, env } = await conn.serverCommand();
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
  current = conn;

  const attachDiagnostics = (chat: AgentController): void => {
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
    chat.addAttachment(a);
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

  const mention = async (chat: AgentController) => {
    const a = await pickMention(() => chat.mcpResources());
    if (a) chat.addAttachment(a);
    await chats.focusPrompt(chat);
  };
  const chats = new Chats(context.extensionUri, conn, { attachDiagnostics, mention, openLocation, setApiKey, openSettings, restart: () => { void conn.restart(); } }, log, context.workspaceState);
  // No model configured (the agent says so at start): the chat shows it with
  // its two buttons; with the chat hidden, a notification offers them.
  let problemShown: string | undefined;
  conn.onDidChange(() => {
    const s = chats.panel.state;
    if (s.providerProblem === problemShown) return;
    problemShown = s.providerProblem;
    if (!s.providerProblem || chats.all().some(c => c.visible)) return;
    void vscode.window.showErrorMessage(s.providerProblem, 'Set API key', 'Open settings').then(c => {
      if (c === 'Set API key') void setApiKey();
      if (c === 'Open settings') void openSettings();
    });
  });

  const status = vscode.window.createStatusBarItem('agentLsp.status', vscode.StatusBarAlignment.Right, 100);
  status.name = 'agent-lsp';
  status.command = 'agentLsp.showWaitingChat';
  let pendingKey = false;
  // Over every chat: any chat waiting for an approval shows here.
  const showStatus = () => {
    const t = statusText(conn.states());
    const waiting = t.waiting > 0;
    if (waiting !== pendingKey) {
      pendingKey = waiting;
      void vscode.commands.executeCommand('setContext', 'agentLsp.pendingApproval', waiting);
    }
    status.text = t.text;
    status.tooltip = t.tooltip;
    status.backgroundColor = waiting ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  };
  showStatus();
  status.show();

  // Commands that take the resource the menu was opened on, or the active editor.
  const commands: Record<string, (...args: any[]) => unknown> = {
    'agentLsp.focusChat': () => chats.focusPrompt(chats.panel),
    // The status bar item: the chat that waits for an approval, else one whose turn runs, else the panel's.
    'agentLsp.showWaitingChat': () => chats.focusPrompt(chats.waiting() ?? chats.panel),
    'agentLsp.openChatInEditor': () => chats.openTab(),
    // From the palette: the chat last acted in; from a title bar: the panel's, or the active tab's.
    'agentLsp.newSession': () => chats.newChat(chats.active()),
    'agentLsp.showHistory': () => chats.history(chats.active()),
    'agentLsp.panel.newSession': () => chats.newChat(chats.panel),
    'agentLsp.panel.showHistory': () => chats.history(chats.panel),
    'agentLsp.tab.newSession': () => chats.newChat(chats.activeTab() ?? chats.active()),
    'agentLsp.tab.showHistory': () => chats.history(chats.activeTab() ?? chats.active()),
    'agentLsp.cancel': () => chats.active().cancel(),
    'agentLsp.restart': () => conn.restart(),
    'agentLsp.showLog': () => log.show(),
    'agentLsp.setApiKey': () => setApiKey(),
    'agentLsp.diagnose': () => diagnose(),
    'agentLsp.askAboutSelection': () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return;
      const sel = editor.selection;
      const range = sel.isEmpty ? editor.document.lineAt(sel.active.line).range : sel;
      const chat = chats.active();
      chat.addAttachment(selectionAttachment(editor.document.uri.toString(), editor.document.languageId,
        selectionSpan(range.start, range.end), editor.document.getText(range)));
      return chats.focusPrompt(chat);
    },
    'agentLsp.addFileToChat': (uri?: vscode.Uri, uris?: vscode.Uri[]) => {
      const targets = uris?.length ? uris : [uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri].filter((u): u is vscode.Uri => !!u);
      const chat = chats.active();
      for (const u of targets) chat.addAttachment(fileAttachment(u.toString()));
      return chats.focusPrompt(chat);
    },
    'agentLsp.attachDiagnostics': () => { const chat = chats.active(); attachDiagnostics(chat); return chats.focusPrompt(chat); },
    // The request of the diff editor the action is on, in whichever chat asked.
    'agentLsp.permission.allowOnce': (uri?: vscode.Uri) => { const p = chats.pendingFor(uri); (p?.chat ?? chats.active()).decideKind(p?.id, ['allow_once']); },
    'agentLsp.permission.allowAlways': (uri?: vscode.Uri) => { const p = chats.pendingFor(uri); return (p?.chat ?? chats.active()).chooseAlways(p?.id); },
    'agentLsp.permission.reject': (uri?: vscode.Uri) => { const p = chats.pendingFor(uri); (p?.chat ?? chats.active()).decideKind(p?.id, ['reject_once', 'reject_always']); },
  };

  context.subscriptions.push(
    log, chats, conn, status,
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, chats.panelView),
    // Chat tabs open before a reload come back with their chats.
    vscode.window.registerWebviewPanelSerializer(CHAT_TAB_TYPE, { deserializeWebviewPanel: async panel => { await chats.restoreTab(panel); } }),
    conn.onDidChange(showStatus),
    ...Object.entries(commands).map(([id, fn]) => vscode.commands.registerCommand(id, fn)),
    vscode.workspace.onDidGrantWorkspaceTrust(() => { void conn.workspaceTrustGranted(); }),
    vscode.workspace.onDidChangeConfiguration(e => {
      if (e.affectsConfiguration('editor.tabSize')) conn.setTabSizes(tabSizes());
      if (e.affectsConfiguration('agentLsp')) {
        void vscode.window.showInformationMessage('agent-lsp settings changed: restart the agent to apply them.', 'Restart').then(c => {
          if (c) void conn.restart();
        });
      }
    }),
  );

  conn.setTabSizes(tabSizes());
  void conn.start();
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
