package colls

import (
	"errors"
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestParseOptions(t *testing.T) {
	all := make([]Coll, NumColls)
	for i := range all {
		all[i] = Coll(i)
	}
	allForms := []Form{Blocking, NonBlocking, Persistent, Overlap}
	def := []int{8, 1024, 65536, 1048576, 4194304}
	tests := []struct {
		name    string
		args    []string
		want    Options
		wantErr string
	}{
		{"defaults", nil, Options{Colls: all, Forms: allForms, Sizes: def, Iters: 200, Skip: -1, Tests: []int{0}}, ""},
		{"selection", []string{"-c", "scan,bcast,scan", "-forms", "p", "-m", "16", "-i", "3", "-x", "0", "-t", "0,5"},
			Options{Colls: []Coll{Scan, Bcast}, Forms: []Form{Persistent}, Sizes: []int{16}, Iters: 3, Skip: 0, Tests: []int{0, 5}}, ""},
		{"unknown collective", []string{"-c", "bcast,ibcast"}, Options{}, `unknown collective "ibcast"`},
		{"unknown form", []string{"-forms", "b,x"}, Options{}, `unknown form "x"`},
		{"empty item", []string{"-m", "8,,16"}, Options{}, "empty item"},
		{"zero size", []string{"-m", "0"}, Options{}, `size "0"`},
		{"huge size", []string{"-m", "134217728"}, Options{}, "want 1 to"},
		{"zero iterations", []string{"-i", "0"}, Options{}, "at least 1 iteration"},
		{"negative warm-up", []string{"-x", "-3"}, Options{}, "negative warm-up"},
		{"negative tests", []string{"-t", "-1"}, Options{}, `tests "-1"`},
		{"stray argument", []string{"extra"}, Options{}, `unexpected argument "extra"`},
		{"bad flag", []string{"-q"}, Options{}, "usage error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseOptions(tt.args, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
	if _, err := ParseOptions([]string{"-h"}, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: err = %v, want flag.ErrHelp", err)
	}
}

func TestSchedule(t *testing.T) {
	tests := []struct {
		iters, skip, size int
		wantI, wantS      int
	}{
		{200, -1, 8, 200, 20},
		{200, -1, 16384, 200, 20},
		{200, -1, 65536, 50, 5},
		{200, -1, 1 << 20, 5, 1},   // floor of 5 iterations
		{3, -1, 1 << 20, 3, 1},     // never more than asked
		{100, 7, 4 << 20, 5, 7},    // -x as given
		{1, -1, 8, 1, 1},           // at least one warm-up
		{1000, -1, 32768, 500, 50}, // in proportion
	}
	for _, tt := range tests {
		o := Options{Iters: tt.iters, Skip: tt.skip}
		if i, s := o.Schedule(tt.size); i != tt.wantI || s != tt.wantS {
			t.Errorf("-i %d -x %d at %d: %d, %d; want %d, %d", tt.iters, tt.skip, tt.size, i, s, tt.wantI, tt.wantS)
		}
	}
}
