package settings

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// valueIndex maps the path of every JSON value in a document
// ("permissions", "permissions.allow", "permissions.allow[2]") to the byte
// offset where the value starts.
type valueIndex map[string]int

// indexValues indexes data, which must be valid JSON.
func indexValues(data []byte) valueIndex {
	x := &indexer{dec: json.NewDecoder(bytes.NewReader(data)), data: data, idx: valueIndex{}}
	x.value("") // data is valid JSON: errors cannot happen, and a partial index is still useful
	return x.idx
}

type indexer struct {
	dec  *json.Decoder
	data []byte
	idx  valueIndex
}

// start returns the offset of the next token: the decoder's offset is the
// end of the previous token, before any separator.
func (x *indexer) start() int {
	off := int(x.dec.InputOffset())
	for off < len(x.data) {
		switch x.data[off] {
		case ' ', '\t', '\r', '\n', ':', ',':
			off++
			continue
		}
		break
	}
	return off
}

func (x *indexer) value(path string) error {
	off := x.start()
	tok, err := x.dec.Token()
	if err != nil {
		return err
	}
	x.idx[path] = off
	switch tok {
	case json.Delim('{'):
		for x.dec.More() {
			k, err := x.dec.Token()
			if err != nil {
				return err
			}
			key, _ := k.(string)
			child := key
			if path != "" {
				child = path + "." + key
			}
			if err := x.value(child); err != nil {
				return err
			}
		}
		_, err = x.dec.Token()
	case json.Delim('['):
		for i := 0; x.dec.More(); i++ {
			if err := x.value(path + "[" + strconv.Itoa(i) + "]"); err != nil {
				return err
			}
		}
		_, err = x.dec.Token()
	}
	return err
}

// lineCol converts a byte offset in data to a 1-based line and column; the
// column counts characters.
func lineCol(data []byte, off int) (line, col int) {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	col = utf8.RuneCount(before[lineStart:]) + 1
	return line, col
}
