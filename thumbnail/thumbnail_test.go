package thumbnail

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
)

// encode returns img in one of the formats the package decodes.
func encode(t *testing.T, format string, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&b, img)
	case "jpeg":
		err = jpeg.Encode(&b, img, &jpeg.Options{Quality: 100})
	case "gif":
		err = gif.Encode(&b, img, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// halves is a w x h image, red on its left half and blue on its right.
func halves(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{R: 255, A: 255}
			if x >= w/2 {
				c = color.RGBA{B: 255, A: 255}
			}
			img.Set(x, y, c)
		}
	}
	return img
}

func TestOf(t *testing.T) {
	tests := []struct {
		name               string
		data               []byte
		cols, rows         int
		wantW, wantH       int // the thumbnail's pixels
		wantLeft, wantRght string
	}{
		{"small png kept at its size", encode(t, "png", halves(4, 2)), 40, 10, 4, 2, "#ff0000", "#0000ff"},
		{"wide png fits the columns", encode(t, "png", halves(400, 100)), 40, 10, 40, 10, "#ff0000", "#0000ff"},
		{"tall png fits the rows", encode(t, "png", halves(100, 400)), 40, 10, 5, 20, "#ff0000", "#0000ff"},
		{"odd pixel rows rounded up to whole cells", encode(t, "png", halves(6, 3)), 40, 10, 6, 4, "#ff0000", "#0000ff"},
		{"gif", encode(t, "gif", halves(64, 32)), 16, 8, 16, 8, "#ff0000", "#0000ff"},
		{"jpeg", encode(t, "jpeg", halves(64, 32)), 16, 8, 16, 8, "", ""}, // lossy: checked below
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th, err := Of(tt.data, tt.cols, tt.rows)
			if err != nil {
				t.Fatal(err)
			}
			if len(th.Pixels) != tt.wantH || len(th.Pixels[0]) != tt.wantW {
				t.Fatalf("thumbnail is %d x %d, want %d x %d", len(th.Pixels[0]), len(th.Pixels), tt.wantW, tt.wantH)
			}
			if len(th.Pixels)%2 != 0 || len(th.Pixels)/2 > tt.rows || len(th.Pixels[0]) > tt.cols {
				t.Fatalf("%d pixel rows do not make whole cells within %d x %d", len(th.Pixels), tt.cols, tt.rows)
			}
			left, right := th.Pixels[0][0], th.Pixels[len(th.Pixels)-1][tt.wantW-1]
			if tt.wantLeft == "" {
				if !reddish(left) || !bluish(right) {
					t.Fatalf("corners %s and %s, want red and blue", left, right)
				}
				return
			}
			if left != tt.wantLeft || right != tt.wantRght {
				t.Errorf("corners %s and %s, want %s and %s", left, right, tt.wantLeft, tt.wantRght)
			}
		})
	}
}

func reddish(c string) bool { return strings.HasPrefix(c, "#f") && c[3] < '3' && c[5] < '3' }
func bluish(c string) bool  { return c[1] < '3' && c[3] < '3' && strings.HasPrefix(c[5:], "f") }

// gopherWebP is a lossless WebP from golang.org/x/image's test data
// (testdata/gopher-doc.1bpp.lossless.webp), base64 so the repository
// tracks no binary file.
const gopherWebP = "" +
	"UklGRrIBAABXRUJQVlA4TKUBAAAvSsAYAA8w//M///MfeJAkbXvaSG7m8Q3GfYSBJekwQztm/IcZ" +
	"lgwnmWImn2BK7aFmBtnVir6q//8VOkFE/xm4baTIu8c48ArEo6+B3zFKYln3pqClSCKX0begFTAX" +
	"FOLXHSyF8cCNcZEG4OywuA4KVVfJCiArU7GAgJI8+lJP/OKMT/fBAjevg1cYB7YVkFuWga2lyPi5" +
	"I0HFy5YTpWIHg0RZpkniRVW9odHAKOwosWuOGdxIyn2OvaCDvhg/we6TwadPBPbqBV58MsLmMJ8y" +
	"ZnOWk8SRz4N+QoyPL+MnamzMvcE1rHNEr91F9GKZPVUcS9w7PhhH36suB9qPeYb/oLk6cuTiJ0wO" +
	"K3m5h1cKjW6EVZCYMK7dxcKCBdgP9HkKr9gkAO2P8GKZGWVdIAatQa+1IDpt6qyorVwdy01xdW8J" +
	"kfk6xjEXmVQQ+HQdFr6OKhIN34dXWq0+0qr6EJSCeeVLH9+gvGTLyqM65PQ44ihzlTXxQKjKbAvs" +
	"hXgir7Lil9w4L2bvMycmjQcqXaMCO6BlY28i+FOLzbfI1vEqxAhotocAAA=="

// TestOfWebP decodes a lossless WebP.
func TestOfWebP(t *testing.T) {
	data, err := base64.StdEncoding.DecodeString(gopherWebP)
	if err != nil {
		t.Fatal(err)
	}
	th, err := Of(data, 20, 10)
	if err != nil {
		t.Fatal(err)
	}
	if th.Width == 0 || len(th.Pixels) == 0 || len(th.Pixels[0]) > 20 || len(th.Pixels) > 20 {
		t.Fatalf("thumbnail of the %d x %d WebP is %d rows", th.Width, th.Height, len(th.Pixels))
	}
}

// TestOfTransparent: mostly transparent pixels are "", for the editor's
// own background; half-covered ones keep their colour unmixed with black.
func TestOfTransparent(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.NRGBA{R: 255, A: 255})
	img.Set(1, 0, color.NRGBA{G: 255, A: 10})
	img.Set(0, 1, color.NRGBA{B: 255, A: 200})
	th, err := Of(encode(t, "png", img), 10, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := th.Pixels[0][0]; got != "#ff0000" {
		t.Errorf("opaque pixel %q", got)
	}
	if got := th.Pixels[0][1]; got != "" {
		t.Errorf("nearly transparent pixel %q, want \"\"", got)
	}
	if got := th.Pixels[1][0]; got != "#0000ff" {
		t.Errorf("translucent blue %q, want #0000ff (not darkened)", got)
	}
}

// pngHeader is the start of a PNG that claims w x h RGBA pixels of depth
// bits per channel: enough for DecodeConfig, nothing for the pixels.
func pngHeader(w, h uint32, depth byte) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = depth, 6 // RGBA
	chunk := append([]byte("IHDR"), ihdr...)
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

func TestOfRefuses(t *testing.T) {
	tests := []struct {
		name       string
		data       []byte
		cols, rows int
		want       string
	}{
		{"a bomb's claimed size", pngHeader(100_000, 100_000, 8), 40, 10, "100000 x 100000 pixels: decoded, it would take more than 100 MB"},
		{"30 megapixels of 8-bit colour", pngHeader(6000, 5000, 8), 40, 10, "more than 100 MB"},
		{"16 megapixels of 16-bit colour", pngHeader(4000, 4000, 16), 40, 10, "more than 100 MB"},
		// Within the bound: the size passes, the missing pixels do not.
		{"16 megapixels of 8-bit colour", pngHeader(4000, 4000, 8), 40, 10, "decoding the png image"},
		{"text", []byte("hello, not an image"), 40, 10, "not a PNG, JPEG, GIF or WebP image"},
		{"a truncated png", encode(t, "png", halves(64, 64))[:80], 40, 10, "decoding the png image"},
		{"no columns", encode(t, "png", halves(4, 4)), 0, 10, "1 to 200 columns"},
		{"too many rows", encode(t, "png", halves(4, 4)), 40, 1000, "not 40 x 1000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Of(tt.data, tt.cols, tt.rows)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// BenchmarkOfPhoto: a 4000 x 3000 photo into 40 x 12 cells; the cost is
// decoding it, since sampling reads at most 16 pixels per thumbnail pixel.
func BenchmarkOfPhoto(b *testing.B) {
	img := image.NewRGBA(image.Rect(0, 0, 4000, 3000))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Of(buf.Bytes(), 40, 12); err != nil {
			b.Fatal(err)
		}
	}
}
