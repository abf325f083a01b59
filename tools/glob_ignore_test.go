package tools

import (
	"strings"
	"testing"
)

// TestGlobIncludeIgnored checks that Glob leaves out what .gitignore
// excludes unless the settings' respectGitignore is false.
func TestGlobIncludeIgnored(t *testing.T) {
	for _, tc := range []struct {
		include bool
		want    []string
	}{
		{false, []string{"a.go"}},
		{true, []string{"a.go", "build/gen.go"}},
	} {
		te := newTestEnv(t)
		te.IncludeIgnored = tc.include
		te.write(t, map[string]string{".gitignore": "build/\n", "a.go": "", "build/gen.go": ""})
		res := te.run(t, "Glob", obj{"pattern": "**/*.go"})
		wantResult(t, res, false)
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(res.Content), "\n") {
			got = append(got, strings.TrimPrefix(line, te.root+"/"))
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") && !(len(got) == 2 && len(tc.want) == 2 && got[0] == tc.want[1] && got[1] == tc.want[0]) {
			t.Errorf("IncludeIgnored %v: got %v, want %v", tc.include, got, tc.want)
		}
	}
}
