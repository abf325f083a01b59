package server_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/schema"
)

// TestThumbnailRequest: agent/thumbnail scales an image to the cells the
// editor offers, keeping its proportions, and answers bad input with an
// error naming the method and what was wrong; the connection keeps
// serving after each.
func TestThumbnailRequest(t *testing.T) {
	e := newEnv(t, nil)
	e.editor.Initialize(e.root, nil)

	// A 320 x 200 chart: a white page with one green bar on its right.
	img := image.NewRGBA(image.Rect(0, 0, 320, 200))
	for y := range 200 {
		for x := range 320 {
			c := color.RGBA{0xfa, 0xfa, 0xfa, 0xff}
			if x >= 240 && y >= 40 {
				c = color.RGBA{0x59, 0xa1, 0x4f, 0xff}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	chart := base64.StdEncoding.EncodeToString(buf.Bytes())

	var res schema.ThumbnailResult
	e.editor.MustCall(schema.MethodAgentThumbnail, schema.ThumbnailParams{Data: chart, MIMEType: "image/png", Cols: 32, Rows: 8}, &res)
	if res.Width != 320 || res.Height != 200 {
		t.Errorf("size %d x %d, want 320 x 200", res.Width, res.Height)
	}
	// 32 x 20 pixels (320:200 within 32 x 16 is 25.6 x 16: 25 x 16).
	if len(res.Pixels) != 16 || len(res.Pixels[0]) != 25 {
		t.Fatalf("thumbnail %d rows of %d pixels, want 16 of 25", len(res.Pixels), len(res.Pixels[0]))
	}
	if top, bar := res.Pixels[0][0], res.Pixels[15][24]; top != "#fafafa" || bar != "#59a14f" {
		t.Errorf("the page is %s and the bar %s, want #fafafa and #59a14f", top, bar)
	}

	bad := []struct {
		name   string
		params schema.ThumbnailParams
		want   string
	}{
		{"no data", schema.ThumbnailParams{Cols: 10, Rows: 4}, `"data"`},
		{"not base64", schema.ThumbnailParams{Data: "not base64!", Cols: 10, Rows: 4}, `field "data" is not base64`},
		{"not an image", schema.ThumbnailParams{Data: base64.StdEncoding.EncodeToString([]byte("%PDF-1.7")), Cols: 10, Rows: 4}, "not a PNG, JPEG, GIF or WebP image"},
		{"no cells", schema.ThumbnailParams{Data: chart, Cols: 0, Rows: 4}, "1 to 200 columns"},
		{"too large", schema.ThumbnailParams{Data: strings.Repeat("A", 8<<20), Cols: 10, Rows: 4}, "images of at most 5 MB"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			err := e.editor.Call(schema.MethodAgentThumbnail, tt.params, &res)
			if err == nil || !strings.Contains(err.Error(), schema.MethodAgentThumbnail) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one naming %s and %s", err, schema.MethodAgentThumbnail, tt.want)
			}
		})
	}
	// Still serving.
	e.editor.MustCall(schema.MethodAgentThumbnail, schema.ThumbnailParams{Data: chart, Cols: 4, Rows: 1}, &res)
	if len(res.Pixels) != 2 || len(res.Pixels[0]) != 3 {
		t.Errorf("a 4 x 1 thumbnail is %d rows of %d pixels, want 2 of 3", len(res.Pixels), len(res.Pixels[0]))
	}
}
