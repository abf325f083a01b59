// Package session persists conversations as append-only JSON Lines files
// in Claude Code's format, so agent-lsp and Claude Code can read each
// other's sessions.
//
// # Layout
//
// A session lives in <dir>/projects/<slug>/<id>.jsonl, where dir is
// [DefaultDir] and <slug> names the session's working directory as Claude
// Code names its ~/.claude/projects folders: every character other than
// an ASCII letter or digit replaced by '-', and a name over 200
// characters cut to 200 and followed by '-' and Claude Code's base-36
// hash of the cwd (so no name exceeds a file system's 255 bytes).
// [Store.List], [Store.Load] and [Store.Resume] also see Claude Code's
// sessions, under $CLAUDE_CONFIG_DIR (default ~/.claude), in the folder of
// the symlink-resolved cwd, as Claude Code stores them. Continuing one
// ([Store.Resume]) appends to Claude Code's own file, locked like ours,
// so a session id has one history that either tool can resume;
// [Store.Fork] continues a copy under a new id in our directory instead,
// written on its first write.
//
// # Lines
//
// Each line is one JSON object. The ones this package writes:
//
//   - user and assistant lines: {"parentUuid", "isSidechain", "userType",
//     "cwd", "sessionId", "version", "gitBranch", "type", "message":
//     {"role", "content"}, "uuid", "timestamp"}. parentUuid names the
//     previous message's uuid (null for the first), so the lines form
//     Claude Code's chain; message is a [providers.Message], a text
//     prompt's content a string as Claude Code writes it, and an
//     assistant message carries the API's "id", "type", "model",
//     "stop_reason" and "usage" ([Log.AppendResponse]). A line of tool
//     results carries Claude Code's toolUseResult (what the call did, for
//     display).
//   - a compaction ([Log.AppendSummary]): a system line with subtype
//     "compact_boundary", parentUuid null and logicalParentUuid naming the
//     last message and compactMetadata.trigger "auto" or "manual", then a
//     user line with isCompactSummary set holding the summary. This is
//     how Claude Code records /compact.
//   - {"type":"summary","summary","leafUuid"} before the first prompt,
//     naming the session after it (Claude Code writes such lines as
//     titles), and {"type":"custom-title","customTitle"} from
//     [Log.SetTitle].
//   - {"type":"tombstone","deleted":[uuid...]} from [Log.Delete]. This
//     type is ours: Claude Code does not know it, and reading one of our
//     files it would still show deleted messages that end the chain.
//   - {"type":"agent-lsp-state","state":{"permissionMode","model",
//     "allowRules","rejectRules"}} from [Log.SetState]: the session's
//     permission mode, model and "always" answers, written whenever they
//     change. This type is ours too, and Claude Code reads past it. The
//     last one is [History.State]. A compaction writes it again after
//     its boundary, so resuming finds it in the part it reads; when a
//     compaction by another writer left it before the boundary, Resume
//     searches backwards for it.
//
// Lines of other types (file-history-snapshot, progress, ...) and fields
// this package does not use are read past.
//
// # Loading
//
// The model's context is what follows the last compaction boundary,
// with the messages Claude Code kept across it
// (compactMetadata.preservedMessages, written before the boundary) put
// back after the summary. Within it, messages are found by following
// parentUuid back from the last message, as Claude Code does, so a
// rewound branch or deleted messages drop out; sidechain (subagent) and
// tombstoned lines are skipped. isMeta lines hide a message from the
// user, not from the model: Resume keeps them, Load (for replay) leaves
// them out. An assistant response Claude Code split over several lines
// (one per content block, sharing message.id) becomes one message, and so
// do the results of parallel tool calls written one per line, even when
// they and some of the response's tool_use lines branch off the chain.
//
// [Store.Resume] reads the file backwards in blocks until the last
// boundary, so resuming costs the size of the live context, not of the
// file. [Store.Load] reads everything, for replaying a session. Neither
// fails on damage: a torn last line (a crash in the middle of a write)
// and unreadable lines are skipped and reported in [History.Warnings].
// Lines have no length limit.
//
// # Durability
//
// Each call on a [Log] writes its lines with one write(2) on a file
// opened with O_APPEND; [Log.Sync] fsyncs, so what was appended before
// it returned survives a power loss, and what was appended survives the
// process being killed. The file is locked (flock) while a Log has it
// open: a second writer gets [ErrInUse].
package session
