package fake

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// Optional parts of a wire.
type (
	// checker refuses a request whose authentication is wrong.
	checker interface {
		check(r *http.Request, body []byte) error
	}
	// pathStreamer says from the path whether a request streams (Bedrock
	// and Vertex AI name it there, not in the body).
	pathStreamer interface {
		streamed(path string) bool
	}
	// framer writes the stream in another framing than SSE.
	framer interface {
		contentType() string
		frame(w io.Writer, e event)
	}
)

// AWSKey is the AWS credential a fake Bedrock checks signatures with.
type AWSKey struct {
	AccessKeyID, SecretAccessKey, SessionToken string
	Region                                     string
	// Bearer, if set, is a Bedrock API key the requests must carry
	// instead of a signature.
	Bearer string
}

// NewBedrock starts a fake Amazon Bedrock runtime serving Claude: POST
// /model/<id>/invoke-with-response-stream (or /invoke). Each request must
// carry an AWS SigV4 signature of key for the bedrock service
// (Authorization: AWS4-HMAC-SHA256 Credential=<key>/<date>/<region>/bedrock/aws4_request,
// ...), which the server recomputes; or key.Bearer as a bearer token;
// with neither it wants
// no Authorization at all (a gateway signs). Streams are in Bedrock's
// event-stream framing: each Anthropic event is a "chunk" event whose
// payload is {"bytes": base64(event JSON)}. Configure the client's base
// URL with BaseURL.
func NewBedrock(t T, key AWSKey, turns ...Turn) *Server {
	return newServer(t, bedrockWire{key: key}, turns)
}

type bedrockWire struct {
	anthropicWire
	key AWSKey
}

var bedrockPath = regexp.MustCompile(`^/model/([^/]+)/(invoke|invoke-with-response-stream)$`)

func (bedrockWire) name() string { return "bedrock" }

func (bedrockWire) path(p string) bool { return bedrockPath.MatchString(p) }

func (bedrockWire) streamed(p string) bool {
	return strings.HasSuffix(p, "/invoke-with-response-stream")
}

func (bedrockWire) contentType() string { return "application/vnd.amazon.eventstream" }

func (bedrockWire) frame(w io.Writer, e event) {
	payload := mustJSON(map[string]string{"bytes": base64.StdEncoding.EncodeToString(e.data)})
	var h eventstream.Headers
	h.Set(":message-type", eventstream.StringValue("event"))
	h.Set(":event-type", eventstream.StringValue("chunk"))
	h.Set(":content-type", eventstream.StringValue("application/json"))
	_ = eventstream.NewEncoder().Encode(w, eventstream.Message{Headers: h, Payload: payload})
}

var sigV4 = regexp.MustCompile(`^AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/bedrock/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=[0-9a-f]{64}$`)

func (w bedrockWire) check(r *http.Request, body []byte) error {
	auth := r.Header.Get("Authorization")
	if w.key.Bearer != "" {
		if auth != "Bearer "+w.key.Bearer || r.Header.Get("X-Amz-Date") != "" {
			return fmt.Errorf("authorization %q, want the bearer token", auth)
		}
		return nil
	}
	if w.key.AccessKeyID == "" {
		if auth != "" || r.Header.Get("X-Amz-Date") != "" {
			return fmt.Errorf("want an unsigned request, got Authorization %q", auth)
		}
		return nil
	}
	m := sigV4.FindStringSubmatch(auth)
	if m == nil {
		return fmt.Errorf("authorization %q is not an AWS SigV4 signature for bedrock", auth)
	}
	if m[1] != w.key.AccessKeyID || m[3] != w.key.Region {
		return fmt.Errorf("signed by %s for region %s, want %s for %s", m[1], m[3], w.key.AccessKeyID, w.key.Region)
	}
	when, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return fmt.Errorf("x-amz-date: %v", err)
	}
	// Sign the same request again and compare.
	again, err := http.NewRequestWithContext(context.Background(), r.Method, "http://"+r.Host, bytes.NewReader(body))
	if err != nil {
		return err
	}
	again.URL.Path, again.URL.RawPath = r.URL.Path, r.URL.RawPath
	again.ContentLength = int64(len(body))
	for _, h := range strings.Split(m[4], ";") {
		if h != "host" && h != "content-length" {
			again.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	again.Header.Del("X-Amz-Date")
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: w.key.AccessKeyID, SecretAccessKey: w.key.SecretAccessKey, SessionToken: w.key.SessionToken}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, again, hex.EncodeToString(sum[:]), "bedrock", w.key.Region, when); err != nil {
		return err
	}
	if got := again.Header.Get("Authorization"); got != auth {
		return fmt.Errorf("signature does not verify:\n got  %s\n want %s", auth, got)
	}
	return nil
}

// NewVertex starts a fake Google Vertex AI endpoint serving Claude: POST
// /v1/projects/<project>/locations/<region>/publishers/anthropic/models/<id>:streamRawPredict
// (or :rawPredict), answering in the Anthropic API's SSE. Each request
// must carry "Authorization: Bearer <token>", or none when token is
// empty. Configure the client's base URL with BaseURL.
func NewVertex(t T, project, region, token string, turns ...Turn) *Server {
	return newServer(t, vertexWire{prefix: "/v1/projects/" + url.PathEscape(project) + "/locations/" + region + "/publishers/anthropic/models/", token: token}, turns)
}

type vertexWire struct {
	anthropicWire
	prefix, token string
}

func (vertexWire) name() string { return "vertex" }

func (w vertexWire) path(p string) bool {
	id, ok := strings.CutPrefix(p, w.prefix)
	return ok && (strings.HasSuffix(id, ":streamRawPredict") || strings.HasSuffix(id, ":rawPredict")) && !strings.Contains(id, "/")
}

func (vertexWire) streamed(p string) bool { return strings.HasSuffix(p, ":streamRawPredict") }

func (w vertexWire) check(r *http.Request, _ []byte) error {
	want := ""
	if w.token != "" {
		want = "Bearer " + w.token
	}
	if got := r.Header.Get("Authorization"); got != want {
		return fmt.Errorf("authorization %q, want %q", got, want)
	}
	return nil
}
