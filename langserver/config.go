package langserver

import (
	"os/exec"
	"path/filepath"
	"strings"
)

// ServerConfig says how to start one language server.
type ServerConfig struct {
	// Name is the configuration's key ("go", "python").
	Name string
	// Command is the program and its arguments.
	Command []string
	// Filetypes are the file name extensions it serves, without the dot
	// ("go", "py").
	Filetypes []string
	// InitializationOptions are passed as is in initialize.
	InitializationOptions any
}

// Serves reports whether the server handles path, by its extension.
func (c ServerConfig) Serves(path string) bool {
	ext := strings.TrimPrefix(filepath.Ext(path), ".")
	if ext == "" {
		return false
	}
	for _, ft := range c.Filetypes {
		if strings.EqualFold(strings.TrimPrefix(ft, "."), ext) {
			return true
		}
	}
	return false
}

// known are the servers Detect looks for, in order.
var known = []ServerConfig{
	{Name: "go", Command: []string{"gopls"}, Filetypes: []string{"go"}},
	{Name: "python", Command: []string{"pyright-langserver", "--stdio"}, Filetypes: []string{"py", "pyi"}},
	{Name: "typescript", Command: []string{"typescript-language-server", "--stdio"}, Filetypes: []string{"ts", "tsx", "js", "jsx", "mjs", "cjs", "mts", "cts"}},
	{Name: "rust", Command: []string{"rust-analyzer"}, Filetypes: []string{"rs"}},
	{Name: "c", Command: []string{"clangd"}, Filetypes: []string{"c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx"}},
}

// Detect returns the known servers whose program lookPath finds (nil
// means exec.LookPath), with the program's full path. It only looks at
// PATH: nothing is started.
func Detect(lookPath func(string) (string, error)) []ServerConfig {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	var out []ServerConfig
	for _, c := range known {
		p, err := lookPath(c.Command[0])
		if err != nil {
			continue
		}
		c.Command = append([]string{p}, c.Command[1:]...)
		out = append(out, c)
	}
	return out
}

// Known returns the configuration Detect would use for name, before any
// PATH lookup, and whether there is one: a settings entry may give only
// a command or only filetypes.
func Known(name string) (ServerConfig, bool) {
	for _, c := range known {
		if c.Name == name {
			return c, true
		}
	}
	return ServerConfig{}, false
}

// languageID returns the LSP language identifier of path.
func languageID(path string) string {
	switch ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), ".")); ext {
	case "go":
		return "go"
	case "py", "pyi":
		return "python"
	case "ts", "mts", "cts":
		return "typescript"
	case "tsx":
		return "typescriptreact"
	case "js", "mjs", "cjs":
		return "javascript"
	case "jsx":
		return "javascriptreact"
	case "rs":
		return "rust"
	case "c", "h":
		return "c"
	case "cc", "cpp", "cxx", "hpp", "hh", "hxx":
		return "cpp"
	default:
		return ext
	}
}
