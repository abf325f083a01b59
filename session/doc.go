// Package session persists conversations as append-only JSON Lines files
// in Claude Code's format, so agent-lsp and Claude Code can read each
// other's sessions.
//
// # Layout
//
// A session lives in <dir>/projects/<cwd>/<id>.jsonl, where dir is
// [DefaultDir] and <cwd> is the session's working directory with every
// character other than an ASCII letter or digit replaced by '-', as
// Claude Code names its ~/.claude/projects directories. [Store.List] and
// [Store.Load] also see Claude Code's sessions; they are never written:
// continuing one ([Store.Resume]) copies it into our directory, under the
// same id, on its first write.
//
// # Lines
//
// Each line is one JSON object. The ones this package writes:
//
//   - user and assistant lines: {"parentUuid", "isSidechain", "userType",
//     "cwd", "sessionId", "version", "type", "message": {"role",
//     "content"}, "uuid", "timestamp"}. parentUuid names the previous
//     message's uuid (null for the first), so the lines form Claude
//     Code's chain; message is a [providers.Message].
//   - a compaction ([Log.AppendSummary]): a system line with subtype
//     "compact_boundary", parentUuid null and logicalParentUuid naming the
//     last message, then a user line with isCompactSummary set holding
//     the summary. This is how Claude Code records /compact.
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
// The model's context is what follows the last compaction boundary.
// Within it, messages are found by following parentUuid back from the
// last message, as Claude Code does, so a rewound branch or deleted
// messages drop out; sidechain (subagent), meta and tombstoned lines are
// skipped; an assistant response Claude Code split over several lines
// (one per content block, sharing message.id) becomes one message, and
// so do the results of parallel tool calls written one per line.
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
