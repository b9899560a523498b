package version

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestReleaseIsTheVersionFile(t *testing.T) {
	b, err := os.ReadFile("VERSION")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(string(b))
	if !regexp.MustCompile(`^\d+\.\d+\.\d+([-.+][0-9A-Za-z.-]+)?$`).MatchString(want) {
		t.Fatalf("VERSION %q is not a release number", want)
	}
	if got := Release(); got != want {
		t.Fatalf("Release() = %q, want %q", got, want)
	}
}

func TestStringNamesReleaseAndCommit(t *testing.T) {
	tests := []struct {
		name, stamp, want string
	}{
		{"stamped by make", "v0.9.0-3-gabc1234", "hympi " + Release() + " (commit v0.9.0-3-gabc1234)"},
		{"unstamped", "", "hympi " + Release() + " (commit "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old := commit
			defer func() { commit = old }()
			commit = tc.stamp
			got := String()
			if !strings.HasPrefix(got, tc.want) || !strings.HasSuffix(got, ")") {
				t.Fatalf("String() = %q, want prefix %q", got, tc.want)
			}
			if Commit() == "" {
				t.Fatal("Commit() is empty")
			}
		})
	}
}
