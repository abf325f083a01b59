package config

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/providers/retry"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestResolveCloud(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		sources []Source
		model   string // Resolved.Model
		region  string // Cloud.RegionFor(model)
		baseURL string
		err     string // a variable the error names
	}{
		{name: "bedrock default model", env: map[string]string{"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_REGION": "us-west-2", "ANTHROPIC_API_KEY": "ignored"},
			model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0", region: "us-west-2"},
		{name: "bedrock AWS_DEFAULT_REGION eu", env: map[string]string{"CLAUDE_CODE_USE_BEDROCK": "true", "AWS_DEFAULT_REGION": "eu-central-1", "ANTHROPIC_MODEL": "opus"},
			model: "eu.anthropic.claude-opus-4-5-20251101-v1:0", region: "eu-central-1"},
		{name: "bedrock inference profile ARN", env: map[string]string{"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_REGION": "us-east-1", "ANTHROPIC_MODEL": "arn:aws:bedrock:us-east-1:123:application-inference-profile/abc"},
			model: "arn:aws:bedrock:us-east-1:123:application-inference-profile/abc", region: "us-east-1"},
		{name: "bedrock base URL", env: map[string]string{"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_REGION": "us-east-1", "ANTHROPIC_BEDROCK_BASE_URL": "https://gw.example", "ANTHROPIC_BASE_URL": "https://not-this"},
			model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0", region: "us-east-1", baseURL: "https://gw.example"},
		{name: "bedrock picker model", env: map[string]string{"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_REGION": "ap-northeast-1"}, sources: []Source{{Name: "session/set_model", Model: "claude-haiku-4-5"}},
			model: "apac.anthropic.claude-haiku-4-5-20251001-v1:0", region: "ap-northeast-1"},
		{name: "bedrock no region", env: map[string]string{"CLAUDE_CODE_USE_BEDROCK": "1"}, err: "AWS_REGION"},
		{name: "vertex", env: map[string]string{"CLAUDE_CODE_USE_VERTEX": "1", "CLOUD_ML_REGION": "us-east5", "ANTHROPIC_VERTEX_PROJECT_ID": "p", "ANTHROPIC_DEFAULT_SONNET_MODEL": "claude-sonnet-4-5@20250929", "ANTHROPIC_MODEL": "sonnet"},
			model: "claude-sonnet-4-5@20250929", region: "us-east5"},
		{name: "vertex per-model region", env: map[string]string{"CLAUDE_CODE_USE_VERTEX": "1", "CLOUD_ML_REGION": "global", "ANTHROPIC_VERTEX_PROJECT_ID": "p", "VERTEX_REGION_CLAUDE_HAIKU_4_5": "us-east5", "ANTHROPIC_MODEL": "claude-haiku-4-5"},
			model: "claude-haiku-4-5@20251001", region: "us-east5"},
		{name: "vertex 4_5_SONNET region", env: map[string]string{"CLAUDE_CODE_USE_VERTEX": "1", "CLOUD_ML_REGION": "global", "ANTHROPIC_VERTEX_PROJECT_ID": "p", "VERTEX_REGION_CLAUDE_4_5_SONNET": "europe-west1", "VERTEX_REGION_CLAUDE_4_0_OPUS": "x"},
			model: "claude-sonnet-4-5@20250929", region: "europe-west1"},
		{name: "vertex base URL", env: map[string]string{"CLAUDE_CODE_USE_VERTEX": "1", "CLOUD_ML_REGION": "global", "ANTHROPIC_VERTEX_PROJECT_ID": "p", "ANTHROPIC_VERTEX_BASE_URL": "https://vgw"},
			model: "claude-sonnet-4-5@20250929", region: "global", baseURL: "https://vgw"},
		{name: "vertex no project", env: map[string]string{"CLAUDE_CODE_USE_VERTEX": "1", "CLOUD_ML_REGION": "global"}, err: "ANTHROPIC_VERTEX_PROJECT_ID"},
		{name: "vertex no region", env: map[string]string{"CLAUDE_CODE_USE_VERTEX": "1", "ANTHROPIC_VERTEX_PROJECT_ID": "p"}, err: "CLOUD_ML_REGION"},
		{name: "both", env: map[string]string{"CLAUDE_CODE_USE_VERTEX": "1", "CLAUDE_CODE_USE_BEDROCK": "1"}, err: "both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Resolver{Getenv: envOf(tc.env)}.Resolve(context.Background(), tc.sources...)
			if tc.err != "" {
				if !errors.Is(err, ErrCloudSetup) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want ErrCloudSetup naming %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Cloud == nil || r.Provider != ProviderAnthropic || r.Model != tc.model || r.BaseURL != tc.baseURL || r.APIKey != "" {
				t.Fatalf("got %+v", r)
			}
			if got := r.Cloud.RegionFor(r.Model); got != tc.region {
				t.Errorf("region %q, want %q", got, tc.region)
			}
			if !strings.HasPrefix(tc.model, "arn:") && (!r.Info.Known || r.Info.ContextWindow == 0) {
				t.Errorf("info %+v", r.Info)
			}
		})
	}
}

func TestResolveCloudOffByDefault(t *testing.T) {
	for _, v := range []string{"", "0", "false"} {
		r, err := Resolver{Getenv: envOf(map[string]string{"CLAUDE_CODE_USE_BEDROCK": v, "ANTHROPIC_API_KEY": "k"})}.Resolve(context.Background())
		if err != nil || r.Cloud != nil {
			t.Errorf("CLAUDE_CODE_USE_BEDROCK=%q: %+v, %v", v, r, err)
		}
	}
	// An explicit provider in a source wins over the switch.
	r, err := Resolver{Getenv: envOf(map[string]string{"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_REGION": "us-east-1"})}.Resolve(context.Background(), Source{Name: "settings", Provider: "ollama"})
	if err != nil || r.Cloud != nil || r.Provider != ProviderOpenAI {
		t.Errorf("%+v, %v", r, err)
	}
}

// TestPoolBedrock runs a turn from the environment's configuration to a
// fake Bedrock that verifies the SigV4 signature.
func TestPoolBedrock(t *testing.T) {
	key := fake.AWSKey{AccessKeyID: "AKIDPOOL", SecretAccessKey: "s3cret", Region: "us-east-2"}
	srv := fake.NewBedrock(t, key, fake.Turn{fake.Text("hi")})
	env := map[string]string{
		"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_REGION": "us-east-2", "ANTHROPIC_BEDROCK_BASE_URL": srv.URL,
		"AWS_ACCESS_KEY_ID": key.AccessKeyID, "AWS_SECRET_ACCESS_KEY": key.SecretAccessKey,
	}
	r, err := Resolver{Getenv: envOf(env)}.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&Pool{}).Provider(r).Stream(context.Background(), &providers.Request{
		Messages: []providers.Message{{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock("hi")}}},
	}, func(providers.Event) {})
	if err != nil || resp.Message.Text() != "hi" {
		t.Fatalf("%v, %v (server %v)", resp, err, srv.Errors())
	}
	if got := srv.Requests()[0].Path; got != "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream" {
		t.Errorf("path %s", got)
	}
}

// TestPoolVertexSkipAuth runs a turn through a Vertex AI gateway that
// authenticates itself: no Google credentials are looked for.
func TestPoolVertexSkipAuth(t *testing.T) {
	srv := fake.NewVertex(t, "proj-1", "us-east5", "", fake.Turn{fake.Text("hi")})
	env := map[string]string{
		"CLAUDE_CODE_USE_VERTEX": "1", "CLOUD_ML_REGION": "us-east5", "ANTHROPIC_VERTEX_PROJECT_ID": "proj-1",
		"ANTHROPIC_VERTEX_BASE_URL": srv.URL, "CLAUDE_CODE_SKIP_VERTEX_AUTH": "1",
	}
	r, err := Resolver{Getenv: envOf(env)}.Resolve(context.Background(), Source{Name: "session/set_model", Model: "claude-opus-4-1"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&Pool{}).Provider(r).Stream(context.Background(), &providers.Request{
		Messages: []providers.Message{{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock("hi")}}},
	}, func(providers.Event) {})
	if err != nil || resp.Message.Text() != "hi" {
		t.Fatalf("%v, %v (server %v)", resp, err, srv.Errors())
	}
	if got := srv.Requests()[0].Path; got != "/v1/projects/proj-1/locations/us-east5/publishers/anthropic/models/claude-opus-4-1@20250805:streamRawPredict" {
		t.Errorf("path %s", got)
	}
}

func TestModelAllowed(t *testing.T) {
	for _, tc := range []struct {
		avail []string
		model string
		want  bool
	}{
		{nil, "anything", true},
		{[]string{}, "claude-sonnet-4-5", false},
		{[]string{"sonnet"}, "claude-sonnet-4-5", true},
		{[]string{"sonnet"}, "us.anthropic.claude-sonnet-4-5-20250929-v1:0", true},
		{[]string{"sonnet"}, "claude-opus-4-5", false},
		{[]string{"claude-haiku-4-5"}, "claude-haiku-4-5-20251001", true},
		{[]string{"claude-haiku-4-5"}, "claude-haiku-4-5@20251001", true},
		{[]string{"claude-opus-4"}, "claude-opus-4-1", true},
		{[]string{"gpt-4.1"}, "gpt-4.1", true},
		{[]string{"gpt-4.1"}, "gpt-5", false},
	} {
		if got := ModelAllowed(tc.avail, tc.model); got != tc.want {
			t.Errorf("ModelAllowed(%q, %q) = %v", tc.avail, tc.model, got)
		}
	}
	if err := AllowModel([]string{"sonnet", "haiku"}, "claude-opus-4-5"); err == nil || !strings.Contains(err.Error(), "availableModels allow only sonnet, haiku") {
		t.Errorf("AllowModel error %v", err)
	}
}

// TestFallbackModel: an overloaded model, still overloaded after the
// retries, has the fallback model answer; the switch is announced.
func TestFallbackModel(t *testing.T) {
	overloaded := fake.Turn{fake.HTTPError{Status: 529, Type: "overloaded_error", Message: "Overloaded"}}
	for _, tc := range []struct {
		name     string
		turns    []fake.Turn
		fallback string
		models   []string // the models asked, in order
		err      bool
	}{
		{"overloaded", []fake.Turn{overloaded, overloaded, {fake.Text("hi")}}, "claude-haiku-4-5", []string{"claude-sonnet-4-5", "claude-sonnet-4-5", "claude-haiku-4-5"}, false},
		{"server error", []fake.Turn{{fake.HTTPError{Status: 500}}, {fake.HTTPError{Status: 500}}, {fake.Text("hi")}}, "claude-haiku-4-5", []string{"claude-sonnet-4-5", "claude-sonnet-4-5", "claude-haiku-4-5"}, false},
		{"no fallback", []fake.Turn{overloaded, overloaded}, "", []string{"claude-sonnet-4-5", "claude-sonnet-4-5"}, true},
		{"bad request not retried", []fake.Turn{{fake.HTTPError{Status: 400, Type: "invalid_request_error"}}}, "claude-haiku-4-5", []string{"claude-sonnet-4-5"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake.NewAnthropic(t, tc.turns...)
			r, err := Resolver{Getenv: envOf(map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.BaseURL()})}.Resolve(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			r.FallbackModel = tc.fallback
			pool := &Pool{Retry: retry.Policy{MaxAttempts: 2, Sleep: func(context.Context, time.Duration) error { return nil }}}
			var notices []string
			resp, err := pool.Provider(r).Stream(context.Background(), &providers.Request{
				Messages: []providers.Message{{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock("hi")}}},
			}, func(e providers.Event) {
				if e.Kind == providers.EventRetry {
					notices = append(notices, e.Retry.Reason)
				}
			})
			if (err != nil) != tc.err {
				t.Fatalf("err %v", err)
			}
			if err == nil && resp.Message.Text() != "hi" {
				t.Errorf("text %q", resp.Message.Text())
			}
			var models []string
			for _, q := range srv.Requests() {
				models = append(models, q.JSON["model"].(string))
			}
			if strings.Join(models, " ") != strings.Join(tc.models, " ") {
				t.Errorf("models asked %v, want %v", models, tc.models)
			}
			announced := len(notices) > 0 && strings.Contains(notices[len(notices)-1], "the fallback model claude-haiku-4-5 answers instead")
			if announced != !tc.err {
				t.Errorf("notices %q", notices)
			}
		})
	}
}
