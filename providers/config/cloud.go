package config

import (
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/agent-lsp/agent-lsp/providers/cloud"
)

// Platforms Claude is reached through besides Anthropic's own API.
const (
	PlatformBedrock = "bedrock"
	PlatformVertex  = "vertex"
)

// Cloud is how Claude is reached through Amazon Bedrock or Google Vertex
// AI, switched on as Claude Code does with CLAUDE_CODE_USE_BEDROCK or
// CLAUDE_CODE_USE_VERTEX.
type Cloud struct {
	// Platform is PlatformBedrock or PlatformVertex.
	Platform string
	// Region is the AWS region (AWS_REGION, AWS_DEFAULT_REGION) or the
	// Vertex AI region (CLOUD_ML_REGION).
	Region string
	// ModelRegions are Vertex regions for model families
	// (VERTEX_REGION_CLAUDE_*), by the model table's ID.
	ModelRegions map[string]string
	// ProjectID is the Google Cloud project (ANTHROPIC_VERTEX_PROJECT_ID).
	ProjectID string
	// SkipAuth sends requests unsigned, for a gateway that signs them
	// (CLAUDE_CODE_SKIP_BEDROCK_AUTH, CLAUDE_CODE_SKIP_VERTEX_AUTH).
	SkipAuth bool
	// Profile is the AWS shared-config profile (AWS_PROFILE).
	Profile string
	// BearerToken is a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK).
	BearerToken string
	// AccessKeyID, SecretAccessKey and SessionToken are AWS credentials
	// given as variables (AWS_ACCESS_KEY_ID, ...); else the AWS default
	// chain finds them.
	AccessKeyID, SecretAccessKey, SessionToken string
	// Aliases map "sonnet", "opus" and "haiku" to the models
	// ANTHROPIC_DEFAULT_SONNET_MODEL, ..._OPUS_MODEL and ..._HAIKU_MODEL
	// name.
	Aliases map[string]string
}

// key identifies the endpoint and credentials, for the Pool.
func (c *Cloud) key() string {
	if c == nil {
		return ""
	}
	return fmt.Sprintf("%+v", *c)
}

// Describe says where requests go, for doctor: "Amazon Bedrock (region
// us-east-1)".
func (c *Cloud) Describe() string {
	switch c.Platform {
	case PlatformBedrock:
		return "Amazon Bedrock (region " + c.Region + ")"
	case PlatformVertex:
		return "Google Vertex AI (project " + c.ProjectID + ", region " + c.Region + ")"
	}
	return c.Platform
}

// truthy is how Claude Code reads its switches.
func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// CloudEnv lists the variables that choose and configure Bedrock or
// Vertex AI. Project settings' env may not set them before the folder is
// trusted; they redirect the model like ANTHROPIC_BASE_URL does.
var CloudEnv = []string{
	"CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX",
	"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_BEARER_TOKEN_BEDROCK",
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"ANTHROPIC_BEDROCK_BASE_URL", "CLAUDE_CODE_SKIP_BEDROCK_AUTH",
	"CLOUD_ML_REGION", "ANTHROPIC_VERTEX_PROJECT_ID", "ANTHROPIC_VERTEX_BASE_URL",
	"CLAUDE_CODE_SKIP_VERTEX_AUTH",
}

// ErrCloudSetup is wrapped by the error of a Bedrock or Vertex AI
// configuration that lacks a region or project.
var ErrCloudSetup = fmt.Errorf("incomplete cloud provider configuration")

// resolveCloud reads the Bedrock or Vertex AI switches: nil when neither
// is on. The error names the variable missing.
func resolveCloud(getenv func(string) string) (*Cloud, string, error) {
	bedrock, vertex := truthy(getenv("CLAUDE_CODE_USE_BEDROCK")), truthy(getenv("CLAUDE_CODE_USE_VERTEX"))
	switch {
	case bedrock && vertex:
		return nil, "", fmt.Errorf("%w: CLAUDE_CODE_USE_BEDROCK and CLAUDE_CODE_USE_VERTEX are both set: set one", ErrCloudSetup)
	case bedrock:
		c := &Cloud{
			Platform:        PlatformBedrock,
			Region:          getenv("AWS_REGION"),
			SkipAuth:        truthy(getenv("CLAUDE_CODE_SKIP_BEDROCK_AUTH")),
			Profile:         getenv("AWS_PROFILE"),
			BearerToken:     getenv("AWS_BEARER_TOKEN_BEDROCK"),
			AccessKeyID:     getenv("AWS_ACCESS_KEY_ID"),
			SecretAccessKey: getenv("AWS_SECRET_ACCESS_KEY"),
			SessionToken:    getenv("AWS_SESSION_TOKEN"),
			Aliases:         aliases(getenv),
		}
		if c.Region == "" {
			c.Region = getenv("AWS_DEFAULT_REGION")
		}
		if c.Region == "" {
			return c, getenv("ANTHROPIC_BEDROCK_BASE_URL"), fmt.Errorf("%w: CLAUDE_CODE_USE_BEDROCK is set but the AWS region is not: set AWS_REGION (or AWS_DEFAULT_REGION), e.g. AWS_REGION=us-east-1", ErrCloudSetup)
		}
		return c, getenv("ANTHROPIC_BEDROCK_BASE_URL"), nil
	case vertex:
		c := &Cloud{
			Platform:  PlatformVertex,
			Region:    getenv("CLOUD_ML_REGION"),
			ProjectID: getenv("ANTHROPIC_VERTEX_PROJECT_ID"),
			SkipAuth:  truthy(getenv("CLAUDE_CODE_SKIP_VERTEX_AUTH")),
			Aliases:   aliases(getenv),
		}
		for _, m := range defaultTable.Models() {
			for _, name := range vertexRegionVars(m.ID) {
				if r := getenv(name); r != "" {
					if c.ModelRegions == nil {
						c.ModelRegions = map[string]string{}
					}
					c.ModelRegions[m.ID] = r
					break
				}
			}
		}
		var missing []string
		if c.ProjectID == "" {
			missing = append(missing, "ANTHROPIC_VERTEX_PROJECT_ID")
		}
		if c.Region == "" && len(c.ModelRegions) == 0 {
			missing = append(missing, "CLOUD_ML_REGION")
		}
		if len(missing) > 0 {
			return c, getenv("ANTHROPIC_VERTEX_BASE_URL"), fmt.Errorf("%w: CLAUDE_CODE_USE_VERTEX is set but %s not: set %s", ErrCloudSetup, strings.Join(missing, " and "), strings.Join(missing, " and "))
		}
		return c, getenv("ANTHROPIC_VERTEX_BASE_URL"), nil
	}
	return nil, "", nil
}

func aliases(getenv func(string) string) map[string]string {
	var m map[string]string
	for alias, name := range map[string]string{
		"sonnet": "ANTHROPIC_DEFAULT_SONNET_MODEL",
		"opus":   "ANTHROPIC_DEFAULT_OPUS_MODEL",
		"haiku":  "ANTHROPIC_DEFAULT_HAIKU_MODEL",
	} {
		if v := getenv(name); v != "" {
			if m == nil {
				m = map[string]string{}
			}
			m[alias] = v
		}
	}
	return m
}

// vertexRegionVars are the VERTEX_REGION_CLAUDE_* names Claude Code reads
// for a model family: claude-sonnet-4-5 is VERTEX_REGION_CLAUDE_4_5_SONNET
// (or ..._SONNET_4_5, as haiku 4.5 is named), claude-opus-4 is
// VERTEX_REGION_CLAUDE_4_0_OPUS, claude-3-5-haiku VERTEX_REGION_CLAUDE_3_5_HAIKU.
func vertexRegionVars(id string) []string {
	parts := strings.Split(strings.TrimPrefix(id, "claude-"), "-")
	if len(parts) < 2 || !strings.HasPrefix(id, "claude-") {
		return nil
	}
	if parts[0] >= "0" && parts[0] <= "9" {
		// claude-3-5-haiku: version first.
		return []string{"VERTEX_REGION_CLAUDE_" + strings.ToUpper(strings.Join(parts, "_"))}
	}
	family, version := strings.ToUpper(parts[0]), parts[1:]
	if len(version) == 1 {
		version = append(version, "0")
	}
	v := strings.Join(version, "_")
	return []string{"VERTEX_REGION_CLAUDE_" + v + "_" + family, "VERTEX_REGION_CLAUDE_" + family + "_" + v}
}

// defaultAliases are the models "sonnet", "opus" and "haiku" name when
// ANTHROPIC_DEFAULT_*_MODEL does not say.
var defaultAliases = map[string]string{
	"sonnet": DefaultAnthropicModel,
	"opus":   "claude-opus-4-5",
	"haiku":  "claude-haiku-4-5",
}

// dated are the release dates that Bedrock and Vertex AI model IDs carry.
var dated = map[string]string{
	"claude-opus-4-5":   "20251101",
	"claude-opus-4-1":   "20250805",
	"claude-opus-4":     "20250514",
	"claude-sonnet-4-5": "20250929",
	"claude-sonnet-4":   "20250514",
	"claude-3-7-sonnet": "20250219",
	"claude-haiku-4-5":  "20251001",
	"claude-3-5-haiku":  "20241022",
}

// bedrockPrefix is the cross-region inference profile prefix of a
// region, as Claude Code uses it: us-east-1 is "us", eu-west-1 "eu",
// ap-northeast-1 "apac".
func bedrockPrefix(region string) string {
	switch {
	case strings.HasPrefix(region, "us-gov-"):
		return "us-gov"
	case strings.HasPrefix(region, "us-"), strings.HasPrefix(region, "ca-"):
		return "us"
	case strings.HasPrefix(region, "eu-"):
		return "eu"
	case strings.HasPrefix(region, "ap-"):
		return "apac"
	}
	return "global"
}

// PlatformModel turns a model the user named (an alias, a first-party ID
// such as claude-sonnet-4-5 as the model picker lists them, or an ID of
// the platform) into the ID the platform serves: on Bedrock an inference
// profile such as us.anthropic.claude-sonnet-4-5-20250929-v1:0, on Vertex
// AI claude-sonnet-4-5@20250929. IDs already in the platform's form,
// inference profile ARNs and models it cannot place pass through.
func (c *Cloud) PlatformModel(model string) string {
	if c == nil {
		return model
	}
	if m, ok := c.Aliases[strings.ToLower(model)]; ok {
		model = m
	} else if m, ok := defaultAliases[strings.ToLower(model)]; ok {
		model = m
	}
	if !strings.HasPrefix(model, "claude-") || strings.Contains(model, "@") {
		return model // a Bedrock ID (anthropic.…, us.anthropic.…, arn:…) or Vertex's
	}
	base := strings.TrimSuffix(model, "[1m]")
	date, id := "", base
	if d, ok := dated[base]; ok {
		date = d
	} else {
		for k, d := range dated {
			if rest, ok := strings.CutPrefix(base, k+"-"); ok && len(rest) == 8 && rest == d {
				id, date = k, d
			}
		}
	}
	switch c.Platform {
	case PlatformBedrock:
		if date == "" {
			return bedrockPrefix(c.Region) + ".anthropic." + id + "-v1"
		}
		return bedrockPrefix(c.Region) + ".anthropic." + id + "-" + date + "-v1:0"
	case PlatformVertex:
		if date == "" {
			return id
		}
		return id + "@" + date
	}
	return model
}

// FirstPartyModel is the inverse of PlatformModel as far as the model
// table goes: the table's ID of a Bedrock or Vertex AI model ID, for its
// window and price.
func FirstPartyModel(model string) string {
	m := model
	if i := strings.Index(m, "@"); i >= 0 {
		m = m[:i] // claude-sonnet-4-5@20250929
	}
	if i := strings.Index(m, "anthropic."); i >= 0 {
		m = m[i+len("anthropic."):] // us.anthropic.claude-…-v1:0
		if j := strings.LastIndex(m, "-v"); j >= 0 {
			m = m[:j]
		}
	}
	return m
}

// RegionFor is the Vertex AI region of a model: its family's
// VERTEX_REGION_CLAUDE_* if set, else Region.
func (c *Cloud) RegionFor(model string) string {
	base := FirstPartyModel(c.PlatformModel(model))
	if i := strings.LastIndex(base, "-"); i >= 0 && len(base)-i-1 == 8 && strings.Trim(base[i+1:], "0123456789") == "" {
		base = base[:i] // claude-sonnet-4-5-20250929
	}
	if r, ok := c.ModelRegions[base]; ok {
		return r
	}
	return c.Region
}

// resolveCloudRest finishes a Bedrock or Vertex AI configuration: the
// model in the platform's form, the endpoint override, no API key (the
// platform's own credentials authenticate).
func (r Resolver) resolveCloudRest(res Resolved, cloudURL string, cloudErr error) (Resolved, error) {
	if res.Model == "" {
		res.Model = DefaultAnthropicModel
	}
	res.Model = res.Cloud.PlatformModel(res.Model)
	if res.BaseURL == "" {
		res.BaseURL = cloudURL
	}
	res.KeyFrom = res.Cloud.Platform
	res.Info = r.table().Lookup(FirstPartyModel(res.Model))
	if !res.Info.Known {
		res.Info = UnknownClaude
	}
	res.Info.ID, res.Info.Provider = res.Model, ProviderAnthropic
	return res, cloudErr
}

// newCloud is the provider of a Bedrock or Vertex AI configuration.
func newCloud(r Resolved, hc *http.Client) *cloud.Provider {
	c := r.Cloud
	opts := cloud.Options{
		Platform:        c.Platform,
		Region:          c.Region,
		ProjectID:       c.ProjectID,
		BaseURL:         r.BaseURL,
		SkipAuth:        c.SkipAuth,
		Model:           c.PlatformModel,
		Profile:         c.Profile,
		BearerToken:     c.BearerToken,
		AccessKeyID:     c.AccessKeyID,
		SecretAccessKey: c.SecretAccessKey,
		SessionToken:    c.SessionToken,
		HTTPClient:      hc,
	}
	if c.Platform == PlatformVertex {
		opts.RegionFor = c.RegionFor
	}
	return cloud.New(opts)
}

// EnvWith reads the variables of env (the settings' "env", which Claude
// Code applies to its own environment) before the process environment's.
func EnvWith(env map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
}

// Endpoint is the URL requests go to: the override, else the platform's
// regional endpoint.
func (c *Cloud) Endpoint(baseURL string) string {
	if baseURL != "" {
		return baseURL
	}
	switch c.Platform {
	case PlatformBedrock:
		return "https://bedrock-runtime." + c.Region + ".amazonaws.com"
	case PlatformVertex:
		switch c.Region {
		case "global", "":
			return "https://aiplatform.googleapis.com"
		case "us", "eu":
			return "https://aiplatform." + c.Region + ".rep.googleapis.com"
		}
		return "https://" + c.Region + "-aiplatform.googleapis.com"
	}
	return ""
}

// Credentials says where the platform's credentials come from, never
// the credentials themselves.
func (c *Cloud) Credentials() string {
	switch {
	case c.SkipAuth && c.Platform == PlatformBedrock:
		return "no credentials (CLAUDE_CODE_SKIP_BEDROCK_AUTH: the gateway signs)"
	case c.SkipAuth:
		return "no credentials (CLAUDE_CODE_SKIP_VERTEX_AUTH: the gateway authenticates)"
	case c.Platform == PlatformVertex:
		return "Google Application Default Credentials"
	case c.BearerToken != "":
		return "Bedrock API key from AWS_BEARER_TOKEN_BEDROCK"
	case c.AccessKeyID != "":
		return "AWS credentials from AWS_ACCESS_KEY_ID"
	case c.Profile != "":
		return "AWS credentials of profile " + c.Profile + " (AWS_PROFILE)"
	}
	return "AWS credentials from the default chain"
}
