package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hympi/hympi/topology"
)

const usageLine = "usage: hympirun [OPTION]... -n N PROGRAM [ARGS...] [: -n N PROGRAM [ARGS...]]...\n"

const usage = usageLine + `
Starts N ranks of PROGRAM on this machine as one MPI job and waits for them.
Options are those of Open MPI's mpirun and MPICH's mpiexec, with their
meaning; long options take one dash or two, and a value after a space or "=".

Ranks
  -n, -np, -c N            number of ranks of this program (at least 1)
  PROG1 : -n N PROG2 ...   MPMD: one MPI_COMM_WORLD, ranks numbered in order;
                           each program's ranks get MPI_APPNUM 0, 1, ...
  --oversubscribe          allow more ranks than CPUs (the default)
  --nooversubscribe        refuse more ranks than slots (CPUs, or the slots
                           that -H or --hostfile give)
  -H, --host, -hosts LIST  comma-separated hosts, each localhost[:N], this
                           machine's name or 127.0.0.1 (hympi runs on one
                           machine); N slots each, default 1
  --hostfile, --machinefile, -f FILE
                           a file of such hosts, "HOST slots=N" or "HOST:N"

Placement (as Open MPI's; socket may be written package)
  --map-by hwthread|core|slot|l3cache|numa|socket
                           the order ranks take CPUs: core (default) and
                           slot take a thread of each core in topology
                           order, then the second threads; hwthread fills
                           each core's threads before the next core; the
                           others deal ranks round-robin over the L3
                           caches, NUMA nodes or sockets
  --bind-to hwthread|core|l3cache|numa|socket|none
                           each rank may run on the CPUs of that object
                           holding its CPU (hwthread: that CPU alone; core:
                           its core's threads); none: not bound. Default:
                           the --map-by kind (core for slot)
  --report-bindings        print each rank's binding on stderr
  --do-not-launch          plan (and report) the placement, start nothing;
                           with HYMPI_SYSFS naming a fixture tree, plan for
                           that machine's CPUs

Environment
  -x NAME=VALUE, -env NAME VALUE, -genv NAME VALUE
                           set NAME in every rank's environment
  -x NAME                  pass hympirun's own value of NAME
  -genvall                 pass hympirun's whole environment (the default)
  -wdir, --wdir, -wd DIR   ranks start in DIR

Output
  --tag-output             prefix lines with [1,RANK]<stdout>: or <stderr>:
  -l, -prepend-rank        prefix lines with [RANK] (MPICH)
  --timestamp-output       prefix lines with the time they were forwarded
  --output-filename DIR    also write each rank's output to
                           DIR/1/rank.N/stdout and DIR/1/rank.N/stderr

Job
  --timeout DURATION       stop the job after DURATION (30s, 2m; a bare
                           number is seconds) and exit 124; MPIEXEC_TIMEOUT
                           (seconds) does the same when this is not given
  --version, -V            print hympi's version
  --help, -h               show this help

The first argument that is not an option is PROGRAM; everything after it up
to a lone ":" goes to PROGRAM untouched. Options other than -n apply to the
whole job, whichever program they precede.

Exit status: 0 if every rank exited 0 (after Finalize, if it called Init);
the failing rank's status or Abort code (a non-zero status after Finalize
is passed on without a message); 128+signo for a death by signal; 124 on
timeout; 2 on a usage error (nothing is started); 1 otherwise.
`

// errHelp and errVersion ask for the help text or the version on stdout
// and exit status 0.
var (
	errHelp    = errors.New("help requested")
	errVersion = errors.New("version requested")
)

// Binding policies accepted by --bind-to, and mapping policies by --map-by.
const (
	bindHWThread = "hwthread"
	bindCore     = "core"
	bindL3       = "l3cache"
	bindNUMA     = "numa"
	bindSocket   = "socket"
	bindPackage  = "package" // Open MPI 5's name for socket
	bindNone     = "none"
	mapSlot      = "slot"
)

// Output tag styles.
const (
	tagNone  = ""
	tagOMPI  = "ompi"  // [1,RANK]<stdout>:
	tagMPICH = "mpich" // [RANK]
)

// app is one program of the job: MPMD jobs have several, numbered by their
// position (MPI_APPNUM).
type app struct {
	n       int
	program string
	args    []string
	path    string // program resolved, set by run
}

type options struct {
	apps []app
	n    int // ranks of all apps together

	bind           string
	mapBy          string
	reportBindings bool
	doNotLaunch    bool // --do-not-launch: plan (and report) only
	oversubscribe  bool // from --oversubscribe/--nooversubscribe; default true
	slots          int  // from -H/--hostfile; 0 when neither was given

	tag        string
	timestamp  bool
	outputDir  string
	wdir       string
	timeout    time.Duration // 0: none
	env        []string      // NAME=VALUE from -x/-env/-genv, in command-line order
	timeoutSet bool          // --timeout given: MPIEXEC_TIMEOUT is not read
}

// optKind says what follows an option on the command line.
type optKind int

const (
	optBool  optKind = iota // nothing
	optValue                // one value
	optPair                 // two values (-genv NAME VALUE)
)

// optSpec is one option, under every name users type for it.
type optSpec struct {
	names []string // without dashes
	kind  optKind
	set   func(o *options, seg *app, vals []string) error
}

var optSpecs = []optSpec{
	{[]string{"n", "np", "c"}, optValue, func(o *options, a *app, v []string) error {
		n, err := strconv.Atoi(v[0])
		if err != nil {
			return fmt.Errorf("want a number of ranks")
		}
		if n < 1 {
			return fmt.Errorf("need at least one rank")
		}
		a.n = n
		return nil
	}},
	{[]string{"oversubscribe"}, optBool, func(o *options, _ *app, _ []string) error { o.oversubscribe = true; return nil }},
	{[]string{"nooversubscribe"}, optBool, func(o *options, _ *app, _ []string) error { o.oversubscribe = false; return nil }},
	{[]string{"H", "host", "hosts"}, optValue, func(o *options, _ *app, v []string) error {
		n, err := parseHostList(v[0])
		o.slots += n
		return err
	}},
	{[]string{"hostfile", "machinefile", "f", "default-hostfile"}, optValue, func(o *options, _ *app, v []string) error {
		n, err := readHostfile(v[0])
		o.slots += n
		return err
	}},
	{[]string{"map-by"}, optValue, func(o *options, _ *app, v []string) error {
		p, err := policy(v[0], bindHWThread, bindCore, mapSlot, bindL3, bindNUMA, bindSocket, bindPackage)
		o.mapBy = p
		if p == bindPackage {
			o.mapBy = bindSocket
		}
		return err
	}},
	{[]string{"bind-to"}, optValue, func(o *options, _ *app, v []string) error {
		p, err := policy(v[0], bindHWThread, bindCore, bindL3, bindNUMA, bindSocket, bindPackage, bindNone)
		o.bind = p
		if p == bindPackage {
			o.bind = bindSocket
		}
		return err
	}},
	{[]string{"do-not-launch"}, optBool, func(o *options, _ *app, _ []string) error { o.doNotLaunch = true; return nil }},
	{[]string{"report-bindings"}, optBool, func(o *options, _ *app, _ []string) error { o.reportBindings = true; return nil }},
	{[]string{"x"}, optValue, func(o *options, _ *app, v []string) error { return o.addEnv(v[0]) }},
	{[]string{"env", "genv"}, optPair, func(o *options, _ *app, v []string) error {
		if !validEnvName(v[0]) {
			return fmt.Errorf("want NAME VALUE")
		}
		o.env = append(o.env, v[0]+"="+v[1])
		return nil
	}},
	// hympirun always passes its whole environment; these say so.
	{[]string{"genvall", "envall"}, optBool, func(*options, *app, []string) error { return nil }},
	{[]string{"wdir", "wd"}, optValue, func(o *options, _ *app, v []string) error {
		if v[0] == "" {
			return fmt.Errorf("want a directory")
		}
		o.wdir = v[0]
		return nil
	}},
	{[]string{"tag-output"}, optBool, func(o *options, _ *app, _ []string) error { o.tag = tagOMPI; return nil }},
	{[]string{"l", "prepend-rank"}, optBool, func(o *options, _ *app, _ []string) error { o.tag = tagMPICH; return nil }},
	{[]string{"timestamp-output"}, optBool, func(o *options, _ *app, _ []string) error { o.timestamp = true; return nil }},
	{[]string{"output-filename"}, optValue, func(o *options, _ *app, v []string) error {
		if v[0] == "" {
			return fmt.Errorf("want a directory")
		}
		o.outputDir = v[0]
		return nil
	}},
	{[]string{"timeout"}, optValue, func(o *options, _ *app, v []string) error {
		d, err := parseTimeout(v[0])
		o.timeout, o.timeoutSet = d, true
		return err
	}},
	{[]string{"version", "V"}, optBool, func(*options, *app, []string) error { return errVersion }},
	{[]string{"help", "h"}, optBool, func(*options, *app, []string) error { return errHelp }},
}

// lookupOpt finds the option a command-line word names. Both one and two
// dashes are accepted for every name, as Open MPI does for its long options
// and MPICH for all of its. It returns the name as typed and an inline
// value after "=", if any.
func lookupOpt(word string) (spec *optSpec, typed, inline string, hasInline bool) {
	name := strings.TrimPrefix(strings.TrimPrefix(word, "-"), "-")
	typed = word
	if i := strings.IndexByte(name, '='); i >= 0 {
		name, inline, hasInline = name[:i], name[i+1:], true
		typed = word[:len(word)-len(inline)-1]
	}
	for i := range optSpecs {
		for _, n := range optSpecs[i].names {
			if n == name {
				return &optSpecs[i], typed, inline, hasInline
			}
		}
	}
	return nil, typed, "", false
}

// parseArgs reads the command line (without the command name). It touches
// nothing outside its result except reading the environment (bare -x NAME,
// MPIEXEC_TIMEOUT) and the hostfile.
func parseArgs(args []string) (*options, error) {
	o := &options{mapBy: bindCore, oversubscribe: true}
	for seg := range splitApps(args) {
		a, err := o.parseApp(seg)
		if err != nil {
			return nil, err
		}
		o.apps = append(o.apps, a)
		o.n += a.n
	}
	if o.bind == "" {
		// As Open MPI: bind to what the ranks were mapped by.
		o.bind = string(topology.DefaultBinding(o.mapBy))
	}
	if !o.timeoutSet {
		if v, ok := os.LookupEnv("MPIEXEC_TIMEOUT"); ok && v != "" {
			secs, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || secs < 0 {
				return nil, fmt.Errorf("MPIEXEC_TIMEOUT=%q: want a whole number of seconds", v)
			}
			// MPICH reads 0 as no timeout.
			o.timeout = time.Duration(secs) * time.Second
		}
	}
	return o, nil
}

// splitApps cuts the command line at each lone ":", the MPMD separator of
// both mpirun and mpiexec.
func splitApps(args []string) func(yield func([]string) bool) {
	return func(yield func([]string) bool) {
		start := 0
		for i, a := range args {
			if a == ":" {
				if !yield(args[start:i]) {
					return
				}
				start = i + 1
			}
		}
		yield(args[start:])
	}
}

// parseApp reads one MPMD segment: options, then the program and its
// arguments. Options other than -n apply to the whole job wherever they
// appear, as mpirun's -x does.
func (o *options) parseApp(words []string) (app, error) {
	a := app{}
	nSet := false
	i := 0
	for i < len(words) {
		w := words[i]
		if w == "--" {
			i++
			break
		}
		if len(w) < 2 || w[0] != '-' {
			break
		}
		spec, typed, inline, hasInline := lookupOpt(w)
		if spec == nil {
			return a, fmt.Errorf("unknown option %q", typed)
		}
		i++
		var vals []string
		switch spec.kind {
		case optBool:
			if hasInline {
				return a, fmt.Errorf("%s takes no value", typed)
			}
		case optValue, optPair:
			if hasInline {
				vals = append(vals, inline)
			}
			want := 1
			if spec.kind == optPair {
				want = 2
			}
			for len(vals) < want {
				if i >= len(words) {
					return a, fmt.Errorf("%s needs %s", typed, map[int]string{1: "a value", 2: "two values"}[want])
				}
				vals = append(vals, words[i])
				i++
			}
		}
		if err := spec.set(o, &a, vals); err != nil {
			if err == errHelp || err == errVersion {
				return a, err
			}
			return a, fmt.Errorf("%s %s: %w", typed, strings.Join(vals, " "), err)
		}
		if spec.names[0] == "n" {
			nSet = true
		}
	}
	if i >= len(words) {
		return a, errors.New("missing PROGRAM")
	}
	if !nSet {
		// mpirun would start one rank per slot; hympi asks, so that a
		// missing -n never starts a surprise number of ranks.
		return a, fmt.Errorf("%s: missing -n N (the number of ranks)", words[i])
	}
	a.program, a.args = words[i], append([]string{}, words[i+1:]...)
	return a, nil
}

func policy(s string, allowed ...string) (string, error) {
	// Open MPI allows modifiers after a colon (--map-by core:PE=2); hympi
	// has none of them.
	for _, p := range allowed {
		if strings.EqualFold(s, p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("want one of %s", strings.Join(allowed, ", "))
}

// parseTimeout accepts Go duration syntax, and a bare number as seconds
// because that is what users of mpirun and timeout(1) type.
func parseTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		secs, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil {
			return 0, errors.New("want a duration such as 30s, or a number of seconds")
		}
		// Also refuses NaN and what would overflow a Duration.
		if !(secs > 0 && secs < math.MaxInt64/float64(time.Second)) {
			return 0, errors.New("want a positive duration")
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d <= 0 {
		return 0, errors.New("want a positive duration")
	}
	return d, nil
}

// addEnv takes -x NAME=VALUE or -x NAME. A bare NAME forwards hympirun's
// own value; if hympirun has none there is nothing to forward, and the rank
// simply does not get the variable, as with mpirun.
func (o *options) addEnv(s string) error {
	name, value, hasValue := strings.Cut(s, "=")
	if !validEnvName(name) {
		return fmt.Errorf("want NAME=VALUE or NAME")
	}
	if !hasValue {
		v, ok := os.LookupEnv(name)
		if !ok {
			return nil
		}
		value = v
	}
	o.env = append(o.env, name+"="+value)
	return nil
}

func validEnvName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "= \t\n")
}
