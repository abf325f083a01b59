// The chat history picker's words (docs/editor-words.md), shared with
// Neovim's: the title, the empty folder, and a chat's time.

/** The history picker's title. */
export const HISTORY_TITLE = 'Chat history';

/** The history picker's text when the folder (a path) has no saved chat yet: its name, not the path. */
export function noChatsText(folder: string): string {
  const name = folder.replace(/[\\/]+$/, '').split(/[\\/]/).pop() || folder;
  return `No saved chats for ${name} yet`;
}

/**
 * A chat's time in the history, in local time: "today 14:05" on the day
 * of now, else "2026-11-28 14:05". An unreadable time gives ''.
 */
export function chatTime(when: string | number | Date, now: Date = new Date()): string {
  const d = new Date(when);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  const hm = `${p(d.getHours())}:${p(d.getMinutes())}`;
  const sameDay = d.getFullYear() === now.getFullYear() && d.getMonth() === now.getMonth() && d.getDate() === now.getDate();
  return sameDay ? `today ${hm}` : `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${hm}`;
}
