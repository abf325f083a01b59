package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/editortest"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
)

// TestBinaryEndToEndCloud runs a prompt with a tool call through the
// binary to fake Amazon Bedrock (checking the SigV4 signature of the
// credentials in the environment) and Google Vertex AI endpoints, switched
// on with Claude Code's variables.
func TestBinaryEndToEndCloud(t *testing.T) {
	turns := func() []fake.Turn {
		return []fake.Turn{
			{fake.Text("Reading."), fake.ToolUse("toolu_1", "Read", `{"file_path":"a.txt"}`)},
			{fake.Text("It says one.")},
		}
	}
	key := fake.AWSKey{AccessKeyID: "AKIDE2E", SecretAccessKey: "e2e-secret", Region: "us-west-2"}
	bedrock := fake.NewBedrock(t, key, turns()...)
	vertex := fake.NewVertex(t, "proj-e2e", "europe-west1", "", turns()...)
	for _, tc := range []struct {
		name string
		srv  *fake.Server
		env  []string
		path string
	}{
		{"bedrock", bedrock, []string{
			"CLAUDE_CODE_USE_BEDROCK=1", "AWS_REGION=us-west-2", "ANTHROPIC_BEDROCK_BASE_URL=" + bedrock.URL,
			"AWS_ACCESS_KEY_ID=" + key.AccessKeyID, "AWS_SECRET_ACCESS_KEY=" + key.SecretAccessKey,
			"AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE=" + os.DevNull, "AWS_SHARED_CREDENTIALS_FILE=" + os.DevNull,
			"ANTHROPIC_MODEL=claude-haiku-4-5",
		}, "/model/us.anthropic.claude-haiku-4-5-20251001-v1:0/invoke-with-response-stream"},
		{"vertex", vertex, []string{
			"CLAUDE_CODE_USE_VERTEX=1", "CLOUD_ML_REGION=global", "VERTEX_REGION_CLAUDE_4_5_SONNET=europe-west1",
			"ANTHROPIC_VERTEX_PROJECT_ID=proj-e2e", "ANTHROPIC_VERTEX_BASE_URL=" + vertex.URL, "CLAUDE_CODE_SKIP_VERTEX_AUTH=1",
		}, "/v1/projects/proj-e2e/locations/europe-west1/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, _ := filepath.EvalSymlinks(t.TempDir())
			os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\n"), 0o644)
			env := append([]string{"ANTHROPIC_API_KEY=", "ANTHROPIC_BASE_URL=", "AGENT_LSP_HOME=" + t.TempDir(), "AGENT_LSP_NO_USER_SETTINGS=1"}, tc.env...)
			ed, _ := editortest.NewProcess(t, binary, []string{"--stdio"}, env...)
			ed.Initialize(root, nil)
			sid := ed.NewSession(root)
			stop, err := ed.Prompt(sid, "what does a.txt say?")
			if err != nil || stop != schema.StopEndTurn {
				t.Fatalf("prompt = %q, %v (server: %v)", stop, err, tc.srv.Errors())
			}
			reqs := tc.srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			for _, r := range reqs {
				if r.Path != tc.path {
					t.Errorf("path %s, want %s", r.Path, tc.path)
				}
			}
			// The tool's result went back to the model.
			if body := string(reqs[1].Body); !strings.Contains(body, `"tool_use_id":"toolu_1"`) || !strings.Contains(body, "one") {
				t.Errorf("second request lacks the Read result: %s", body)
			}
		})
	}
}
