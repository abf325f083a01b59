package settings

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// SchemaVersion is the Claude Code release whose settings schema
// knownKeys follows.
const SchemaVersion = "2.1.332"

// Reasons a known key has no effect in agent-lsp, shared by many keys.
const (
	whyTerminal   = "it configures Claude Code's terminal interface; the editor shows agent-lsp's"
	whyPlugins    = "agent-lsp has no plugins or plugin marketplaces"
	whyAccount    = "it concerns Claude Code's claude.ai account, login or Remote Control, which agent-lsp does not use"
	whyDesktop    = "it configures Claude Code's desktop app"
	whyUpdates    = "it concerns Claude Code's own installation and updates"
	whyAutoMode   = "agent-lsp has no auto mode"
	whyTeams      = "agent-lsp has no agent teams, background agents or workflows"
	whyMemory     = "agent-lsp's memory loader does not read it"
	whyMCPPolicy  = "agent-lsp's MCP loader does not read it"
	whyTelemetry  = "agent-lsp sends no telemetry, surveys or notifications of its own"
	whyCloudAuth  = "agent-lsp's cloud providers take their credentials from the environment"
	whyNotHere    = "agent-lsp does not have this feature"
	whyStatusLine = "the editor draws the status; agent-lsp runs no status line command"
)

// knownKeys maps every top-level key of Claude Code's settings schema
// (SchemaVersion), and agent-lsp's own keys, to what agent-lsp does with
// it: "" when it is honoured, else why it has no effect here. A key
// missing from the map is unknown: a typo, or a key of a newer Claude
// Code.
var knownKeys = map[string]string{
	// Honoured.
	"$schema":                         "",
	"apiKeyHelper":                    "",
	"env":                             "",
	"permissions":                     "",
	"model":                           "",
	"availableModels":                 "",
	"fallbackModel":                   "",
	"effortLevel":                     "",
	"alwaysThinkingEnabled":           "",
	"enableAllProjectMcpServers":      "",
	"enabledMcpjsonServers":           "",
	"disabledMcpjsonServers":          "",
	"hooks":                           "",
	"disableAllHooks":                 "",
	"sandbox":                         "",
	"cleanupPeriodDays":               "",
	"attribution":                     "",
	"includeCoAuthoredBy":             "",
	"includeGitInstructions":          "",
	"respectGitignore":                "",
	"autoCompactEnabled":              "",
	"language":                        "",
	"allowManagedHooksOnly":           "",
	"allowManagedPermissionRulesOnly": "",
	"allowManagedMcpServersOnly":      "",
	// agent-lsp's own.
	"provider":   "",
	"baseURL":    "",
	"lsp":        "",
	"mcpServers": "",

	// Known, without effect here.
	"autoMemoryEnabled":                 "",
	"autoMemoryDirectory":               "",
	"claudeMdExcludes":                  whyMemory,
	"claudeMd":                          whyMemory,
	"allowedMcpServers":                 "",
	"deniedMcpServers":                  "",
	"managedMcpServers":                 whyMCPPolicy,
	"allowAllClaudeAiMcps":              whyAccount,
	"disableClaudeAiConnectors":         whyAccount,
	"autoUpdatesChannel":                whyUpdates,
	"minimumVersion":                    whyUpdates,
	"requiredMaximumVersion":            whyUpdates,
	"requiredMinimumVersion":            whyUpdates,
	"awsCredentialExport":               whyCloudAuth,
	"awsAuthRefresh":                    whyCloudAuth,
	"gcpAuthRefresh":                    whyCloudAuth,
	"plansDirectory":                    "agent-lsp keeps plans in the session, not in plan files",
	"modelOverrides":                    "agent-lsp's Bedrock and Vertex providers take the model ID as it is named",
	"fastMode":                          whyNotHere,
	"fastModePerSessionOptIn":           whyNotHere,
	"feedbackSurveyRate":                whyTelemetry,
	"httpHookAllowedEnvVars":            "http hooks interpolate only the variables each hook's allowedEnvVars names",
	"allowedHttpHookUrls":               "agent-lsp does not restrict the URLs of http hooks",
	"allowedChannelPlugins":             whyPlugins,
	"statusLine":                        whyStatusLine,
	"subagentStatusLine":                whyStatusLine,
	"fileSuggestion":                    "the editor completes @ mentions itself",
	"enabledPlugins":                    whyPlugins,
	"extraKnownMarketplaces":            whyPlugins,
	"strictKnownMarketplaces":           whyPlugins,
	"skippedMarketplaces":               whyPlugins,
	"skippedPlugins":                    whyPlugins,
	"blockedMarketplaces":               whyPlugins,
	"pluginTrustMessage":                whyPlugins,
	"pluginConfigs":                     whyPlugins,
	"pluginSuggestionMarketplaces":      whyPlugins,
	"strictPluginOnlyCustomization":     whyPlugins,
	"disableSideloadFlags":              whyPlugins,
	"forceLoginMethod":                  whyAccount,
	"forceLoginOrgUUID":                 whyAccount,
	"forceLoginGatewayUrl":              whyAccount,
	"otelHeadersHelper":                 whyTelemetry,
	"outputStyle":                       whyNotHere,
	"skipWebFetchPreflight":             "agent-lsp's WebFetch makes no blocklist check to skip",
	"spinnerVerbs":                      whyTerminal,
	"spinnerTipsEnabled":                whyTerminal,
	"spinnerTipsOverride":               whyTerminal,
	"terminalProgressBarEnabled":        whyTerminal,
	"showTurnDuration":                  whyTerminal,
	"skillOverrides":                    whyNotHere,
	"prefersReducedMotion":              whyTerminal,
	"prUrlTemplate":                     whyTerminal,
	"companyAnnouncements":              whyTerminal,
	"teammateMode":                      whyTeams,
	"teammateDefaultModel":              whyTeams,
	"worktree":                          "agent-lsp has no --worktree sessions",
	"parentSettingsBehavior":            "agent-lsp has no SDK managed settings tier",
	"agent":                             "the editor picks the agent of a session",
	"autoMode":                          whyAutoMode,
	"useAutoModeDuringPlan":             whyAutoMode,
	"disableAutoMode":                   whyAutoMode,
	"channelsEnabled":                   whyAccount,
	"defaultShell":                      "agent-lsp has no input-box ! commands",
	"respondToBashCommands":             "agent-lsp has no input-box ! commands",
	"disableDeepLinkRegistration":       "agent-lsp registers no claude-cli:// handler",
	"disableSkillShellExecution":        whyNotHere,
	"forceRemoteSettingsRefresh":        "agent-lsp reads no remote managed settings",
	"policyHelper":                      "agent-lsp reads no remote or computed managed settings",
	"showClearContextOnPlanAccept":      whyTerminal,
	"showThinkingSummaries":             whyTerminal,
	"skipDangerousModePermissionPrompt": "the editor asks before bypassPermissions itself",
	"tui":                               whyTerminal,
	"viewMode":                          whyTerminal,
	"voiceEnabled":                      whyTerminal,
	"voice":                             whyTerminal,
	"wslInheritsWindowsSettings":        "agent-lsp reads managed settings from its own system's path only",
	"advisorModel":                      whyNotHere,
	"disableAgentView":                  whyTeams,
	"editorMode":                        whyTerminal,
	"enforceAvailableModels":            "availableModels always limits the models agent-lsp offers",
	"fileCheckpointingEnabled":          "agent-lsp always keeps checkpoints so that edits can be rewound",
	"skillListingMaxDescChars":          whyNotHere,
	"skillListingBudgetFraction":        whyNotHere,
	"preferredNotifChannel":             whyTelemetry,
	"sshConfigs":                        whyDesktop,
	"sshHostAllowlist":                  whyDesktop,
	"theme":                             whyTerminal,
	"wheelScrollAccelerationEnabled":    whyTerminal,
	"disableBundledSkills":              "agent-lsp ships no bundled skills",
	"awaySummaryEnabled":                whyTerminal,
	"autoScrollEnabled":                 whyTerminal,
	"agentPushNotifEnabled":             whyAccount,
	"axScreenReader":                    whyTerminal,
	"disableArtifact":                   "agent-lsp has no Artifact tool",
	"enableArtifact":                    "agent-lsp has no Artifact tool",
	"disableRemoteControl":              whyAccount,
	"remoteControlAtStartup":            whyAccount,
	"inputNeededNotifEnabled":           whyAccount,
	"disableWorkflows":                  whyTeams,
	"workflowKeywordTriggerEnabled":     whyTeams,
	"workflowSizeGuideline":             whyTeams,
	"footerLinksRegexes":                whyTerminal,
	"syntaxHighlightingDisabled":        whyTerminal,
	"verbose":                           whyTerminal,
	"askUserQuestionTimeout":            "the editor's question waits for the user",
	"permissionExplainerEnabled":        whyTerminal,
	"diffTool":                          "agent-lsp always shows diffs in the editor",
	"externalEditorContext":             whyTerminal,
	"autoConnectIde":                    "agent-lsp runs inside the editor",
	"autoInstallIdeExtension":           "agent-lsp runs inside the editor",
	"emojiCompletionEnabled":            whyTerminal,
	"vimInsertModeRemaps":               whyTerminal,
	"processWrapper":                    whyNotHere,
	"browserExternalPageTools":          whyDesktop,
	"disableBrowserExternalNavigation":  whyDesktop,
	"disableMobileSimulatorTools":       whyDesktop,
	"requireCoworkFullVmSandbox":        whyDesktop,
}

// knownNested lists the keys of the objects whose keys are checked too,
// in the same form as knownKeys.
var knownNested = map[string]map[string]string{
	"permissions": {
		"allow":                        "",
		"deny":                         "",
		"ask":                          "",
		"defaultMode":                  "",
		"disableBypassPermissionsMode": "",
		"additionalDirectories":        "",
		"disableAutoMode":              whyAutoMode,
	},
	"sandbox": {
		"enabled":                      "",
		"failIfUnavailable":            "",
		"allowUnsandboxedCommands":     "",
		"network":                      "",
		"filesystem":                   "",
		"ignoreViolations":             "agent-lsp reports every sandbox violation",
		"excludedCommands":             "every command runs in agent-lsp's sandbox when it is on",
		"autoAllowBashIfSandboxed":     "agent-lsp's permission rules decide sandboxed commands as any others",
		"enableWeakerNetworkIsolation": "a macOS sandbox option; agent-lsp's sandbox is bubblewrap on Linux",
		"enableWeakerNestedSandbox":    "agent-lsp's sandbox has no weaker nested mode",
		"ripgrep":                      "agent-lsp runs the rg on the PATH",
		"bwrapPath":                    "agent-lsp runs the bwrap on the PATH",
		"socatPath":                    "agent-lsp's network proxy needs no socat",
		"enabledPlatforms":             "sandbox.enabled applies on every platform where agent-lsp has a sandbox",
		"credentials":                  "agent-lsp's sandbox does not hide credential files or variables by name",
		"allowAppleEvents":             "a macOS sandbox option; agent-lsp's sandbox is bubblewrap on Linux",
	},
	"sandbox.network": {
		"allowedDomains":          "",
		"deniedDomains":           "",
		"allowLocalBinding":       "",
		"allowUnixSockets":        "agent-lsp's sandbox allows no Unix sockets",
		"allowAllUnixSockets":     "agent-lsp's sandbox allows no Unix sockets",
		"httpProxyPort":           "agent-lsp starts its own proxy",
		"socksProxyPort":          "agent-lsp starts its own proxy",
		"allowManagedDomainsOnly": "allowedDomains of every layer apply",
		"allowMachLookup":         "a macOS sandbox option; agent-lsp's sandbox is bubblewrap on Linux",
		"tlsTerminate":            "agent-lsp's proxy does not look inside TLS",
		"strictAllowlist":         "agent-lsp's sandbox always refuses hosts not allowed",
	},
	"sandbox.filesystem": {
		"allowWrite":                "",
		"allowRead":                 "",
		"denyRead":                  "",
		"denyWrite":                 "",
		"allowManagedReadPathsOnly": "allowRead of every layer apply",
		"disabled":                  "agent-lsp's sandbox always isolates the filesystem when it is on",
	},
	"attribution": {
		"commit":     "",
		"pr":         "",
		"sessionUrl": "agent-lsp sessions have no claude.ai link",
	},
}

// managedOnlyKeys take effect in managed settings only.
var managedOnlyKeys = []string{"allowManagedHooksOnly", "allowManagedPermissionRulesOnly", "allowManagedMcpServersOnly"}

// Inert is a setting that Claude Code knows and agent-lsp reads past.
type Inert struct {
	// Key is the setting's path ("statusLine", "sandbox.excludedCommands").
	Key string
	// Reason says why it has no effect in agent-lsp.
	Reason string
	Pos    Position
}

// String formats the inert key as doctor lists it.
func (i Inert) String() string {
	return fmt.Sprintf("%s: %s has no effect in agent-lsp: %s", i.Pos, i.Key, i.Reason)
}

// checkKeys reports the unknown keys of a settings object (top level
// and the objects of knownNested) as warnings, one per key, and returns
// the known keys that have no effect.
func checkKeys(top map[string]json.RawMessage, pos func(string) Position, warn func(path, msg string)) []Inert {
	var inert []Inert
	var walk func(prefix string, obj map[string]json.RawMessage, known map[string]string)
	walk = func(prefix string, obj map[string]json.RawMessage, known map[string]string) {
		for _, k := range sortedKeys(obj) {
			path := prefix + k
			reason, ok := known[k]
			switch {
			case !ok:
				msg := fmt.Sprintf("unknown setting %q: Claude Code %s does not have it, and it has no effect", path, SchemaVersion)
				if near := nearest(k, known); near != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", prefix+near)
				}
				warn(path, msg)
			case reason != "":
				inert = append(inert, Inert{Key: path, Reason: reason, Pos: pos(path)})
			default:
				if sub, nested := knownNested[path]; nested {
					var inner map[string]json.RawMessage
					if json.Unmarshal(obj[k], &inner) == nil {
						walk(path+".", inner, sub)
					}
				}
			}
		}
	}
	walk("", top, knownKeys)
	return inert
}

// nearest returns the known key that key most likely misspells: the same
// key in another case, or one at most two edits away (one for short
// keys); "" when none is that close.
func nearest(key string, known map[string]string) string {
	names := make([]string, 0, len(known))
	for k := range known {
		names = append(names, k)
	}
	sort.Strings(names)
	best, bestD := "", 3
	if len(key) <= 5 {
		bestD = 2
	}
	for _, k := range names {
		if strings.EqualFold(k, key) {
			return k
		}
		if d := editDistance(strings.ToLower(key), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
