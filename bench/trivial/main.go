// Command trivial is the baseline of the start-up benchmark: the least a
// Go program can do to answer a JSON-RPC request on stdio. It reads one
// message, framed with Content-Length (or, with -ndjson, one line), and
// answers it with an empty result in the same framing. Start-up figures
// of agent-lsp are measured side by side with this program's
// (internal/cmd/lspbench).
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

func main() {
	ndjson := len(os.Args) > 1 && os.Args[1] == "-ndjson"
	r := bufio.NewReader(os.Stdin)
	const answer = `{"jsonrpc":"2.0","id":1,"result":{}}`
	if ndjson {
		if _, err := r.ReadString('\n'); err != nil {
			os.Exit(1)
		}
		os.Stdout.WriteString(answer + "\n")
		return
	}
	length := 0
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			os.Exit(1)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if _, err := io.CopyN(io.Discard, r, int64(length)); err != nil {
		os.Exit(1)
	}
	fmt.Fprintf(os.Stdout, "Content-Length: %d\r\n\r\n%s", len(answer), answer)
}
