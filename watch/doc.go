// Package watch reports changes to the files of workspace folders, so the
// engine can forget stale reads and reload CLAUDE.md and settings.
//
// It is built on github.com/fsnotify/fsnotify, which cannot watch a tree:
// a [Watcher] adds one watch per directory, walking each root and then
// every directory created (or moved) under it, and skips .git (and .hg,
// .svn) and the directories .gitignore files ignore (with the
// repository's .git/info/exclude). Files are reported whether ignored or
// not: only ignored directories go unwatched.
//
// At the system's watch limit (inotify's fs.inotify.max_user_watches, or
// the open-file limit where each watch is a descriptor) it logs one line
// and goes on with the directories it has: changes elsewhere are not
// seen, nothing fails.
//
// Changes are coalesced: each changed path is reported once per batch,
// after the tree has been quiet for a moment (or at most a fraction of a
// second after the first change). A reported path may be a directory:
// one removed or renamed, or a root after the kernel's event queue
// overflowed; treat it as "anything under here may have changed".
package watch
