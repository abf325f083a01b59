package sandbox

import "os"

// GitEnv returns the whole environment of a git command the sidecar runs
// for itself, unconfined, on a repository it does not trust (the
// checkpoints' listing of a workspace's files): the hardened
// configuration every git command without a question gets (gitConfig),
// no system or global configuration, and no home to find one in.
func GitEnv() []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "HOME=/nonexistent"}, gitEnv()...)
}
