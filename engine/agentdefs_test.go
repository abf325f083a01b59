package engine

import (
	"slices"
	"testing"
)

func TestParseAgentDef(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		want    AgentDef
		wantErr bool
	}{
		{
			name: "comma list",
			file: "---\nname: reviewer\ndescription: Reviews code.\ntools: Read, Grep,Glob\nmodel: haiku\n---\nYou review.\n",
			want: AgentDef{Name: "reviewer", Description: "Reviews code.", Tools: []string{"Read", "Grep", "Glob"}, Model: "haiku", Prompt: "You review."},
		},
		{
			name: "YAML list, CRLF",
			file: "---\r\nname: r\r\ndescription: d\r\ntools:\r\n  - Read\r\n  - Bash\r\n---\r\nBody\r\n",
			want: AgentDef{Name: "r", Description: "d", Tools: []string{"Read", "Bash"}, Prompt: "Body"},
		},
		{
			name: "no tools means all",
			file: "---\nname: all\ndescription: d\n---\nBody",
			want: AgentDef{Name: "all", Description: "d", Prompt: "Body"},
		},
		{
			name: "star means all",
			file: "---\nname: all\ndescription: d\ntools: \"*\"\n---\nBody",
			want: AgentDef{Name: "all", Description: "d", Prompt: "Body"},
		},
		{
			name: "empty tools string means none",
			file: "---\nname: none\ndescription: d\ntools: \"\"\n---\nBody",
			want: AgentDef{Name: "none", Description: "d", Tools: []string{}, Prompt: "Body"},
		},
		{name: "no frontmatter", file: "just a prompt", wantErr: true},
		{name: "no name", file: "---\ndescription: d\n---\nBody", wantErr: true},
		{name: "name with a slash", file: "---\nname: a/b\n---\nBody", wantErr: true},
		{name: "bad YAML", file: "---\nname: [x\n---\nBody", wantErr: true},
		{name: "tools a map", file: "---\nname: x\ntools: {a: 1}\n---\nBody", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseAgentDef([]byte(tt.file))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if got.Name != tt.want.Name || got.Description != tt.want.Description || got.Model != tt.want.Model || got.Prompt != tt.want.Prompt ||
				!slices.Equal(got.Tools, tt.want.Tools) || (got.Tools == nil) != (tt.want.Tools == nil) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
