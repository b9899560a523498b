// Package version is the single place hympi's release and commit come from.
//
// The release is the VERSION file beside this source, embedded at build time,
// so a plain `go build` or `go install` still reports it. The commit is
// stamped by the Makefile (-ldflags "-X .../internal/version.commit=$(git
// describe)"); without the stamp it falls back to the VCS revision the Go
// toolchain records in the binary, and finally to "unknown".
package version

import (
	_ "embed"
	"runtime/debug"
	"strings"
)

//go:embed VERSION
var release string

// commit is set by the linker; see the package comment.
var commit string

// Release is hympi's release number, e.g. "0.9.0".
func Release() string { return strings.TrimSpace(release) }

// Commit is the source revision the binary was built from: git describe
// output when built by make, else the recorded VCS revision (with "-dirty"
// for a modified tree), else "unknown".
func Commit() string {
	if commit != "" {
		return commit
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}

// String is the one-line form every command prints for --version:
// "hympi 0.9.0 (commit 1a2b3c4d5e6f)".
func String() string {
	return "hympi " + Release() + " (commit " + Commit() + ")"
}
