package checkpoint

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// oid is a git object id (SHA-1).
type oid [sha1.Size]byte

func (o oid) String() string { return hex.EncodeToString(o[:]) }

func parseOID(s string) (oid, error) {
	var o oid
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(o) {
		return o, fmt.Errorf("%q is not an object id", s)
	}
	copy(o[:], b)
	return o, nil
}

// objects reads and writes the loose objects of a git directory.
type objects struct {
	dir string // <gitdir>/objects

	mu    sync.Mutex
	known map[oid]bool // objects known to exist; guarded by mu
}

func newObjects(gitDir string) *objects {
	return &objects{dir: filepath.Join(gitDir, "objects"), known: make(map[oid]bool)}
}

// zlibWriters are reused: a new writer allocates its window each time.
var zlibWriters = sync.Pool{New: func() any {
	zw, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	return zw
}}

// hashObject returns the id git gives an object of type typ holding data.
func hashObject(typ string, data []byte) oid {
	h := sha1.New()
	h.Write(objectHeader(typ, len(data)))
	h.Write(data)
	var o oid
	h.Sum(o[:0])
	return o
}

func objectHeader(typ string, n int) []byte {
	return append(strconv.AppendInt([]byte(typ+" "), int64(n), 10), 0)
}

func (s *objects) path(o oid) string {
	h := o.String()
	return filepath.Join(s.dir, h[:2], h[2:])
}

// write stores an object unless it exists, and returns its id.
func (s *objects) write(typ string, data []byte) (oid, error) {
	o := hashObject(typ, data)
	s.mu.Lock()
	known := s.known[o]
	s.mu.Unlock()
	if known {
		return o, nil
	}
	p := s.path(o)
	if _, err := os.Stat(p); err == nil {
		s.remember(o)
		return o, nil
	}
	var buf bytes.Buffer
	zw := zlibWriters.Get().(*zlib.Writer)
	zw.Reset(&buf)
	zw.Write(objectHeader(typ, len(data)))
	zw.Write(data)
	err := zw.Close()
	zlibWriters.Put(zw)
	if err != nil {
		return o, fmt.Errorf("compressing object %s: %w", o, err)
	}
	if err := writeFileAtomic(p, buf.Bytes(), 0o444); err != nil {
		return o, fmt.Errorf("writing object %s: %w", o, err)
	}
	s.remember(o)
	return o, nil
}

func (s *objects) remember(o oid) {
	s.mu.Lock()
	s.known[o] = true
	s.mu.Unlock()
}

// errMissing is the error of an object the store does not have.
var errMissing = errors.New("object missing from the checkpoint store")

// read returns an object's type and content.
func (s *objects) read(o oid) (typ string, data []byte, err error) {
	f, err := os.Open(s.path(o))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, fmt.Errorf("reading object %s: %w", o, errMissing)
	}
	if err != nil {
		return "", nil, fmt.Errorf("reading object %s: %w", o, err)
	}
	defer f.Close()
	zr, err := zlib.NewReader(f)
	if err != nil {
		return "", nil, fmt.Errorf("reading object %s: %w", o, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return "", nil, fmt.Errorf("reading object %s: %w", o, err)
	}
	sp := bytes.IndexByte(raw, ' ')
	nul := bytes.IndexByte(raw, 0)
	if sp < 0 || nul < sp {
		return "", nil, fmt.Errorf("reading object %s: bad header", o)
	}
	n, err := strconv.Atoi(string(raw[sp+1 : nul]))
	if err != nil || n != len(raw)-nul-1 {
		return "", nil, fmt.Errorf("reading object %s: bad size", o)
	}
	return string(raw[:sp]), raw[nul+1:], nil
}

// readType is read for an object that must be of type typ.
func (s *objects) readType(o oid, typ string) ([]byte, error) {
	t, data, err := s.read(o)
	if err != nil {
		return nil, err
	}
	if t != typ {
		return nil, fmt.Errorf("object %s is a %s, not a %s", o, t, typ)
	}
	return data, nil
}

// writeFileAtomic writes data to path through a temporary file in the
// same folder and a rename, creating the folder.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
