package main

import (
	"os"
	"strings"
	"testing"
)

// TestDocExamples parses every example command line of the package doc, so
// that it never shows a flag hympirun refuses.
func TestDocExamples(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	var examples []string
	for _, l := range strings.Split(string(src), "\n") {
		if ex, ok := strings.CutPrefix(l, "//\thympirun "); ok {
			examples = append(examples, ex)
		}
	}
	if len(examples) == 0 {
		t.Fatal("no examples found in the package doc")
	}
	for _, ex := range examples {
		if _, err := parseArgs(strings.Fields(ex)); err != nil {
			t.Errorf("package doc example %q: %v", ex, err)
		}
	}
}
