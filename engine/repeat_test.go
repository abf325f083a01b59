package engine

import "testing"

func TestRepeatGuard(t *testing.T) {
	tests := []struct {
		calls     []string
		wantCount int
		wantCycle bool
	}{
		{calls: []string{"A"}, wantCount: 1},
		{calls: []string{"A", "A"}, wantCount: 2},
		{calls: []string{"A", "A", "A"}, wantCount: 3},
		{calls: []string{"A", "B", "A"}, wantCount: 2},
		{calls: []string{"A", "B", "A", "B"}, wantCount: 2, wantCycle: true},
		{calls: []string{"A", "A", "A", "A"}, wantCount: 4},
		{calls: []string{"A", "B", "C", "B"}, wantCount: 2},
	}
	for _, tt := range tests {
		var g repeatGuard
		var count int
		var cycle bool
		for _, c := range tt.calls {
			count, cycle = g.see(c)
		}
		if count != tt.wantCount || cycle != tt.wantCycle {
			t.Errorf("%v: count %d cycle %v, want %d %v", tt.calls, count, cycle, tt.wantCount, tt.wantCycle)
		}
	}
}
