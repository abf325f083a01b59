package testenv

import (
	"testing"
)

// fakeTB records how a helper ended the test.
type fakeTB struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Skip(args ...any) {
	f.skipped = true
	f.msg = args[0].(string)
}
func (f *fakeTB) Fatalf(format string, args ...any) { f.failed = true }

func TestMissing(t *testing.T) {
	for _, required := range []string{"", "1"} {
		t.Setenv(RequireEnv, required)
		var f fakeTB
		Missing(&f, "rg is %s", "gone")
		if f.failed != (required != "") || f.skipped != (required == "") {
			t.Errorf("%s=%q: failed %v, skipped %v", RequireEnv, required, f.failed, f.skipped)
		}
		if f.skipped && f.msg != "rg is gone" {
			t.Errorf("skip message %q", f.msg)
		}
	}
}

func TestNeedTool(t *testing.T) {
	t.Setenv(RequireEnv, "1")
	var f fakeTB
	if NeedTool(&f, "sh"); f.failed || f.skipped {
		t.Error("sh is on PATH but NeedTool ended the test")
	}
	if NeedTool(&f, "no-such-program-agent-lsp"); !f.failed {
		t.Error("NeedTool did not fail on a missing program")
	}
}

func TestNeedPython(t *testing.T) {
	t.Setenv(RequireEnv, "1")
	var f fakeTB
	if NeedPython(&f, "no_such_module_agent_lsp", "python3-none"); !f.failed {
		t.Error("NeedPython did not fail on a missing module")
	}
}
