package topology

import (
	"testing"
)

func TestBaseThreshold(t *testing.T) {
	for _, tc := range []struct {
		r    Relation
		want int
	}{
		{Self, 32768},
		{SMT, 32768},
		{SharedCache, 32768},
		{IntraSocket, 2048},
		{InterSocket, 1024},
		{Relation(42), 1024}, // invalid: the most cautious
	} {
		if got := BaseThreshold(tc.r); got != tc.want {
			t.Errorf("BaseThreshold(%v) = %d, want %d", tc.r, got, tc.want)
		}
	}
}

func TestParseThreshold(t *testing.T) {
	for in, want := range map[string]int{"0": 0, "4096": 4096, "8K": 8192, " 16384\n": 16384, "1M": 1 << 20} {
		if got, err := ParseThreshold(in); err != nil || got != want {
			t.Errorf("ParseThreshold(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "big", "1.5K", "0x100"} {
		if got, err := ParseThreshold(in); err == nil {
			t.Errorf("ParseThreshold(%q) = %d, want an error", in, got)
		}
	}
}

func TestResolve(t *testing.T) {
	m := readFixture(t, "clovertown")
	m.Model = "Intel(R) Xeon(R) CPU X5355 @ 2.66GHz"
	other := readFixture(t, "twosocket-smt-numa")
	th := NewThresholds(m)

	tuned := NewProfile(m, map[Relation]int{SharedCache: 16 * KiB, IntraSocket: 6 * KiB, InterSocket: 0})
	foreign := NewProfile(other, map[Relation]int{SharedCache: 1, IntraSocket: 1, InterSocket: 1})
	renamed := NewProfile(m, tuned.Thresholds)
	renamed.Fingerprint.Model = "AMD EPYC"

	for _, tc := range []struct {
		name   string
		rel    Relation
		env    string
		prof   *Profile
		want   int
		source string
	}{
		{"defaults", SharedCache, "", nil, 32 * KiB, SourceDefault},
		{"default intra", IntraSocket, "", nil, 2 * KiB, SourceDefault},
		{"default inter", InterSocket, "", nil, 1 * KiB, SourceDefault},
		{"default smt", SMT, "", nil, 32 * KiB, SourceDefault},
		{"env beats default", InterSocket, "65536", nil, 65536, SourceEnvironment},
		{"env beats profile", SharedCache, "4096", tuned, 4096, SourceEnvironment},
		{"env with unit", IntraSocket, "8K", tuned, 8192, SourceEnvironment},
		{"env zero", SharedCache, "0", tuned, 0, SourceEnvironment},
		{"env blank is unset", IntraSocket, "  ", tuned, 6 * KiB, SourceProfile},
		{"bad env ignored", IntraSocket, "lots", tuned, 6 * KiB, SourceProfile},
		{"bad env, no profile", IntraSocket, "-5", nil, 2 * KiB, SourceDefault},
		{"profile", SharedCache, "", tuned, 16 * KiB, SourceProfile},
		{"profile zero", InterSocket, "", tuned, 0, SourceProfile},
		{"profile without the relation", SMT, "", tuned, 32 * KiB, SourceDefault},
		{"profile of another machine", SharedCache, "", foreign, 32 * KiB, SourceDefault},
		{"profile of another model", IntraSocket, "", renamed, 2 * KiB, SourceDefault},
	} {
		got, source := th.Resolve(tc.rel, tc.env, tc.prof)
		if got != tc.want || source != tc.source {
			t.Errorf("%s: Resolve(%v, %q) = %d, %q; want %d, %q", tc.name, tc.rel, tc.env, got, source, tc.want, tc.source)
		}
	}

	// The zero resolver knows no machine and never trusts a profile.
	var zero Thresholds
	if got, source := zero.Resolve(SharedCache, "", tuned); got != 32*KiB || source != SourceDefault {
		t.Errorf("zero Thresholds: %d, %q", got, source)
	}
	empty := &Profile{Version: ProfileVersion, Thresholds: map[Relation]int{SharedCache: 1}}
	if zero.Usable(empty) {
		t.Error("an empty fingerprint matched an empty fingerprint")
	}
}
