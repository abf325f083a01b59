package cloud

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/anthropics/anthropic-sdk-go/bedrock"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/providers/anthropic"
)

// Platforms.
const (
	Bedrock = "bedrock"
	Vertex  = "vertex"
)

// googleScope is the OAuth scope Vertex AI calls need.
const googleScope = "https://www.googleapis.com/auth/cloud-platform"

// Options configure a Provider.
type Options struct {
	// Platform is Bedrock or Vertex.
	Platform string
	// Region is the AWS or Vertex AI region.
	Region string
	// RegionFor, if set, gives a model's Vertex AI region (Claude Code's
	// VERTEX_REGION_CLAUDE_*); else Region serves every model.
	RegionFor func(model string) string
	// ProjectID is the Google Cloud project (Vertex AI).
	ProjectID string
	// BaseURL overrides the platform's endpoint (a gateway, or a test's
	// fake).
	BaseURL string
	// SkipAuth sends requests without credentials, for a gateway that
	// adds them.
	SkipAuth bool
	// Model maps the model a request names to the platform's ID (nil:
	// as is).
	Model func(string) string

	// Profile, BearerToken and the access keys are Bedrock's
	// credentials when given; else the AWS default chain finds them
	// (environment, shared config and credentials files, SSO, the
	// instance's role).
	Profile                                    string
	BearerToken                                string
	AccessKeyID, SecretAccessKey, SessionToken string

	// TokenSource gives Vertex AI's OAuth tokens; nil means Google's
	// Application Default Credentials.
	TokenSource oauth2.TokenSource

	// HTTPClient overrides the provider's own client.
	HTTPClient *http.Client
}

// Provider streams Messages API responses from Bedrock or Vertex AI. It is
// safe for concurrent use.
type Provider struct {
	opts Options

	mu      sync.Mutex                     // guards clients
	clients map[string]*anthropic.Provider // by region
}

// New returns a Provider. Credentials are looked up on the first call, so
// a configuration that never calls the model never reads them.
func New(opts Options) *Provider {
	return &Provider{opts: opts, clients: map[string]*anthropic.Provider{}}
}

// Stream sends req through the platform. Its errors are those of
// providers/anthropic, plus an authentication_error when the platform's
// credentials cannot be found.
func (p *Provider) Stream(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error) {
	r := *req
	if p.opts.Model != nil {
		r.Model = p.opts.Model(r.Model)
	}
	region := p.opts.Region
	if p.opts.RegionFor != nil {
		region = p.opts.RegionFor(r.Model)
	}
	c, err := p.client(ctx, region)
	if err != nil {
		return nil, &providers.Error{Type: "authentication_error", Message: err.Error()}
	}
	return c.Stream(ctx, &r, emit)
}

// client returns the SDK client of a region, made on first use. A
// failure is not kept: the next call looks for credentials again.
func (p *Provider) client(ctx context.Context, region string) (*anthropic.Provider, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.clients[region]; ok {
		return c, nil
	}
	var ro []option.RequestOption
	var err error
	switch p.opts.Platform {
	case Bedrock:
		ro, err = p.bedrock(ctx, region)
	case Vertex:
		ro, err = p.vertex(ctx, region)
	default:
		err = fmt.Errorf("unknown platform %q", p.opts.Platform)
	}
	if err != nil {
		return nil, err
	}
	c := anthropic.New(anthropic.Options{HTTPClient: p.opts.HTTPClient, ClientOptions: ro})
	p.clients[region] = c
	return c, nil
}

// bedrock is the SDK's Bedrock configuration for a region.
func (p *Provider) bedrock(ctx context.Context, region string) ([]option.RequestOption, error) {
	if region == "" {
		return nil, fmt.Errorf("amazon bedrock: no region: set AWS_REGION")
	}
	var cfg aws.Config
	switch {
	case p.opts.SkipAuth:
		// Signed with a placeholder, the signature then removed (see
		// unsigned): the SDK's middleware always signs.
		cfg = aws.Config{Region: region, Credentials: credentials.NewStaticCredentialsProvider("skip", "skip", "")}
	case p.opts.BearerToken != "":
		cfg = aws.Config{Region: region, AuthSchemePreference: []string{"httpBearerAuth"}, BearerAuthTokenProvider: bedrock.NewStaticBearerTokenProvider(p.opts.BearerToken)}
	default:
		lo := []func(*awsconfig.LoadOptions) error{awsconfig.WithRegion(region)}
		if p.opts.Profile != "" {
			lo = append(lo, awsconfig.WithSharedConfigProfile(p.opts.Profile))
		}
		if p.opts.AccessKeyID != "" {
			lo = append(lo, awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(p.opts.AccessKeyID, p.opts.SecretAccessKey, p.opts.SessionToken)))
		}
		var err error
		if cfg, err = awsconfig.LoadDefaultConfig(ctx, lo...); err != nil {
			return nil, fmt.Errorf("amazon bedrock: loading the AWS configuration: %w", err)
		}
		if cfg.Credentials == nil {
			return nil, fmt.Errorf("amazon bedrock: no AWS credentials found: set AWS_PROFILE, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK")
		}
	}
	ro := []option.RequestOption{bedrock.WithConfig(cfg)}
	if p.opts.BaseURL != "" {
		ro = append(ro, option.WithBaseURL(p.opts.BaseURL))
	}
	if p.opts.SkipAuth {
		ro = append(ro, option.WithMiddleware(unsigned))
	}
	return ro, nil
}

// unsigned removes the AWS signature: registered after the Bedrock
// middleware, it runs after the signing.
func unsigned(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	r.Header.Del("Authorization")
	for k := range r.Header {
		if strings.HasPrefix(strings.ToLower(k), "x-amz-") {
			r.Header.Del(k)
		}
	}
	return next(r)
}

// vertex is the Vertex AI configuration for a region (vertex.go).
func (p *Provider) vertex(ctx context.Context, region string) ([]option.RequestOption, error) {
	if region == "" {
		return nil, fmt.Errorf("google vertex ai: no region: set CLOUD_ML_REGION")
	}
	if p.opts.ProjectID == "" {
		return nil, fmt.Errorf("google vertex ai: no project: set ANTHROPIC_VERTEX_PROJECT_ID")
	}
	creds := &google.Credentials{ProjectID: p.opts.ProjectID, TokenSource: p.opts.TokenSource}
	switch {
	case p.opts.SkipAuth:
		creds.TokenSource = oauth2.StaticTokenSource(&oauth2.Token{})
	case creds.TokenSource == nil:
		c, err := google.FindDefaultCredentials(ctx, googleScope)
		if err != nil {
			return nil, fmt.Errorf("google vertex ai: no Google credentials: run `gcloud auth application-default login` or set GOOGLE_APPLICATION_CREDENTIALS: %w", err)
		}
		creds = c
	}
	ro := vertexOptions(region, p.opts.ProjectID, creds.TokenSource, p.opts.HTTPClient, p.opts.SkipAuth)
	if p.opts.BaseURL != "" {
		ro = append(ro, option.WithBaseURL(p.opts.BaseURL))
	}
	return ro, nil
}
