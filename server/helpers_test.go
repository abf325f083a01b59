package server_test

import (
	"errors"

	"go.lsp.dev/jsonrpc2"
)

func hasCode(err error, code int) bool {
	var e *jsonrpc2.Error
	return errors.As(err, &e) && int(e.Code) == code
}
