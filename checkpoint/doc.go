// Package checkpoint keeps snapshots of a workspace folder's files and
// restores them: the checkpoints behind rewinding a session.
//
// # Store
//
// A [Store] keeps the snapshots of one folder in a private bare git
// repository under the sidecar's state directory
// (<state>/checkpoints/<slug>.git), never in the user's repository: the
// user's index, HEAD, refs, stash, hooks and working tree are never
// written, and what is stored does not depend on the repository's
// format or configuration. Objects are git's (loose, zlib-compressed,
// SHA-1 named) and written by this package, so a snapshot runs no git
// command that could run a filter, a hook or a driver; the files of the
// snapshot are listed by `git ls-files --cached --others
// --exclude-standard` (tracked files, and untracked ones that are not
// ignored) run with the sandbox's hardened git environment, and, in a
// folder that is not a git repository, by the same command against the
// private repository (so .gitignore files still apply). Files are
// stored as they are: bytes, the executable bit and symbolic links; a
// file open in the editor is stored with its buffer's text
// ([Buffers]).
//
// # Points
//
// Each snapshot is a commit named by a ref,
// refs/agent-lsp/checkpoints/<session>/<n>/<kind>, where n numbers the
// session's prompts from 1 and kind is "start" (before the prompt ran)
// or "end" (after its turn); the commit message holds the [Point]'s
// metadata as JSON. Refs are plain files, so the points of a session
// survive a restart and are listed by its id; [Store.Prune] drops them
// with the session.
//
// # Cost
//
// A snapshot hashes only what changed since the last one: the store
// remembers each file's size, modification time, inode and change time
// with its object id, and trusts them for a file last modified more
// than a second before it was looked at (the racy-git rule). Unchanged
// trees are not written again, so the disk grows with what changed.
//
// # Rewind
//
// [Store.Plan] computes what restoring a start point changes (files to
// write with their modes, files to delete) and which of those changes
// would clobber a change the user made since: a file whose content
// differs between the end of a turn and the start of the next (or the
// end of the last turn and now) was changed by someone other than the
// agent. [Store.Apply] refuses a plan with conflicts unless forced, and
// applies all of it or nothing: every new content is staged beside its
// file first, the old files are moved aside, and a failure part-way
// moves everything back.
package checkpoint
