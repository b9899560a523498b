package topology

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// EnvProfile names the environment variable that overrides
// DefaultProfilePath.
const EnvProfile = "HYMPI_PROFILE"

// ProfileVersion is the version of the profile file format this package
// writes and reads.
const ProfileVersion = 1

// Profile is a calibrated threshold table (hympi-info --tune), stored as
// JSON and used only on the machine it was measured on.
type Profile struct {
	Version     int         `json:"version"`
	Fingerprint Fingerprint `json:"fingerprint"`
	// Thresholds maps a relation to its threshold in bytes; JSON keys are
	// the relation names ("shared-cache": 16384). Relations the machine
	// does not have may be absent.
	Thresholds map[Relation]int `json:"thresholds"`
	Created    time.Time        `json:"created,omitzero"`
}

// Fingerprint identifies the machine a profile was measured on: the same
// model with the same CPU count and caches gives the same crossovers.
type Fingerprint struct {
	Model  string      `json:"model"` // "" when /proc/cpuinfo has none
	CPUs   int         `json:"cpus"`  // online CPUs
	Caches []CacheKind `json:"caches"`
}

// CacheKind is one distinct cache of a machine (level, type, size).
type CacheKind struct {
	Level int    `json:"level"`
	Type  string `json:"type"`
	Size  int    `json:"size"` // bytes
}

// Fingerprint returns m's fingerprint. The caches are the distinct
// (level, type, size) triples, sorted.
func (m *Machine) Fingerprint() Fingerprint {
	if m == nil {
		return Fingerprint{}
	}
	f := Fingerprint{Model: m.Model, CPUs: len(m.CPUs), Caches: []CacheKind{}}
	for _, c := range m.CPUs {
		for _, cache := range c.Caches {
			f.Caches = append(f.Caches, CacheKind{Level: cache.Level, Type: cache.Type, Size: cache.Size})
		}
	}
	slices.SortFunc(f.Caches, func(a, b CacheKind) int {
		return cmp.Or(cmp.Compare(a.Level, b.Level), cmp.Compare(a.Type, b.Type), cmp.Compare(a.Size, b.Size))
	})
	f.Caches = slices.Compact(f.Caches)
	return f
}

// Matches reports whether f and g describe the same machine. A fingerprint
// without CPUs (an unknown machine) matches nothing.
func (f Fingerprint) Matches(g Fingerprint) bool {
	return f.CPUs > 0 && f.Model == g.Model && f.CPUs == g.CPUs && slices.Equal(f.Caches, g.Caches)
}

// NewProfile returns a profile of thresholds measured on m.
func NewProfile(m *Machine, thresholds map[Relation]int) *Profile {
	return &Profile{
		Version:     ProfileVersion,
		Fingerprint: m.Fingerprint(),
		Thresholds:  thresholds,
		Created:     time.Now().UTC().Truncate(time.Second),
	}
}

func (p *Profile) validate() error {
	if p.Version != ProfileVersion {
		return fmt.Errorf("version %d, want %d", p.Version, ProfileVersion)
	}
	for r, n := range p.Thresholds {
		if !r.Valid() {
			return fmt.Errorf("invalid relation %d", int(r))
		}
		if n < 0 {
			return fmt.Errorf("negative threshold %d for %s", n, r)
		}
	}
	return nil
}

// SaveProfile writes p to path as indented JSON, creating the directory,
// and replacing any old file atomically (a concurrent LoadProfile sees the
// old profile or the new one, never half of one).
func SaveProfile(path string, p *Profile) error {
	if err := p.validate(); err != nil {
		return fmt.Errorf("topology: save profile %s: %v", path, err)
	}
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return fmt.Errorf("topology: save profile %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("topology: save profile: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".profile-*.json")
	if err != nil {
		return fmt.Errorf("topology: save profile: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename, a no-op
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("topology: save profile: %w", err)
	}
	return nil
}

// LoadProfile reads a profile written by SaveProfile. A missing file is an
// error for which errors.Is(err, fs.ErrNotExist) holds; unknown relation
// names, unknown fields, another format version and negative thresholds are
// errors naming the file.
func LoadProfile(path string) (*Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("topology: load profile: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Profile
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("topology: load profile %s: %v", path, err)
	}
	if err := p.validate(); err != nil {
		return nil, fmt.Errorf("topology: load profile %s: %v", path, err)
	}
	return &p, nil
}

// DefaultProfilePath returns where the profile lives: $HYMPI_PROFILE if
// set; else $XDG_CACHE_HOME/hympi/profile.json if XDG_CACHE_HOME is an
// absolute path (the XDG spec says to ignore a relative one); else
// $HOME/.cache/hympi/profile.json. It fails only when none of these
// variables is usable.
func DefaultProfilePath() (string, error) {
	if p := os.Getenv(EnvProfile); p != "" {
		return p, nil
	}
	if dir := os.Getenv("XDG_CACHE_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "hympi", "profile.json"), nil
	}
	if home := os.Getenv("HOME"); home != "" {
		return filepath.Join(home, ".cache", "hympi", "profile.json"), nil
	}
	return "", errors.New("topology: no profile path: HYMPI_PROFILE, XDG_CACHE_HOME and HOME are all unset")
}
