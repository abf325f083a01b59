// Entry point of the chat webview (bundled by esbuild as an IIFE).

import type { FromWebview, ToWebview } from '../src/shared/messages';
import { ChatView } from './view';

interface VsCodeApi {
  postMessage(msg: FromWebview): void;
  getState(): { draft?: string } | undefined;
  setState(s: { draft?: string }): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();
const view = new ChatView(document, document.getElementById('root')!, {
  post: msg => api.postMessage(msg),
  requestFrame: cb => requestAnimationFrame(() => cb()),
  now: () => performance.now(),
  loadDraft: () => api.getState()?.draft ?? '',
  saveDraft: draft => api.setState({ draft }),
});
window.addEventListener('message', (e: MessageEvent<ToWebview>) => view.receive(e.data));
api.postMessage({ type: 'ready' });
