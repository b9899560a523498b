package config

import (
	"errors"
	"strings"
	"testing"
)

func env(kv ...string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == name {
				return kv[i+1], true
			}
		}
		return "", false
	}
}

func TestParseAccepts(t *testing.T) {
	def := Defaults()
	with := func(f func(*Knobs)) Knobs { k := def; f(&k); return k }
	for _, c := range []struct {
		name, value string
		want        Knobs
	}{
		{"", "", def},
		{EnvShmBudget, "", def},
		{EnvShmBudget, "  ", def},
		{EnvShmBudget, "1048576", with(func(k *Knobs) { k.ShmBudget = 1 << 20 })},
		{EnvShmBudget, "64K", with(func(k *Knobs) { k.ShmBudget = 64 << 10 })},
		{EnvShmBudget, "1024G", with(func(k *Knobs) { k.ShmBudget = 1 << 40 })},
		{EnvShmBudget, "512M\n", with(func(k *Knobs) { k.ShmBudget = 512 << 20 })},
		{EnvCellSize, "64", with(func(k *Knobs) { k.CellSize = 64 })},
		{EnvCellSize, "8192", with(func(k *Knobs) { k.CellSize = 8192 })},
		{EnvCellSize, "64k", with(func(k *Knobs) { k.CellSize = 64 << 10 })},
		{EnvCellSize, "16M", with(func(k *Knobs) { k.CellSize = 16 << 20 })},
		{EnvDirect, "auto", def},
		{EnvDirect, "off", with(func(k *Knobs) { k.Direct = DirectOff })},
		{EnvDirect, "always", with(func(k *Knobs) { k.Direct = DirectAlways })},
		{EnvThreshold, "8K", with(func(k *Knobs) { k.Threshold, k.ThresholdSet = 8192, true })},
		{EnvThreshold, "0", with(func(k *Knobs) { k.Threshold, k.ThresholdSet = 0, true })},
		{EnvSkew, "off", with(func(k *Knobs) { k.Skew = false })},
		{EnvSkew, "0", with(func(k *Knobs) { k.Skew = false })},
		{EnvSkew, "False", with(func(k *Knobs) { k.Skew = false })},
		{EnvSkew, "on", def},
		{EnvSkew, "1", def},
		{EnvAsyncProgress, "1", with(func(k *Knobs) { k.AsyncProgress = true })},
		{EnvAsyncProgress, "on", with(func(k *Knobs) { k.AsyncProgress = true })},
		{EnvAsyncProgress, "true", with(func(k *Knobs) { k.AsyncProgress = true })},
		{EnvAsyncProgress, "0", def},
		{EnvAsyncProgress, "off", def},
		{EnvProfile, "/tmp/p.json", with(func(k *Knobs) { k.Profile = "/tmp/p.json" })},
		{EnvSysfs, "testdata/x", with(func(k *Knobs) { k.Sysfs = "testdata/x" })},
	} {
		got, err := Parse(env(c.name, c.value))
		if err != nil {
			t.Errorf("%s=%q: %v", c.name, c.value, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s=%q: got %+v, want %+v", c.name, c.value, got, c.want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, c := range []struct{ name, value string }{
		{EnvShmBudget, "0"},
		{EnvShmBudget, "-1"},
		{EnvShmBudget, "garbage"},
		{EnvShmBudget, "1e15"},
		{EnvShmBudget, "1000000000000000"},
		{EnvShmBudget, "1000"},
		{EnvShmBudget, "99999999999999999999999G"},
		{EnvCellSize, "0"},
		{EnvCellSize, "-64"},
		{EnvCellSize, "xyz"},
		{EnvCellSize, "100"},
		{EnvCellSize, "32"},
		{EnvCellSize, "1G"},
		{EnvDirect, "sometimes"},
		{EnvDirect, "1"},
		{EnvDirect, "OFF"},
		{EnvThreshold, "big"},
		{EnvThreshold, "-1"},
		{EnvSkew, "maybe"},
		{EnvSkew, "yes"},
		{EnvAsyncProgress, "yes"},
		{EnvAsyncProgress, "2"},
	} {
		got, err := Parse(env(c.name, c.value))
		if err == nil {
			t.Errorf("%s=%q accepted as %+v", c.name, c.value, got)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.name) || !strings.Contains(msg, c.value) || !strings.Contains(msg, "want") {
			t.Errorf("%s=%q: message %q does not name the variable, the value and what is wanted", c.name, c.value, msg)
		}
		var ce *Error
		if !errors.As(err, &ce) {
			t.Errorf("%s=%q: error %T is not *config.Error", c.name, c.value, err)
		}
		if got != Defaults() {
			t.Errorf("%s=%q: refused but returned %+v", c.name, c.value, got)
		}
	}
}

// Every bad variable is reported at once.
func TestParseReportsAll(t *testing.T) {
	_, err := Parse(env(EnvShmBudget, "0", EnvSkew, "maybe", EnvDirect, "off"))
	if err == nil {
		t.Fatal("accepted")
	}
	var ce *Error
	if !errors.As(err, &ce) || len(ce.Unwrap()) != 2 {
		t.Fatalf("err = %v, want two refusals", err)
	}
	for _, name := range []string{EnvShmBudget, EnvSkew} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("%q does not mention %s", err, name)
		}
	}
}

func TestFromEnviron(t *testing.T) {
	for _, c := range []struct {
		env     []string
		want    Direct
		wantErr bool
	}{
		{nil, DirectAuto, false},
		{[]string{"HYMPI_DIRECT=off"}, DirectOff, false},
		// A later entry wins, as for exec: -x overrides the inherited value.
		{[]string{"HYMPI_DIRECT=bad", "HYMPI_DIRECT=always"}, DirectAlways, false},
		{[]string{"HYMPI_DIRECT=off", "HYMPI_DIRECT=bad"}, DirectAuto, true},
		{[]string{"HYMPI_DIRECT"}, DirectAuto, false},
		{[]string{"PATH=/bin", "HYMPI_SKEW=maybe"}, DirectAuto, true},
	} {
		k, err := FromEnviron(c.env)
		if (err != nil) != c.wantErr || k.Direct != c.want {
			t.Errorf("%q: Direct %v, err %v; want %v, error %v", c.env, k.Direct, err, c.want, c.wantErr)
		}
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv(EnvCellSize, "xyz")
	if _, err := FromEnv(); err == nil || !strings.Contains(err.Error(), EnvCellSize) {
		t.Fatalf("FromEnv with %s=xyz: %v", EnvCellSize, err)
	}
	t.Setenv(EnvCellSize, "128")
	k, err := FromEnv()
	if err != nil || k.CellSize != 128 {
		t.Fatalf("FromEnv with %s=128: %+v, %v", EnvCellSize, k, err)
	}
}

// FuzzParse: no value panics, and whatever is accepted is within the bounds
// the rest of hympi relies on.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "0", "-1", "1e15", "64K", "16M", "1024G", "off", "yes", "auto", " 8K\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		for _, name := range []string{EnvShmBudget, EnvCellSize, EnvDirect, EnvThreshold, EnvSkew, EnvAsyncProgress} {
			k, err := Parse(env(name, v))
			if err != nil {
				if k != Defaults() {
					t.Fatalf("%s=%q refused but returned %+v", name, v, k)
				}
				continue
			}
			if k.ShmBudget < MinShmBudget || k.ShmBudget > MaxShmBudget ||
				k.CellSize < MinCellSize || k.CellSize > MaxCellSize || k.CellSize%cellAlign != 0 ||
				k.Threshold < 0 || k.Direct > DirectAlways {
				t.Fatalf("%s=%q accepted out of bounds: %+v", name, v, k)
			}
		}
	})
}
