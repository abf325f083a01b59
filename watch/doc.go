// Package watch reports file changes in a workspace, so the agent keeps up
// with files edited by the user, by git or by its own commands.
//
// fsnotify cannot watch a tree recursively: a Watcher adds one watch per
// directory, skips .git and directories the workspace's .gitignore files
// ignore, adds watches for directories created later, and, when the
// system's inotify watch limit is reached, logs one clear line and goes on
// with the directories it has instead of failing.
package watch
