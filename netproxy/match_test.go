package netproxy

import "testing"

func TestMatchHost(t *testing.T) {
	tests := []struct {
		host, pattern string
		want          bool
	}{
		{"registry.npmjs.org", "registry.npmjs.org", true},
		{"Registry.NPMJS.org.", "registry.npmjs.org", true},
		{"registry.npmjs.org", "npmjs.org", false},
		{"evil-registry.npmjs.org", "registry.npmjs.org", false},
		{"api.example.com", "*.example.com", true},
		{"a.b.example.com", "*.example.com", true},
		{"example.com", "*.example.com", false},
		{"badexample.com", "*.example.com", false},
		{"example.com.evil.net", "*.example.com", false},
		{"anything.net", "*", true},
		{"10.0.0.1", "10.0.0.1", true},
		{"[::1]", "::1", true},
		{"0:0:0:0:0:0:0:1", "::1", true},
		{"", "*", false},
		{"a b.com", "*", false},
		{"x.com", "", false},
		{"x.com", "*.", false},
	}
	for _, tt := range tests {
		if got := MatchHost(tt.host, tt.pattern); got != tt.want {
			t.Errorf("MatchHost(%q, %q) = %v, want %v", tt.host, tt.pattern, got, tt.want)
		}
	}
}

func TestPolicyAllows(t *testing.T) {
	p := Policy{Allowed: []string{"registry.npmjs.org", "*.github.com"}, Denied: []string{"gist.github.com"}}
	tests := []struct {
		host string
		want bool
	}{
		{"registry.npmjs.org", true},
		{"api.github.com", true},
		{"gist.github.com", false},
		{"github.com", false},
		{"pypi.org", false},
	}
	for _, tt := range tests {
		if got := p.Allows(tt.host); got != tt.want {
			t.Errorf("Allows(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
	if (Policy{}).Grants() || (Policy{Allowed: []string{" "}}).Grants() || !p.Grants() {
		t.Error("Grants is wrong")
	}
	if everything := (Policy{Allowed: []string{"*"}, Denied: []string{"evil.test"}}); everything.Allows("evil.test") || !everything.Allows("good.test") {
		t.Error("deniedDomains does not beat \"*\"")
	}
}
