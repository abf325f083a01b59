package cloud

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/anthropics/anthropic-sdk-go/option"
	"golang.org/x/oauth2"
)

// vertexVersion is the anthropic_version Vertex AI's Claude endpoints
// take in the body.
const vertexVersion = "vertex-2023-10-16"

// vertexOptions are the request options of a Vertex AI client: the
// region's endpoint, the Messages API rewritten to Vertex AI's
// publisher-model paths, and OAuth authorization from ts (none when
// skipAuth). They do what the SDK's vertex package does, without it: that
// package builds its HTTP client with google.golang.org/api/transport,
// which links gRPC and doubles the binary, its memory and its start-up
// (docs/benchmarks.md).
func vertexOptions(region, projectID string, ts oauth2.TokenSource, base *http.Client, skipAuth bool) []option.RequestOption {
	hc := base
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	if !skipAuth {
		rt := hc.Transport
		if rt == nil {
			rt = http.DefaultTransport
		}
		authed := *hc
		authed.Transport = &oauth2.Transport{Base: rt, Source: ts}
		hc = &authed
	}
	return []option.RequestOption{
		// First-party credentials (ANTHROPIC_API_KEY and the like) never
		// go to Vertex AI.
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(vertexBaseURL(region)),
		option.WithMiddleware(vertexMiddleware(region, projectID)),
		option.WithHTTPClient(hc),
	}
}

// vertexBaseURL is the Vertex AI endpoint of region.
func vertexBaseURL(region string) string {
	switch region {
	case "global":
		return "https://aiplatform.googleapis.com/"
	case "us":
		return "https://aiplatform.us.rep.googleapis.com/"
	case "eu":
		return "https://aiplatform.eu.rep.googleapis.com/"
	}
	return fmt.Sprintf("https://%s-aiplatform.googleapis.com/", region)
}

// vertexMiddleware rewrites a Messages API request for Vertex AI: the
// model moves from the body to the path (rawPredict, or streamRawPredict
// for a stream) and the body names Vertex AI's anthropic_version.
func vertexMiddleware(region, projectID string) option.Middleware {
	return func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		if r.Body == nil || r.Method != http.MethodPost {
			return next(r)
		}
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("google vertex ai: reading the request: %w", err)
		}
		var fields map[string]json.RawMessage
		if json.Unmarshal(body, &fields) == nil && fields != nil {
			if _, ok := fields["anthropic_version"]; !ok {
				fields["anthropic_version"], _ = json.Marshal(vertexVersion)
			}
			switch r.URL.Path {
			case "/v1/messages":
				var model string
				var stream bool
				json.Unmarshal(fields["model"], &model)
				json.Unmarshal(fields["stream"], &stream)
				delete(fields, "model")
				specifier := "rawPredict"
				if stream {
					specifier = "streamRawPredict"
				}
				r.URL.Path = fmt.Sprintf("/v1/projects/%s/locations/%s/publishers/anthropic/models/%s:%s", projectID, region, model, specifier)
			case "/v1/messages/count_tokens":
				r.URL.Path = fmt.Sprintf("/v1/projects/%s/locations/%s/publishers/anthropic/models/count-tokens:rawPredict", projectID, region)
			}
			if b, err := json.Marshal(fields); err == nil {
				body = b
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		r.ContentLength = int64(len(body))
		return next(r)
	}
}
