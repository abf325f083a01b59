// Typed messages between the chat webview and the extension.

import type { ViewEvent, ViewState } from './state';

/** Extension → webview. */
export type ToWebview =
  /** The whole state: on (re)load of the webview. */
  | { type: 'snapshot'; state: ViewState }
  /** Events to apply, in order, with the shared reducer. */
  | { type: 'events'; events: ViewEvent[] }
  /** Focus the prompt box. */
  | { type: 'focusPrompt' };

/** Webview → extension. */
export type FromWebview =
  | { type: 'ready' }
  | { type: 'prompt'; text: string }
  | { type: 'cancel' }
  | { type: 'setMode'; modeId: string }
  | { type: 'setModel'; model: string }
  | { type: 'permission'; id: string; optionId: string }
  | { type: 'review'; id: string }
  | { type: 'removeAttachment'; id: string }
  | { type: 'attachDiagnostics' }
  | { type: 'newSession' }
  | { type: 'history' }
  /** "Rewind to here" on a user message (its item id). */
  | { type: 'rewind'; id: string }
  | { type: 'openLocation'; path: string; line?: number }
  | { type: 'showLog' }
  | { type: 'restart' }
  /** Open the mode, model or effort picker (a quick pick with descriptions and groups). */
  | { type: 'pickMode' }
  | { type: 'pickModel' }
  | { type: 'pickEffort' }
  /** `@` typed in the prompt: open the mention picker. */
  | { type: 'mention' }
  /** An image pasted or dropped into the prompt, base64. */
  | { type: 'attachImage'; name: string; mimeType: string; data: string }
  /** A code block's Copy button: the text for the clipboard. */
  | { type: 'copy'; text: string }
  /** The no-model notice's buttons. */
  | { type: 'setApiKey' }
  | { type: 'openSettings' };

const fromTypes = new Set<FromWebview['type']>([
  'ready', 'prompt', 'cancel', 'setMode', 'setModel', 'permission', 'review', 'removeAttachment',
  'attachDiagnostics', 'newSession', 'history', 'rewind', 'openLocation', 'showLog', 'restart', 'pickMode', 'pickModel', 'pickEffort', 'mention', 'attachImage', 'copy',
  'setApiKey', 'openSettings',
]);

/** Checks a message from the webview before the extension acts on it. */
export function isFromWebview(m: unknown): m is FromWebview {
  if (!m || typeof m !== 'object') return false;
  const msg = m as Record<string, unknown>;
  if (!fromTypes.has(msg.type as FromWebview['type'])) return false;
  const str = (k: string) => typeof msg[k] === 'string';
  switch (msg.type) {
    case 'prompt': return str('text');
    case 'setMode': return str('modeId');
    case 'setModel': return str('model');
    case 'attachImage': return str('name') && str('mimeType') && str('data');
    case 'copy': return str('text');
    case 'permission': return str('id') && str('optionId');
    case 'review': case 'removeAttachment': case 'rewind': return str('id');
    case 'openLocation': return str('path') && (msg.line === undefined || typeof msg.line === 'number');
  }
  return true;
}
