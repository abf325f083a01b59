package pathres

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// MaxLinks bounds the symlinks followed resolving one path, as the
// kernel's ELOOP does.
const MaxLinks = 40

// ErrPseudo is wrapped by Resolve's error for a path that passes through
// /proc, /sys or /dev.
var ErrPseudo = errors.New("leads into /proc, /sys or /dev, which hold no files of a workspace")

// pseudoTrees are the kernel's file systems of things that are not
// files.
var pseudoTrees = []string{"/proc", "/sys", "/dev"}

// Resolve returns where p, absolute or relative to the absolute cwd,
// leads (see the package comment). The path it returns is absolute and
// clean; on an error it is "", or, with ErrPseudo, the path in /proc, /sys
// or /dev it reached, with the rest joined as written.
func Resolve(cwd, p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("resolving an empty path")
	}
	if !filepath.IsAbs(p) {
		if !filepath.IsAbs(cwd) {
			return "", fmt.Errorf("resolving %s: the folder it is relative to (%q) is not absolute", p, cwd)
		}
		p = cwd + "/" + p
	}
	cur := "/"
	rest := strings.Split(p, "/")
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		if IsPseudo(next) {
			return filepath.Join(append([]string{next}, rest...)...), &os.PathError{Op: "resolve", Path: p, Err: ErrPseudo}
		}
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
			// Missing: kept as written; what follows cannot exist
			// either, until a ".." climbs back out.
			cur = next
			continue
		case err != nil:
			return "", err
		case fi.Mode()&fs.ModeSymlink == 0:
			cur = next
			continue
		}
		if links++; links > MaxLinks {
			return "", &os.PathError{Op: "resolve", Path: p, Err: syscall.ELOOP}
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return cur, nil
}

// IsPseudo reports whether the absolute, clean path p lies in /proc,
// /sys or /dev.
func IsPseudo(p string) bool {
	for _, t := range pseudoTrees {
		if Within(t, p) {
			return true
		}
	}
	return false
}

// Within reports whether p is root or lies under it; both absolute and
// clean.
func Within(root, p string) bool {
	if p == root || root == "/" {
		return true
	}
	return strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/")
}

// ReadRegular reads path when it leads to a regular file of at most max
// bytes. Files a repository chooses (settings, .mcp.json, git's HEAD)
// may be links to /dev/zero or FIFOs: opening does not wait for a FIFO's
// writer, and reading stops past max. A missing file's error wraps
// fs.ErrNotExist; one that is not a regular file is a *NotRegularError,
// one larger than max a *TooLargeError.
func ReadRegular(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	if fi.Size() > max {
		return nil, &TooLargeError{Path: path, Size: fi.Size(), Max: max}
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, &TooLargeError{Path: path, Size: int64(len(data)), Max: max}
	}
	return data, nil
}
