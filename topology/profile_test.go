package topology

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFingerprint(t *testing.T) {
	m := readFixture(t, "onesocket-l3")
	f := m.Fingerprint()
	want := Fingerprint{CPUs: 4, Caches: []CacheKind{
		{1, CacheData, 32 * KiB}, {1, CacheInstruction, 32 * KiB}, {2, CacheUnified, 1 << 20}, {3, CacheUnified, 8 << 20},
	}}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("Fingerprint() = %+v, want %+v", f, want)
	}
	if !f.Matches(readFixture(t, "onesocket-l3").Fingerprint()) {
		t.Error("fingerprint does not match itself")
	}
	for _, name := range []string{"clovertown", "twosocket-smt-numa"} {
		if f.Matches(readFixture(t, name).Fingerprint()) {
			t.Errorf("onesocket-l3 matches %s", name)
		}
	}
	m.CPUs = m.CPUs[:3]
	if f.Matches(m.Fingerprint()) {
		t.Error("fingerprint ignores the CPU count")
	}
}

func TestProfileRoundTrip(t *testing.T) {
	m := readFixture(t, "twosocket-smt-numa")
	m.Model = "Test CPU"
	p := NewProfile(m, map[Relation]int{Self: 65536, SMT: 65536, SharedCache: 24576, InterSocket: 4096})
	path := filepath.Join(t.TempDir(), "deep", "dir", "profile.json")
	if err := SaveProfile(path, p); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"shared-cache": 24576`, `"inter-socket": 4096`, `"model": "Test CPU"`, `"cpus": 16`, `"version": 1`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("profile file lacks %s:\n%s", want, raw)
		}
	}
	got, err := LoadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Thresholds, p.Thresholds) || !reflect.DeepEqual(got.Fingerprint, p.Fingerprint) || !got.Created.Equal(p.Created) {
		t.Errorf("loaded %+v, saved %+v", got, p)
	}
	if n, source := NewThresholds(m).Resolve(SharedCache, "", got); n != 24576 || source != SourceProfile {
		t.Errorf("loaded profile resolves to %d, %s", n, source)
	}
	// Overwrite in place; no temporary files are left behind.
	p.Thresholds[SharedCache] = 1
	if err := SaveProfile(path, p); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("directory holds %d entries after two saves", len(entries))
	}
}

func TestLoadProfileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadProfile(filepath.Join(dir, "none.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing profile: %v, want fs.ErrNotExist", err)
	}
	for name, body := range map[string]string{
		"relation": `{"version":1,"fingerprint":{"model":"","cpus":2,"caches":[]},"thresholds":{"numa":5}}`,
		"version":  `{"version":7,"fingerprint":{"model":"","cpus":2,"caches":[]},"thresholds":{}}`,
		"negative": `{"version":1,"fingerprint":{"model":"","cpus":2,"caches":[]},"thresholds":{"smt":-1}}`,
		"field":    `{"version":1,"fingerprint":{"model":"","cpus":2,"caches":[]},"thresholds":{},"extra":1}`,
		"json":     `{"version":1,`,
	} {
		path := filepath.Join(dir, name+".json")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadProfile(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: LoadProfile error %v does not name %s", name, err, path)
		}
	}
	if err := SaveProfile(filepath.Join(dir, "bad.json"), &Profile{Version: ProfileVersion, Thresholds: map[Relation]int{SMT: -3}}); err == nil {
		t.Error("SaveProfile accepted a negative threshold")
	}
}

func TestDefaultProfilePath(t *testing.T) {
	for _, tc := range []struct {
		name, profile, xdg, home, want string
	}{
		{"override", "/etc/hympi.json", "/xdg", "/home/u", "/etc/hympi.json"},
		{"xdg", "", "/xdg", "/home/u", "/xdg/hympi/profile.json"},
		{"relative xdg ignored", "", "rel/cache", "/home/u", "/home/u/.cache/hympi/profile.json"},
		{"home", "", "", "/home/u", "/home/u/.cache/hympi/profile.json"},
		{"nothing", "", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvProfile, tc.profile)
			t.Setenv("XDG_CACHE_HOME", tc.xdg)
			t.Setenv("HOME", tc.home)
			got, err := DefaultProfilePath()
			if got != tc.want || (err != nil) != (tc.want == "") {
				t.Errorf("DefaultProfilePath() = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
