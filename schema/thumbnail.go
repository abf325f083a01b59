package schema

// ThumbnailParams is the params of agent/thumbnail: an image the editor
// shows (a prompt's attachment, or one a loaded session replays), and the
// most character cells its thumbnail may take.
type ThumbnailParams struct {
	// Data is the image, base64-encoded, as in an image content block.
	Data     string `json:"data"`
	MIMEType string `json:"mimeType,omitempty"`
	Cols     int    `json:"cols"`
	Rows     int    `json:"rows"`
}

// ThumbnailResult is the result of agent/thumbnail: the image scaled to
// fit, as rows of pixels, two per cell row (a terminal editor draws each
// pair with one "▀" whose foreground is the upper pixel and background
// the lower one). A pixel is "#rrggbb", or "" where the image is mostly
// transparent.
type ThumbnailResult struct {
	Width  int        `json:"width"`
	Height int        `json:"height"`
	Pixels [][]string `json:"pixels"`
}
