# Sourced by run-e2e.sh with E2E_MODE=screenshots: the workspace and the fake
# model's turns for the screenshots of the chat (screenshots.cjs). Expects
# $ws (the workspace) and $tmp (the run's temp dir); writes $tmp/turns.json.
# A small Go module with a bug: Average divides by 2.

cat > "$ws/go.mod" <<'EOF'
module calc

go 1.21
EOF
cat > "$ws/calc.go" <<'EOF'
package calc

// Total returns the sum of values.
func Total(values []float64) float64 {
	var sum float64
	for _, v := range values {
		sum += v
	}
	return sum
}

// Average returns the mean of values.
func Average(values []float64) float64 {
	return Total(values) / 2
}
EOF
cat > "$ws/calc_test.go" <<'EOF'
package calc

import "testing"

func TestAverage(t *testing.T) {
	if got := Average([]float64{1, 2, 3}); got != 2 {
		t.Fatalf("Average = %v, want 2", got)
	}
	if got := Average(nil); got != 0 {
		t.Fatalf("Average(nil) = %v, want 0", got)
	}
}
EOF

# What the rewind shot's Bash turn changes, removes and makes.
echo 'old value' > "$ws/data.txt"
echo 'keep me' > "$ws/notes.txt"

# Turn 0 streams and hangs (the streaming shot, then cancel); turns 1-4 are
# the main chat: read, edit (diff review), go test (Bash approval), answer;
# turns 5-6 a Bash turn the rewind shots undo; the last two the two chats'
# answers (the panel's, then the editor tab's).
cat > "$tmp/turns.json" <<JSON
[
  [{"text": ["calc.go ", "has two ", "functions. ", "\`Total\` adds ", "the values ", "in a loop; ", "\`Average\` ", "divides ", "that sum ", "by 2, ", "which is only ", "right for ", "two values", "…"]}, {"hang": true}],
  [{"text": ["I'll read ", "calc.go first."]},
   {"tool_use": {"id": "toolu_shot_read", "name": "Read", "input": {"file_path": "$ws/calc.go"}}}],
  [{"thinking": "Average divides by 2 instead of len(values), and an empty slice must not divide by zero.", "signature": "sig"},
   {"text": "\`Average\` divides by 2; it should divide by the number of values, and return 0 for none."},
   {"tool_use": {"id": "toolu_shot_edit", "name": "Edit", "input": {"file_path": "$ws/calc.go", "old_string": "\treturn Total(values) / 2\n", "new_string": "\tif len(values) == 0 {\n\t\treturn 0 // no values: no mean, and no division by zero either, so callers can pass nil safely\n\t}\n\treturn Total(values) / float64(len(values))\n"}}}],
  [{"text": "Now the tests."},
   {"tool_use": {"id": "toolu_shot_bash", "name": "Bash", "input": {"command": "go test ./...", "description": "Run the Go tests"}}}],
  [{"text": ["## Fixed\n\n", "\`Average\` now divides by the number of values:\n\n", "\`\`\`go\nfunc Average(values []float64) float64 {\n\tif len(values) == 0 {\n\t\treturn 0\n\t}\n\treturn Total(values) / float64(len(values))\n}\n\`\`\`\n\n", "- \`go test ./...\` passes.\n", "- An empty slice returns **0** instead of dividing by zero.\n"]}],
  [{"text": "Tidying."},
   {"tool_use": {"id": "toolu_shot_tidy", "name": "Bash", "input": {"command": "sed -i s/old/new/ data.txt && rm notes.txt && echo made > made.txt", "description": "Tidy the data files"}}}],
  [{"text": "Tidied the data files."}],
  [{"text": "\`Total\` adds the values in a loop and returns the sum; an empty slice gives 0."}],
  [{"text": ["Here is a test for an empty slice:\n\n", "\`\`\`go\nfunc TestAverageEmpty(t *testing.T) {\n\tif got := Average(nil); got != 0 {\n\t\tt.Fatalf(\"Average(nil) = %v, want 0\", got)\n\t}\n}\n\`\`\`\n"]}]
]
JSON
