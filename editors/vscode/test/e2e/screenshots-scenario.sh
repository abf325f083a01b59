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
# Where the many-files shot's twelve files go.
mkdir -p "$ws/data"

# Turn 0 streams and hangs (the streaming shot, then cancel); turns 1-4 are
# the main chat: read, edit (diff review), go test (Bash approval), answer;
# turns 5-6 a Bash turn the rewind shots undo. A second chat then plays
# turns 7-21: a plan approved into acceptEdits (7-9: the plan, a file
# written without asking, the answer), twelve files in one turn (10-11),
# an edit the user rejects (12-14: the file read first, as Edit needs), a
# command that fails (15-16), one that prints 300 lines (17-18), a question
# (19-20), an API error (21) and the answer to a prompt with an @ mention
# and a pasted image (22); the last two are the two chats'
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
   {"tool_use": {"id": "toolu_shot_bash", "name": "Bash", "input": {"command": "go test ./...", "description": "Run the Go tests", "timeout": 600000}}}],
  [{"text": ["## Fixed\n\n", "\`Average\` now divides by the number of values:\n\n", "\`\`\`go\nfunc Average(values []float64) float64 {\n\tif len(values) == 0 {\n\t\treturn 0\n\t}\n\treturn Total(values) / float64(len(values))\n}\n\`\`\`\n\n", "- \`go test ./...\` passes.\n", "- An empty slice returns **0** instead of dividing by zero.\n"]}],
  [{"text": "Tidying."},
   {"tool_use": {"id": "toolu_shot_tidy", "name": "Bash", "input": {"command": "sed -i s/old/new/ data.txt && rm notes.txt && echo made > made.txt", "description": "Tidy the data files"}}}],
  [{"text": "Tidied the data files."}],
  [{"text": "Here is the plan."},
   {"tool_use": {"id": "toolu_shot_plan", "name": "ExitPlanMode", "input": {"plan": "## Median\\n\\n1. Add \`Median(values []float64) float64\` in median.go: sort a copy and take the middle value (the mean of the two middle ones for an even count), 0 for none.\\n2. Test odd, even and empty slices.\\n3. Run \`go test ./...\`."}}}],
  [{"text": "Adding \`Median\`."},
   {"tool_use": {"id": "toolu_shot_median", "name": "Write", "input": {"file_path": "$ws/median.go", "content": "package calc\\n\\nimport \\"sort\\"\\n\\n// Median returns the middle value of values (0 for none).\\nfunc Median(values []float64) float64 {\\n\\tif len(values) == 0 {\\n\\t\\treturn 0\\n\\t}\\n\\ts := append([]float64(nil), values...)\\n\\tsort.Float64s(s)\\n\\tm := len(s) / 2\\n\\tif len(s)%2 == 0 {\\n\\t\\treturn (s[m-1] + s[m]) / 2\\n\\t}\\n\\treturn s[m]\\n}\\n"}}}],
  [{"text": "Added \`Median\` in median.go, as planned."}],
  [{"text": "One file per month."},
   {"tool_use": {"id": "toolu_shot_wjan", "name": "Write", "input": {"file_path": "$ws/data/jan.csv", "content": "day,value\\n1,1\\n"}}},
   {"tool_use": {"id": "toolu_shot_wfeb", "name": "Write", "input": {"file_path": "$ws/data/feb.csv", "content": "day,value\\n1,2\\n"}}},
   {"tool_use": {"id": "toolu_shot_wmar", "name": "Write", "input": {"file_path": "$ws/data/mar.csv", "content": "day,value\\n1,3\\n"}}},
   {"tool_use": {"id": "toolu_shot_wapr", "name": "Write", "input": {"file_path": "$ws/data/apr.csv", "content": "day,value\\n1,4\\n"}}},
   {"tool_use": {"id": "toolu_shot_wmay", "name": "Write", "input": {"file_path": "$ws/data/may.csv", "content": "day,value\\n1,5\\n"}}},
   {"tool_use": {"id": "toolu_shot_wjun", "name": "Write", "input": {"file_path": "$ws/data/jun.csv", "content": "day,value\\n1,6\\n"}}},
   {"tool_use": {"id": "toolu_shot_wjul", "name": "Write", "input": {"file_path": "$ws/data/jul.csv", "content": "day,value\\n1,7\\n"}}},
   {"tool_use": {"id": "toolu_shot_waug", "name": "Write", "input": {"file_path": "$ws/data/aug.csv", "content": "day,value\\n1,8\\n"}}},
   {"tool_use": {"id": "toolu_shot_wsep", "name": "Write", "input": {"file_path": "$ws/data/sep.csv", "content": "day,value\\n1,9\\n"}}},
   {"tool_use": {"id": "toolu_shot_woct", "name": "Write", "input": {"file_path": "$ws/data/oct.csv", "content": "day,value\\n1,10\\n"}}},
   {"tool_use": {"id": "toolu_shot_wnov", "name": "Write", "input": {"file_path": "$ws/data/nov.csv", "content": "day,value\\n1,11\\n"}}},
   {"tool_use": {"id": "toolu_shot_wdec", "name": "Write", "input": {"file_path": "$ws/data/dec.csv", "content": "day,value\\n1,12\\n"}}}],
  [{"text": "Wrote 12 files in data/, one per month."}],
  [{"tool_use": {"id": "toolu_shot_reread", "name": "Read", "input": {"file_path": "$ws/calc.go"}}}],
  [{"text": "Renaming."},
   {"tool_use": {"id": "toolu_shot_rename", "name": "Edit", "input": {"file_path": "$ws/calc.go", "old_string": "func Total(", "new_string": "func Sum("}}}],
  [{"text": "Understood: I left \`Total\` as it is."}],
  [{"tool_use": {"id": "toolu_shot_fail", "name": "Bash", "input": {"command": "ls results/ && cat results/latest.txt", "description": "Show the latest results"}}}],
  [{"text": "There are no saved results yet: \`results/\` does not exist."}],
  [{"tool_use": {"id": "toolu_shot_long", "name": "Bash", "input": {"command": "for i in \$(seq 1 300); do echo \"\$i squared is \$((i*i))\"; done", "description": "Print the first 300 squares"}}}],
  [{"text": "Printed the first 300 squares."}],
  [{"tool_use": {"id": "toolu_shot_ask", "name": "AskUserQuestion", "input": {"questions": [{"question": "Which statistic should calc offer next?", "header": "Next", "multiSelect": false, "options": [{"label": "Variance", "description": "How far values spread from the mean"}, {"label": "Mode", "description": "The most common value"}, {"label": "Percentile", "description": "The value below which a share of values falls"}]}]}}}],
  [{"text": "Variance it is: I will add it next."}],
  [{"error": 400}],
  [{"text": ["The bars are each group's sum divided by 2, ", "so a group of four values (the last bar) shows twice its mean ", "and a single value (the fourth) half of it. ", "\`TestAverage\` in calc_test.go catches this: ", "\`Average([]float64{1, 2, 3})\` gives 3, not 2. ", "Dividing by \`len(values)\` fixes the chart and the test."]}],
  [{"text": "\`Total\` adds the values in a loop and returns the sum; an empty slice gives 0."}],
  [{"text": ["Here is a test for an empty slice:\n\n", "\`\`\`go\nfunc TestAverageEmpty(t *testing.T) {\n\tif got := Average(nil); got != 0 {\n\t\tt.Fatalf(\"Average(nil) = %v, want 0\", got)\n\t}\n}\n\`\`\`\n"]}]
]
JSON
