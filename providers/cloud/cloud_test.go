package cloud_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/providers/cloud"
	"github.com/agent-lsp/agent-lsp/providers/fake"
)

func turn() fake.Turn {
	return fake.Turn{fake.Text("reading ", "it"), fake.ToolUse("toolu_1", "Read", `{"file_path":"a.go"}`)}
}

func request(model string) *providers.Request {
	return &providers.Request{
		Model:     model,
		MaxTokens: 100,
		Tools: []providers.ToolSpec{{
			Name: "Read", Description: "Read a file",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"}}}`),
		}},
		Messages: []providers.Message{{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock("read a.go")}}},
	}
}

// checkTurn streams one turn and checks its text and tool call arrived.
func checkTurn(t *testing.T, p *cloud.Provider, srv *fake.Server, model string) fake.Request {
	t.Helper()
	var text strings.Builder
	resp, err := p.Stream(context.Background(), request(model), func(e providers.Event) { text.WriteString(e.Text) })
	if err != nil {
		t.Fatalf("stream: %v (server: %v)", err, srv.Errors())
	}
	if errs := srv.Errors(); len(errs) > 0 {
		t.Fatalf("server: %v", errs)
	}
	if got := resp.Message.Text(); got != "reading it" {
		t.Errorf("text %q", got)
	}
	uses := resp.Message.ToolUses()
	if len(uses) != 1 || uses[0].Name != "Read" || string(uses[0].Input) != `{"file_path":"a.go"}` || resp.StopReason != providers.StopToolUse {
		t.Errorf("tool uses %+v, stop %q", uses, resp.StopReason)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	return reqs[0]
}

func TestBedrockSigned(t *testing.T) {
	key := fake.AWSKey{AccessKeyID: "AKIDTEST", SecretAccessKey: "secret", SessionToken: "session", Region: "eu-west-1"}
	srv := fake.NewBedrock(t, key, turn())
	p := cloud.New(cloud.Options{
		Platform: cloud.Bedrock, Region: "eu-west-1", BaseURL: srv.URL,
		AccessKeyID: key.AccessKeyID, SecretAccessKey: key.SecretAccessKey, SessionToken: key.SessionToken,
		Model: func(m string) string { return "eu.anthropic." + m + "-v1:0" },
	})
	req := checkTurn(t, p, srv, "claude-sonnet-4-5-20250929")
	if req.Path != "/model/eu.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream" {
		t.Errorf("path %s", req.Path)
	}
	if req.JSON["anthropic_version"] != "bedrock-2023-05-31" || req.JSON["model"] != nil {
		t.Errorf("body %s", req.Body)
	}
}

func TestBedrockBearerAndSkipAuth(t *testing.T) {
	t.Run("bearer", func(t *testing.T) {
		srv := fake.NewBedrock(t, fake.AWSKey{Bearer: "bedrock-api-key"}, turn())
		p := cloud.New(cloud.Options{Platform: cloud.Bedrock, Region: "us-east-1", BaseURL: srv.URL, BearerToken: "bedrock-api-key"})
		checkTurn(t, p, srv, "us.anthropic.claude-haiku-4-5-20251001-v1:0")
	})
	t.Run("skip auth", func(t *testing.T) {
		srv := fake.NewBedrock(t, fake.AWSKey{}, turn())
		p := cloud.New(cloud.Options{Platform: cloud.Bedrock, Region: "us-east-1", BaseURL: srv.URL, SkipAuth: true})
		checkTurn(t, p, srv, "us.anthropic.claude-haiku-4-5-20251001-v1:0")
	})
}

func TestVertex(t *testing.T) {
	srv := fake.NewVertex(t, "my-proj", "europe-west1", "ya29.fake", turn())
	p := cloud.New(cloud.Options{
		Platform: cloud.Vertex, Region: "us-east5", ProjectID: "my-proj", BaseURL: srv.URL,
		RegionFor: func(m string) string {
			if strings.HasPrefix(m, "claude-sonnet-4-5") {
				return "europe-west1"
			}
			return "us-east5"
		},
		TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "ya29.fake", TokenType: "Bearer"}),
	})
	req := checkTurn(t, p, srv, "claude-sonnet-4-5@20250929")
	if req.Path != "/v1/projects/my-proj/locations/europe-west1/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict" {
		t.Errorf("path %s", req.Path)
	}
	if req.JSON["anthropic_version"] != "vertex-2023-10-16" || req.JSON["model"] != nil {
		t.Errorf("body %s", req.Body)
	}
}

func TestVertexSkipAuth(t *testing.T) {
	srv := fake.NewVertex(t, "p", "global", "", turn())
	p := cloud.New(cloud.Options{Platform: cloud.Vertex, Region: "global", ProjectID: "p", BaseURL: srv.URL, SkipAuth: true})
	checkTurn(t, p, srv, "claude-haiku-4-5@20251001")
}

func TestMissingSetup(t *testing.T) {
	for _, tc := range []struct {
		opts cloud.Options
		want string
	}{
		{cloud.Options{Platform: cloud.Bedrock}, "AWS_REGION"},
		{cloud.Options{Platform: cloud.Vertex, ProjectID: "p"}, "CLOUD_ML_REGION"},
		{cloud.Options{Platform: cloud.Vertex, Region: "global"}, "ANTHROPIC_VERTEX_PROJECT_ID"},
	} {
		_, err := cloud.New(tc.opts).Stream(context.Background(), request("claude-sonnet-4-5"), func(providers.Event) {})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err %v, want it to name %s", tc.opts, err, tc.want)
		}
	}
}
