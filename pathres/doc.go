// Package pathres is the one path resolver of agent-lsp: the file tools,
// the permission policy (paths in tool calls and in shell commands), the
// instruction files of the system prompt, the settings file that "always
// allow" writes and the sandbox's protected and secret paths all ask it
// where a path leads.
//
// Resolve follows a path the way the kernel does when it opens or creates
// a file, component by component:
//   - every symlink in an existing component is followed where it is met,
//     so "link/.." is the parent of the link's target (a lexical clean
//     would say ".");
//   - a dangling link, or a chain of them, is followed hop by hop to where
//     a write through it would create the file;
//   - components that do not exist are kept as written (".." after one
//     climbs back out of it, as mkdir -p would);
//   - a path that passes through /proc, /sys or /dev, as written or
//     through a link (/proc/self/root, /proc/self/environ, /dev/fd/3), is
//     refused with ErrPseudo: those entries are not files and their links
//     are not paths, so such a path counts as outside every workspace;
//   - more than MaxLinks links fail with ELOOP.
//
// Within answers whether a resolved path lies in a folder.
// The package imports nothing of the project: it sits at the bottom of the
// layering, beside diffs and schema.
package pathres
