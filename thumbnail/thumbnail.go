package thumbnail

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/gif"  // decodes GIF
	_ "image/jpeg" // decodes JPEG
	_ "image/png"  // decodes PNG
	"sync"

	_ "golang.org/x/image/webp" // decodes WebP
)

// MaxDecoded is the most memory an image's decoded pixels may take: an
// image that claims more is refused before its pixels are decoded. 100 MB
// holds a 5K screenshot (59 MB) and a 24-megapixel photo (36 MB at most);
// a 5 MB file of one colour can claim a billion pixels.
const MaxDecoded = 100 << 20

// decoding lets one image be decoded at a time, so that the sidecar's
// memory holds the pixels of one image at most, however many thumbnails
// an editor asks for at once.
var decoding sync.Mutex

// MaxCols and MaxRows bound the grid an editor may ask for.
const (
	MaxCols = 200
	MaxRows = 100
)

// samples is how many source pixels along each axis are averaged into one
// thumbnail pixel at most.
const samples = 4

// Thumbnail is an image scaled down to fit cols x rows cells of two pixels
// each (one above the other).
type Thumbnail struct {
	// Width and Height are the image's own size in pixels.
	Width, Height int
	// Pixels are the thumbnail's rows of pixels, two per cell row (so
	// len(Pixels) is even), each pixel "#rrggbb", or "" where the image
	// is mostly transparent.
	Pixels [][]string
}

// Of decodes data and scales it into at most cols x rows cells, keeping
// its proportions (a cell is about twice as tall as wide, so its two
// pixels are square).
func Of(data []byte, cols, rows int) (Thumbnail, error) {
	if cols < 1 || cols > MaxCols || rows < 1 || rows > MaxRows {
		return Thumbnail{}, fmt.Errorf("a thumbnail is 1 to %d columns and 1 to %d rows, not %d x %d", MaxCols, MaxRows, cols, rows)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return Thumbnail{}, decodeError(err)
	}
	if cfg.Width < 1 || cfg.Height < 1 {
		return Thumbnail{}, fmt.Errorf("the %s image is %d x %d pixels", format, cfg.Width, cfg.Height)
	}
	if bpp := bytesPerPixel(cfg.ColorModel); cfg.Width > MaxDecoded/bpp/cfg.Height {
		return Thumbnail{}, fmt.Errorf("the %s image is %d x %d pixels: decoded, it would take more than %d MB, so it is not shown", format, cfg.Width, cfg.Height, MaxDecoded>>20)
	}
	decoding.Lock()
	defer decoding.Unlock()
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return Thumbnail{}, fmt.Errorf("decoding the %s image: %w", format, err)
	}
	w, h := fit(cfg.Width, cfg.Height, cols, rows*2)
	if h%2 == 1 {
		h++ // whole cells; the last pixel row is the image's edge again
	}
	t := Thumbnail{Width: cfg.Width, Height: cfg.Height, Pixels: make([][]string, h)}
	b := img.Bounds()
	for y := range h {
		row := make([]string, w)
		y0, y1 := span(y, h, b.Min.Y, b.Dy())
		for x := range w {
			x0, x1 := span(x, w, b.Min.X, b.Dx())
			row[x] = average(img, x0, x1, y0, y1)
		}
		t.Pixels[y] = row
	}
	return t, nil
}

// bytesPerPixel is what one pixel of the colour model takes decoded, at
// most: 16-bit colour 8 bytes, 8-bit colour and a JPEG's YCbCr or CMYK 4,
// grey 1 or 2, a palette's index 1.
func bytesPerPixel(m color.Model) int {
	switch m {
	case color.RGBA64Model, color.NRGBA64Model:
		return 8
	case color.YCbCrModel, color.CMYKModel:
		return 4
	case color.Gray16Model:
		return 2
	case color.GrayModel, color.AlphaModel:
		return 1
	}
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	return 4
}

// decodeError says which types are shown when the data is none of them.
func decodeError(err error) error {
	if errors.Is(err, image.ErrFormat) {
		return errors.New("not a PNG, JPEG, GIF or WebP image")
	}
	return fmt.Errorf("reading the image: %w", err)
}

// fit returns the largest size of w x h's proportions within maxW x maxH,
// never larger than the image itself and at least one pixel.
func fit(w, h, maxW, maxH int) (int, int) {
	if w <= maxW && h <= maxH {
		return w, h
	}
	if w*maxH >= h*maxW { // wider than the box
		return maxW, max(1, h*maxW/w)
	}
	return max(1, w*maxH/h), maxH
}

// span is the source interval [from, to) that pixel i of n covers along an
// axis of size pixels starting at origin.
func span(i, n, origin, size int) (int, int) {
	from := origin + i*size/n
	to := origin + (i+1)*size/n
	if to <= from {
		to = from + 1
	}
	return from, to
}

// average is the colour of the source rectangle, from at most samples x
// samples of its pixels, alpha-weighted; "" when it is mostly transparent.
func average(img image.Image, x0, x1, y0, y1 int) string {
	var r, g, b, a, n uint64
	for _, y := range points(y0, y1) {
		for _, x := range points(x0, x1) {
			pr, pg, pb, pa := img.At(x, y).RGBA() // premultiplied, 16 bits
			r, g, b, a = r+uint64(pr), g+uint64(pg), b+uint64(pb), a+uint64(pa)
			n++
		}
	}
	if a*2 < n*0xffff {
		return ""
	}
	return fmt.Sprintf("#%02x%02x%02x", r*0xff/a, g*0xff/a, b*0xff/a)
}

// points spreads at most samples coordinates evenly over [from, to).
func points(from, to int) []int {
	n := min(to-from, samples)
	p := make([]int, n)
	for i := range p {
		p[i] = from + (2*i+1)*(to-from)/(2*n)
	}
	return p
}
