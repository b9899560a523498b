package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

const usageLine = "usage: hympirun -n N [--bind-to core|none] [--tag-output] [--timeout DURATION] [-x NAME[=VALUE]]... PROGRAM [ARGS...]\n"

const usage = usageLine + `
Starts N ranks of PROGRAM on this machine as one MPI job and waits for them.

  -n, -np N             number of ranks (required, at least 1)
  --bind-to core|none   core (default): bind rank i to the i-th CPU hympirun
                        may run on, wrapping around; none: do not bind
  --tag-output          prefix every line of output with [1,RANK]<stdout>:
                        or [1,RANK]<stderr>:
  --timeout DURATION    stop the job after DURATION (Go syntax such as 30s or
                        2m; a bare number is seconds) and exit 124
  -x NAME=VALUE         set NAME in every rank's environment
  -x NAME               pass hympirun's own value of NAME to every rank
  --help                show this help

Flags may be written with one dash or two. The first argument that is not a
flag is PROGRAM; everything after it goes to PROGRAM untouched.

Exit status: 0 if every rank exited 0 (after mpi.Finalize, if it called
mpi.Init); the failing rank's status or Abort code; 128+signo for a death by
signal; 124 on timeout; 2 on a usage error (nothing is started); 1 otherwise.
`

// errHelp asks for the help text on stdout and exit status 0.
var errHelp = errors.New("help requested")

// Binding policies accepted by --bind-to.
const (
	bindCore = "core"
	bindNone = "none"
)

type options struct {
	n         int
	bind      string
	tagOutput bool
	timeout   time.Duration // 0: none
	env       []string      // NAME=VALUE from -x, in command-line order
	program   string
	args      []string
}

// parseArgs reads the command line (without the command name). It touches
// nothing outside its result except reading the environment for bare -x NAME.
func parseArgs(args []string) (*options, error) {
	o := &options{bind: bindCore}
	fs := flag.NewFlagSet("hympirun", flag.ContinueOnError)
	// The flag package's own messages and usage dump are replaced by ours.
	fs.SetOutput(io.Discard)
	fs.IntVar(&o.n, "n", 0, "")
	fs.IntVar(&o.n, "np", 0, "")
	fs.StringVar(&o.bind, "bind-to", bindCore, "")
	fs.BoolVar(&o.tagOutput, "tag-output", false, "")
	fs.Var((*timeoutFlag)(&o.timeout), "timeout", "")
	fs.Var((*envFlag)(&o.env), "x", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, errHelp
		}
		return nil, err
	}
	nSet := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "n" || f.Name == "np" {
			nSet = true
		}
	})
	switch {
	case !nSet:
		return nil, errors.New("missing -n N (the number of ranks)")
	case o.n < 1:
		return nil, fmt.Errorf("-n %d: need at least one rank", o.n)
	case o.bind != bindCore && o.bind != bindNone:
		return nil, fmt.Errorf("--bind-to %q: want %s or %s", o.bind, bindCore, bindNone)
	case fs.NArg() == 0:
		return nil, errors.New("missing PROGRAM")
	}
	o.program, o.args = fs.Arg(0), fs.Args()[1:]
	return o, nil
}

// timeoutFlag accepts Go duration syntax, and a bare number as seconds
// because that is what users of mpirun and timeout(1) type.
type timeoutFlag time.Duration

func (t *timeoutFlag) String() string { return time.Duration(*t).String() }

func (t *timeoutFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		secs, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil {
			return errors.New("want a duration such as 30s, or a number of seconds")
		}
		// Also refuses NaN and what would overflow a Duration.
		if !(secs > 0 && secs < math.MaxInt64/float64(time.Second)) {
			return errors.New("want a positive duration")
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d <= 0 {
		return fmt.Errorf("want a positive duration")
	}
	*t = timeoutFlag(d)
	return nil
}

// envFlag collects -x NAME=VALUE and -x NAME. A bare NAME forwards
// hympirun's own value; if hympirun has none there is nothing to forward,
// and the rank simply does not get the variable, as with mpirun.
type envFlag []string

func (e *envFlag) String() string { return strings.Join(*e, " ") }

func (e *envFlag) Set(s string) error {
	name, value, hasValue := strings.Cut(s, "=")
	if name == "" || strings.ContainsAny(name, " \t\n") {
		return fmt.Errorf("want NAME=VALUE or NAME")
	}
	if !hasValue {
		v, ok := os.LookupEnv(name)
		if !ok {
			return nil
		}
		value = v
	}
	*e = append(*e, name+"="+value)
	return nil
}
