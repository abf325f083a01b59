package server_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
)

// onePixelPNG is a 1x1 PNG.
const onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

// TestPromptImages: an image in a prompt reaches the model as an image
// block, is kept in the session file and comes back when the session is
// loaded; an image the model cannot take is refused, saying why.
func TestPromptImages(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	store := session.NewStore(t.TempDir(), "-")
	withStore := func(cfg *engine.Config) { cfg.Store = store }
	raw, model := startACP(t, root, withStore, fake.Turn{fake.Text("A red pixel.")})
	first := connectACP(t, raw, root, model)
	first.initialize(false)
	sid := first.newSession().SessionID
	prompt := func(blocks ...schema.ContentBlock) error {
		return first.call("session/prompt", schema.PromptParams{SessionID: sid, Prompt: blocks}, nil)
	}
	bmp := schema.ContentBlock{Type: schema.BlockImage, MimeType: "image/bmp", Data: onePixelPNG}
	wantCode(t, prompt(schema.TextBlock("what is this?"), bmp), 0, "image/bmp")
	garbled := schema.ContentBlock{Type: schema.BlockImage, MimeType: "image/png", Data: "not base64!"}
	wantCode(t, prompt(schema.TextBlock("what is this?"), garbled), 0, "not base64")
	if err := prompt(schema.TextBlock("what is this?"), schema.ContentBlock{Type: schema.BlockImage, MimeType: "image/png", Data: onePixelPNG}); err != nil {
		t.Fatal(err)
	}
	if body := string(model.Requests()[0].Body); !strings.Contains(body, `"media_type":"image/png"`) || !strings.Contains(body, onePixelPNG) {
		t.Errorf("the model request lacks the image: %s", body)
	}
	first.mustCall("session/close", schema.SessionIDParams{SessionID: sid}, nil)

	raw2, model2 := startACP(t, root, withStore)
	second := connectACP(t, raw2, root, model2)
	second.initialize(false)
	second.mustCall("session/load", schema.LoadSessionParams{SessionID: sid, Cwd: root, MCPServers: []schema.MCPServer{}}, nil)
	var images int
	for _, u := range second.updates(sid) {
		if u.SessionUpdate == schema.UpdateUserMessageChunk && u.Content != nil && u.Content.Type == schema.BlockImage {
			images++
			if u.Content.MimeType != "image/png" || u.Content.Data != onePixelPNG {
				t.Errorf("the replayed image: %+v", u.Content)
			}
		}
	}
	if images != 1 {
		t.Errorf("session/load replayed %d images, want 1", images)
	}
}
