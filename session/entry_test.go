package session

import (
	stdjson "encoding/json"
	"testing"
)

func TestUnquote(t *testing.T) {
	for _, s := range []string{
		``, `plain`, `a\nb\tc`, `quote \" and \\ and \/`, `\b\f\r`, `\u00e9\u4e2d`, `\ud83d\ude00 emoji`,
		`lone \ud83d surrogate`, `lone low \ude00`, `\ud83d\u0041 bad pair`, `end \ud83d`, `\\u0041 not an escape`,
	} {
		lit := []byte(`"` + s + `"`)
		var want string
		if err := stdjson.Unmarshal(lit, &want); err != nil {
			t.Fatalf("%s: %v", lit, err)
		}
		if got := unquote(lit); got != want {
			t.Errorf("unquote(%s) = %q, want %q", lit, got, want)
		}
	}
}
