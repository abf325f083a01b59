// Package hooks runs Claude Code-compatible hooks: shell commands from the
// settings' "hooks" block that run at points of the agent loop and can
// block, allow or rewrite what happens.
//
// Events: PreToolUse (before a tool runs; may block, decide the
// permission, rewrite the input or add context), PermissionRequest
// (before the user is asked; may allow, with an updated input, or deny,
// and interrupt the turn), PostToolUse and PostToolUseFailure (after it
// ran or failed; may feed a complaint or context back to the model),
// UserPromptSubmit (may block the prompt or add context), Stop and
// SubagentStop (when the model or a subagent ends its turn; blocking
// sends the reason back and the loop goes on), SessionStart (source
// startup, resume, clear or compact; may add context), SessionEnd,
// Notification (permission_prompt), PreCompact (may block the
// compaction), PostCompact, and SubagentStart (may add context to the
// subagent).
//
// Each hook gets the event as JSON on stdin (session_id,
// transcript_path, cwd, permission_mode, hook_event_name, and the fields
// of the event: tool_name, tool_input, tool_response, error, prompt,
// stop_hook_active, source, reason, message, notification_type, trigger,
// custom_instructions, compact_summary, agent_id, agent_type, ...) and
// CLAUDE_PROJECT_DIR in its environment (SessionStart hooks also
// CLAUDE_ENV_FILE, Input.EnvFile). Exit status 0 passes, and
// stdout may be a JSON object ({"decision": "block", "reason": ...},
// {"continue": false}, hookSpecificOutput with permissionDecision,
// updatedInput, additionalContext or PermissionRequest's decision);
// plain stdout of UserPromptSubmit, SessionStart and SubagentStart hooks
// is added as context. Exit status 2 blocks, with stderr as the reason,
// where the event can block; elsewhere stderr is shown to the user. Any
// other status is an error that blocks nothing.
//
// A hook with "if" (a permission rule, "Bash(rm *)") runs only for the
// tool calls the rule covers, as the permission package matches it. A
// command hook with "args" runs its command as a program with those
// arguments, without a shell. An "http" hook POSTs the JSON to its url
// and reads the answer's body as stdout. A "prompt" hook asks a model
// (Input.Ask) its prompt with the event's JSON for $ARGUMENTS; {"ok":
// false, "reason": ...} blocks. "statusMessage" is shown while the hook
// runs.
//
// The hooks matching an event run in parallel. Each runs in its own
// process group with a timeout (the hook's "timeout" in seconds, 60 by
// default); when it expires, or the caller's context ends, the whole
// group is killed, and a hook whose background children keep its output
// open is not waited for beyond a short grace period.
package hooks
