// Package settings loads agent-lsp's settings from the files Claude Code
// users already have, so their permission rules, hooks and sandbox
// configuration carry over unchanged.
//
// Settings come from several layers, highest priority first:
//
//  1. the managed policy file (an optional path, usually where Claude
//     Code reads it on the system: [ManagedPathFor]) and, above it, the
//     *.json files of the managed-settings.d folder beside it, in file
//     name order, the last highest,
//  2. the editor's initializationOptions,
//  3. <project>/.claude/settings.local.json (personal, not committed),
//  4. <project>/.claude/settings.json (shared with the team),
//  5. ~/.claude/settings.json (the user's).
//
// Scalar values (model, defaultMode, sandbox.enabled, ...) come from the
// highest layer that sets them. Lists (permission rules,
// additionalDirectories, MCP server approvals) are the union of every
// layer's. Maps (env, mcpServers) merge key by key, the higher layer
// winning. Hooks from every layer all run.
//
// A layer that is not valid JSON, or a value of the wrong type, is
// reported as a [Problem] with the file, line and column, and the other
// layers (and the layer's other valid keys) still load. Rule syntax is
// checked by the caller's [Options.CheckRule]; rules that fail it are
// reported but kept, so the permission layer can treat them cautiously.
//
// A project folder the user has not trusted ([FolderTrusted], [TrustStore])
// loads its own layers restricted ([Options.TrustProject]): they add deny
// and ask rules and may make the sandbox stricter, and everything that
// would run code, redirect the model or loosen the rules (hooks,
// apiKeyHelper, MCP servers, env, baseURL, allow rules, defaultMode,
// additionalDirectories, sandbox weakening) is left out and listed in
// [Settings.HeldBack].
//
// Every key of Claude Code's settings schema is known ([SchemaVersion]):
// a key agent-lsp does not honour is listed in [Settings.Inert] with the
// reason, and a key Claude Code does not have is reported as a warning
// [Problem], naming the key it likely misspells.
//
// A [Watcher] reloads the settings whenever one of the files changes.
package settings
