package engine

import (
	"fmt"
	"strings"
	"testing"
)

// TestSetModelRefusedByAllowModel: a model the settings' availableModels
// do not list is refused with the error AllowModel gives, and the session
// keeps its model.
func TestSetModelRefusedByAllowModel(t *testing.T) {
	h := newHarness(t, newScript(t), &recordingClient{t: t}, func(c *Config) {
		c.AllowModel = func(m string) error {
			if m == "allowed-model" {
				return nil
			}
			return fmt.Errorf("model %q is not available", m)
		}
	})
	before := h.sess.Model()
	if err := h.sess.SetModel("other-model"); err == nil || !strings.Contains(err.Error(), `"other-model" is not available`) {
		t.Fatalf("SetModel(other-model) = %v, want refused", err)
	}
	if got := h.sess.Model(); got != before {
		t.Errorf("model %q after a refused SetModel, want %q", got, before)
	}
	if err := h.sess.SetModel("allowed-model"); err != nil || h.sess.Model() != "allowed-model" {
		t.Errorf("SetModel(allowed-model) = %v, model %q", err, h.sess.Model())
	}
}
