// Package hooks runs Claude Code-compatible hooks: shell commands from the
// settings' "hooks" block that run at points of the agent loop and can
// block, allow or rewrite what happens.
//
// Events: PreToolUse (before a tool runs; may block, decide the
// permission, or rewrite the input), PostToolUse (after it ran; may feed
// a complaint back to the model), UserPromptSubmit (may block the prompt
// or add context), Stop (when the model ends its turn; blocking sends the
// reason back to the model and the loop goes on), SessionStart (may add
// context).
//
// Each hook gets the event as JSON on stdin (session_id,
// transcript_path, cwd, permission_mode, hook_event_name, and tool_name,
// tool_input, tool_response, prompt, stop_hook_active or source as the
// event has them) and CLAUDE_PROJECT_DIR in its environment. Exit status
// 0 passes, and stdout may be a JSON object ({"decision": "block",
// "reason": ...}, {"continue": false}, hookSpecificOutput with
// permissionDecision, updatedInput or additionalContext); plain stdout of
// UserPromptSubmit and SessionStart hooks is added as context. Exit
// status 2 blocks, with stderr as the reason. Any other status is an
// error that blocks nothing.
//
// The hooks matching an event run in parallel. Each runs in its own
// process group with a timeout (the hook's "timeout" in seconds, 60 by
// default); when it expires, or the caller's context ends, the whole
// group is killed, and a hook whose background children keep its output
// open is not waited for beyond a short grace period.
package hooks
