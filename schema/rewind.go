package schema

// What a rewind restores (RewindParams.Restore).
const (
	RestoreCode         = "code"         // the workspace's files
	RestoreConversation = "conversation" // what the model is sent, and the session file's chain
	RestoreBoth         = "both"
)

// Actions of a RewindChange.
const (
	RewindWrite  = "write"  // the file's content or mode comes back
	RewindCreate = "create" // a file deleted since comes back
	RewindDelete = "delete" // a file created since goes
)

// CheckpointsParams is the params of session/checkpoints.
type CheckpointsParams struct {
	SessionID string `json:"sessionId"`
}

// CheckpointsResult is the result of session/checkpoints: one checkpoint
// per prompt of the session, oldest first.
type CheckpointsResult struct {
	Checkpoints []Checkpoint `json:"checkpoints"`
}

// Checkpoint is the state of the workspace and the conversation before
// one of the user's prompts.
type Checkpoint struct {
	// Checkpoint numbers the session's prompts from 1.
	Checkpoint int    `json:"checkpoint"`
	Prompt     string `json:"prompt"`
	Time       string `json:"time"` // RFC 3339
}

// RewindParams is the params of session/rewind.
type RewindParams struct {
	SessionID string `json:"sessionId"`
	// Checkpoint is the prompt to go back to before.
	Checkpoint int `json:"checkpoint"`
	// Restore is RestoreCode, RestoreConversation or RestoreBoth.
	Restore string `json:"restore"`
	// Force overwrites the conflicts: files changed since the checkpoint
	// by someone other than the agent.
	Force bool `json:"force,omitempty"`
	// Preview computes the changes and conflicts and applies nothing.
	Preview bool `json:"preview,omitempty"`
}

// RewindResult is the result of session/rewind.
type RewindResult struct {
	// Applied is false for a preview, and when conflicts stopped the
	// rewind: then nothing changed.
	Applied bool `json:"applied"`
	// Changes are what restoring the code does (did) to the files.
	Changes []RewindChange `json:"changes"`
	// Conflicts are the absolute paths of changed files that someone
	// other than the agent changed since the checkpoint.
	Conflicts []string `json:"conflicts,omitempty"`
	// Warnings are what went wrong once the files were restored (an
	// editor that did not update a buffer).
	Warnings []string `json:"warnings,omitempty"`
}

// RewindChange is what a rewind does to one file.
type RewindChange struct {
	Path   string `json:"path"`   // absolute
	Action string `json:"action"` // RewindWrite, RewindCreate or RewindDelete
}
