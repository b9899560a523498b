package main

import (
	"bytes"
	"encoding/xml"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    string // whole output; "" when an error is expected
		wantErr string // substring of the error
	}{
		{
			name: "real OSU 7.3 header and Open MPI banner against Open MPI tagged output",
			args: []string{"OSU=testdata/osu73.ompi.lat.txt", "tagged=testdata/tagged.txt"},
			want: "Latency (us), median of 1 run; ratio OSU / tagged: lower is better\n\n" +
				"| Size |  OSU | tagged | OSU / tagged |\n" +
				"|-----:|-----:|-------:|-------------:|\n" +
				"|    0 |    – |   0.22 |            – |\n" +
				"|    1 | 0.46 |   0.25 |         1.84 |\n" +
				"|    2 | 0.45 |   0.25 |         1.80 |\n" +
				"|    4 | 0.45 |   0.25 |         1.80 |\n" +
				"|    8 | 0.47 |   0.24 |         1.96 |\n" +
				"|   16 |    – |   0.26 |            – |\n",
		},
		{
			name: "median over three runs, sizes filtered, comma list and glob",
			args: []string{"-sizes", "4096:8192",
				"hympi=testdata/lat.hympi.1.txt,testdata/lat.hympi.[23].txt",
				"Open MPI=testdata/lat.ompi.*.txt"},
			want: "Latency (us), median of 3 runs; ratio hympi / Open MPI: lower is better\n\n" +
				"| Size | hympi | Open MPI | hympi / Open MPI |\n" +
				"|-----:|------:|---------:|-----------------:|\n" +
				"| 4096 |  1.05 |     1.62 |             0.65 |\n" +
				"| 8192 |  3.04 |     2.35 |             1.29 |\n",
		},
		{
			name: "bandwidth: higher is better",
			args: []string{"-sizes", ":2048", "a=testdata/bw.hympi.1.txt", "b=testdata/osu73.ompi.bw.txt"},
			want: "Bandwidth (MB/s), median of 1 run; ratio a / b: higher is better\n\n" +
				"| Size |       a |       b | a / b |\n" +
				"|-----:|--------:|--------:|------:|\n" +
				"| 1024 | 1732.72 | 3701.55 |  0.47 |\n" +
				"| 2048 | 5649.18 | 4840.02 |  1.17 |\n",
		},
		{
			name: "uneven sample counts are reported as a range",
			args: []string{"-sizes", "1:2", "a=testdata/partial.lat.txt", "a=testdata/lat.hympi.1.txt", "b=testdata/tagged.txt"},
			want: "Latency (us), median of 1–2 runs; ratio a / b: lower is better\n\n" +
				"| Size |    a |    b | a / b |\n" +
				"|-----:|-----:|-----:|------:|\n" +
				"|    1 | 0.33 | 0.25 |  1.32 |\n" +
				"|    2 | 0.36 | 0.25 |  1.46 |\n",
		},
		{
			name: "three names, best is max for bandwidth, two ratio columns",
			args: []string{"-sizes", ":4096", "-ratio", "a/best(b,c)", "-ratio", "max(a, b) / c",
				"a=testdata/bw.hympi.1.txt", "b=testdata/bw.ompi.1.txt", "c=testdata/osu73.ompi.bw.txt"},
			want: "Bandwidth (MB/s), median of 1 run; ratios a / max(b, c), max(a, b) / c: higher is better\n\n" +
				"| Size |       a |       b |       c | a / max(b, c) | max(a, b) / c |\n" +
				"|-----:|--------:|--------:|--------:|--------------:|--------------:|\n" +
				"| 1024 | 1732.72 | 4118.32 | 3701.55 |          0.42 |          1.11 |\n" +
				"| 2048 | 5649.18 | 4792.45 | 4840.02 |          1.17 |          1.17 |\n" +
				"| 4096 | 9662.15 | 6708.69 | 6120.93 |          1.44 |          1.58 |\n",
		},
		{
			name: "best is min for latency; a missing operand leaves the ratio empty",
			args: []string{"-sizes", "0:4", "-ratio", "hympi/best(ompi, partial)",
				"hympi=testdata/lat.hympi.1.txt", "ompi=testdata/lat.ompi.1.txt", "partial=testdata/partial.lat.txt"},
			want: "Latency (us), median of 1 run; ratio hympi / min(ompi, partial): lower is better\n\n" +
				"| Size | hympi | ompi | partial | hympi / min(ompi, partial) |\n" +
				"|-----:|------:|-----:|--------:|---------------------------:|\n" +
				"|    0 |  0.36 | 0.22 |       – |                          – |\n" +
				"|    1 |  0.26 | 0.28 |    0.40 |                       0.93 |\n" +
				"|    2 |  0.23 | 0.25 |    0.50 |                       0.92 |\n" +
				"|    4 |  0.58 | 0.25 |       – |                          – |\n",
		},
		{
			name: "with -ratio the order of names is free and names may have spaces",
			args: []string{"-sizes", "0:1", "-ratio", "Open MPI/hympi",
				"hympi=testdata/lat.hympi.1.txt", "Open MPI=testdata/lat.ompi.1.txt"},
			want: "Latency (us), median of 1 run; ratio Open MPI / hympi: lower is better\n\n" +
				"| Size | hympi | Open MPI | Open MPI / hympi |\n" +
				"|-----:|------:|---------:|-----------------:|\n" +
				"|    0 |  0.36 |     0.22 |             0.61 |\n" +
				"|    1 |  0.26 |     0.28 |             1.08 |\n",
		},
		{
			name:    "ratio naming a set that is not there",
			args:    []string{"-ratio", "a/best(b,d)", "a=testdata/lat.ompi.1.txt", "b=testdata/lat.ompi.2.txt"},
			wantErr: `ratio names "d", which no NAME=FILE argument gives (have a, b)`,
		},
		{
			name:    "ratio without a slash",
			args:    []string{"-ratio", "a", "a=testdata/lat.ompi.1.txt"},
			wantErr: `ratio "a": want NUM/DEN`,
		},
		{
			name:    "ratio with two slashes",
			args:    []string{"-ratio", "a/b/c", "a=testdata/lat.ompi.1.txt"},
			wantErr: `ratio "a/b/c": want NUM/DEN`,
		},
		{
			name:    "unclosed function",
			args:    []string{"-ratio", "a/max(b,c", "a=testdata/lat.ompi.1.txt"},
			wantErr: "no closing parenthesis",
		},
		{
			name:    "empty name in a function",
			args:    []string{"-ratio", "a/min(b,)", "a=testdata/lat.ompi.1.txt"},
			wantErr: "empty name",
		},
		{
			name:    "unknown function",
			args:    []string{"-ratio", "a/mean(b,c)", "a=testdata/lat.ompi.1.txt"},
			wantErr: "is not a NAME or max/min/best(NAME,...)",
		},
		{
			name:    "empty side",
			args:    []string{"-ratio", "/b", "a=testdata/lat.ompi.1.txt"},
			wantErr: "is not a NAME",
		},
		{
			name:    "third name of another kind",
			args:    []string{"-ratio", "a/b", "a=testdata/lat.ompi.1.txt", "b=testdata/lat.ompi.2.txt", "c=testdata/bw.ompi.1.txt"},
			wantErr: "a has latency results but c has bandwidth",
		},
		{
			name:    "no files",
			args:    []string{"-ratio", "a/b"},
			wantErr: "no NAME=FILE arguments",
		},
		{
			name:    "latency against bandwidth",
			args:    []string{"a=testdata/lat.ompi.1.txt", "b=testdata/bw.ompi.1.txt"},
			wantErr: "has latency results but b has bandwidth",
		},
		{
			name:    "mixed kinds within one name",
			args:    []string{"a=testdata/lat.ompi.1.txt,testdata/bw.ompi.1.txt", "b=testdata/tagged.txt"},
			wantErr: "bandwidth results, but earlier a files hold latency",
		},
		{
			name:    "one name",
			args:    []string{"a=testdata/lat.ompi.1.txt"},
			wantErr: "exactly two names, got 1",
		},
		{
			name:    "three names",
			args:    []string{"a=testdata/lat.ompi.1.txt", "b=testdata/lat.ompi.2.txt", "c=testdata/lat.ompi.3.txt"},
			wantErr: "exactly two names, got 3",
		},
		{
			name:    "glob matching nothing",
			args:    []string{"a=testdata/nope.*", "b=testdata/tagged.txt"},
			wantErr: `no file matches "testdata/nope.*"`,
		},
		{
			name:    "not NAME=FILE",
			args:    []string{"testdata/tagged.txt", "b=testdata/tagged.txt"},
			wantErr: "is not NAME=FILE",
		},
		{
			name:    "not an OSU output",
			args:    []string{"a=testdata/README.md", "b=testdata/tagged.txt"},
			wantErr: "testdata/README.md: osu: no \"# Size\" column header",
		},
		{
			name:    "no sizes in range",
			args:    []string{"-sizes", "100:200", "a=testdata/tagged.txt", "b=testdata/tagged.txt"},
			wantErr: "no sizes in 100:200",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(&stdout, &stderr, tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := stdout.String(); got != tt.want {
				t.Errorf("output:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestDocExample runs each "$ osutable" example of the package comment
// and compares its output with the lines that follow it, so the manual
// cannot drift from the program.
func TestDocExample(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(f.Doc.Text(), "\n")
	examples := 0
	for i := 0; i < len(lines); i++ {
		cmd, ok := strings.CutPrefix(lines[i], "\t$ osutable ")
		if !ok {
			continue
		}
		// The expected output is the indented block after the command; a
		// blank line stays in it when more of the block follows.
		var want strings.Builder
		for i++; i < len(lines); i++ {
			line := lines[i]
			inBlock := strings.HasPrefix(line, "\t") && !strings.HasPrefix(line, "\t$ ")
			blankInside := line == "" && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\t") &&
				!strings.HasPrefix(lines[i+1], "\t$ ")
			if !inBlock && !blankInside {
				break
			}
			want.WriteString(strings.TrimPrefix(line, "\t") + "\n")
		}
		i--
		examples++
		var stdout, stderr bytes.Buffer
		if err := run(&stdout, &stderr, shellSplit(t, cmd)); err != nil {
			t.Fatalf("$ osutable %s: %v", cmd, err)
		}
		if stdout.String() != want.String() {
			t.Errorf("$ osutable %s:\n%s\ndoc says:\n%s", cmd, stdout.String(), want.String())
		}
	}
	if examples == 0 {
		t.Fatal("no $ osutable example in the package doc")
	}
}

// shellSplit splits a command line on spaces, honouring single quotes; it
// is all the doc examples need.
func shellSplit(t *testing.T, s string) []string {
	var out []string
	var cur strings.Builder
	quoted, inWord := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unbalanced quote in %q", s)
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// TestGrouped covers the one-table form of bench/compare.sh: groups of
// different kinds, a sizeless barrier, -relative, a set with no outputs
// (n/a) under -allow-missing, and the SVG of the multi-size groups.
func TestGrouped(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "out.svg")
	args := []string{"-grouped", "-relative", "Open MPI", "-allow-missing", "-sizes", ":2048", "-svg", svg, "-where", "Test CPU",
		"barrier n=2:hympi=testdata/grouped/barrier.go.txt",
		"barrier n=2:Open MPI=testdata/grouped/barrier.ompi.txt",
		"barrier n=2:MPICH=testdata/nope.*",
		"lat:hympi=testdata/lat.hympi.*.txt",
		"lat:Open MPI=testdata/lat.ompi.*.txt",
		"bw:hympi=testdata/bw.hympi.1.txt",
		"bw:Open MPI=testdata/bw.ompi.1.txt",
		"bw:MPICH=testdata/osu73.ompi.bw.txt",
		"none:hympi=testdata/nope*",
	}
	want := "Medians of 1–3 runs; latency in us (lower is better), bandwidth in MB/s (higher is better); " +
		"Open MPI in its unit, every other column as a ratio to Open MPI; n/a: no result (not built, skipped or failed)\n\n" +
		"| Benchmark        | Size | hympi | Open MPI | MPICH |\n" +
		"|:-----------------|-----:|------:|---------:|------:|\n" +
		"| barrier n=2 (us) |    0 |  3.00 |     0.40 |   n/a |\n" +
		"| lat (us)         |    0 |  1.71 |     0.21 |   n/a |\n" +
		"| lat (us)         |    1 |  1.04 |     0.25 |   n/a |\n" +
		"| lat (us)         |    2 |  1.00 |     0.25 |   n/a |\n" +
		"| lat (us)         |    4 |  0.96 |     0.25 |   n/a |\n" +
		"| lat (us)         |    8 |  1.00 |     0.25 |   n/a |\n" +
		"| lat (us)         |   16 |  1.00 |     0.28 |   n/a |\n" +
		"| lat (us)         |   32 |  1.44 |     0.27 |   n/a |\n" +
		"| lat (us)         |   64 |  1.07 |     0.30 |   n/a |\n" +
		"| lat (us)         |  128 |  1.47 |     0.30 |   n/a |\n" +
		"| lat (us)         |  256 |  1.61 |     0.36 |   n/a |\n" +
		"| lat (us)         |  512 |  0.91 |     0.54 |   n/a |\n" +
		"| lat (us)         | 1024 |  0.82 |     0.71 |   n/a |\n" +
		"| lat (us)         | 2048 |  0.79 |     1.02 |   n/a |\n" +
		"| bw (MB/s)        | 1024 |  0.42 |  4118.32 |  0.90 |\n" +
		"| bw (MB/s)        | 2048 |  1.18 |  4792.45 |  1.01 |\n" +
		"| none             |    – |   n/a |      n/a |   n/a |\n"
	var stdout, stderr bytes.Buffer
	if err := run(&stdout, &stderr, args); err != nil {
		t.Fatal(err)
	}
	if got := stdout.String(); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	// Two panels (lat and bw; the barrier has one size), inside one document.
	if strings.Count(s, "<svg ") != 3 || !strings.Contains(s, ">lat</text>") || !strings.Contains(s, ">bw</text>") ||
		strings.Contains(s, ">barrier n=2</text>") {
		t.Errorf("svg panels wrong:\n%.400s", s)
	}
	if !strings.Contains(s, ">Test CPU; median of 1–3 runs</text>") && !strings.Contains(s, ">Test CPU; median of 3 runs</text>") {
		t.Errorf("svg panels lack the where-and-runs subtitle:\n%.600s", s)
	}
	if err := xml.Unmarshal(data, new(struct{})); err != nil {
		t.Errorf("svg is not well-formed XML: %v", err)
	}

	for _, tt := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"-grouped", "lat=testdata/lat.ompi.1.txt"}, "is not GROUP:NAME=FILE"},
		{[]string{"-grouped", ":a=testdata/lat.ompi.1.txt"}, "is not GROUP:NAME=FILE"},
		{[]string{"-grouped", "g:a=testdata/nope.*"}, `no file matches "testdata/nope.*"`},
		{[]string{"-grouped", "g:a=testdata/lat.ompi.1.txt", "g:b=testdata/bw.ompi.1.txt"}, "a has latency results but b has bandwidth in g"},
		{[]string{"-grouped", "-relative", "c", "g:a=testdata/lat.ompi.1.txt"}, `-relative "c": no NAME=FILE argument gives it`},
	} {
		var stdout, stderr bytes.Buffer
		if err := run(&stdout, &stderr, tt.args); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%v: error %v, want one containing %q", tt.args, err, tt.wantErr)
		}
	}
}
