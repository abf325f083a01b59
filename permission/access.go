package permission

// Access is what a call does, as its tool declares it (the engine copies
// tools.Spec.Access): it decides which rule families cover the call and
// what the mode allows. The zero value is the most restrictive.
type Access int

// The accesses, as tools.Access.
const (
	// AccessUndeclared calls may read and change anything: Read and Edit
	// deny and ask rules both cover them (allow rules only by their own
	// name), and they never run without a question (plan mode refuses
	// them).
	AccessUndeclared Access = iota
	// AccessNone calls touch nothing the rules govern.
	AccessNone
	// AccessRead calls read files and change nothing: Read rules cover
	// them.
	AccessRead
	// AccessEdit calls change files: Edit rules cover them.
	AccessEdit
	// AccessExecute calls run or stop commands.
	AccessExecute
	// AccessFetch calls reach the network.
	AccessFetch
)

// aliases are Claude Code's tool names, which rules may name, and the
// access each stands for. Read and Edit are the families; the others
// are accepted in rules as they are in Claude Code, a path rule on one
// of them covering that tool alone. A call that does not declare its
// access has the one its name stands for here.
var aliases = map[string]Access{
	"Read": AccessRead, "Glob": AccessRead, "Grep": AccessRead, "LS": AccessRead, "NotebookRead": AccessRead,
	"Edit": AccessEdit, "Write": AccessEdit, "MultiEdit": AccessEdit, "NotebookEdit": AccessEdit,
	"Bash": AccessExecute, "WebFetch": AccessFetch, "WebSearch": AccessFetch,
}

// family returns the rule family a rule's tool name belongs to: "Read"
// for the names of reading tools, "Edit" for editing ones, else "".
func family(name string) string {
	switch aliases[name] {
	case AccessRead:
		return "Read"
	case AccessEdit:
		return "Edit"
	}
	return ""
}

// pathRuleTool reports whether rules naming tool take a path pattern.
func pathRuleTool(tool string) bool { return family(tool) != "" }

// access returns what c does: its declared access, else the one its
// name stands for, else, for a call that says only that it changes
// nothing, AccessRead (Read rules cover it).
func (c *Call) access() Access {
	if c.Access != AccessUndeclared {
		return c.Access
	}
	if a, ok := aliases[c.Tool]; ok {
		return a
	}
	if c.ReadOnly {
		return AccessRead
	}
	return AccessUndeclared
}

// familyCovers reports whether a rule on the family fam ("Read",
// "Edit") covers a call with access a. cautious (deny and ask rules)
// also covers calls whose access is undeclared.
func familyCovers(fam string, a Access, cautious bool) bool {
	switch fam {
	case "Read":
		return a == AccessRead || cautious && a == AccessUndeclared
	case "Edit":
		return a == AccessEdit || cautious && a == AccessUndeclared
	}
	return false
}
