// Package wrapper is the compiler wrappers hympicc, hympicxx and hympifort:
// one implementation, three languages. A wrapper runs the system compiler
// for its language with hympi's include directory and, when the command
// links, hympi's libraries and an rpath to them, so programs find
// libmpi_abi.so.1 without LD_LIBRARY_PATH. Every other argument is passed
// on unchanged.
//
// The wrappers answer the questions build systems ask of Open MPI's and
// MPICH's wrappers (CMake's FindMPI, Meson, autotools): --showme, -show,
// --showme:compile, --showme:link, -compile_info, -link_info and the other
// --showme: forms, with one dash or two; --version prints hympi's version
// and then the compiler's.
package wrapper

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/hympi/hympi/internal/version"
)

// Lang describes one wrapper.
type Lang struct {
	Name     string   // command name: "hympicc"
	Language string   // "C", "C++", "Fortran"
	Vars     []string // variables naming the compiler, strongest first
	Defaults []string // compilers tried when no variable names a usable one
	Libs     []string // libraries to link, in link order, without -l
}

// The three wrappers.
var (
	C = Lang{Name: "hympicc", Language: "C",
		Vars: []string{"HYMPICC_CC", "CC"}, Defaults: []string{"cc", "gcc", "clang"},
		Libs: []string{"mpi_abi"}}
	CXX = Lang{Name: "hympicxx", Language: "C++",
		Vars: []string{"HYMPICXX_CXX", "CXX"}, Defaults: []string{"c++", "g++", "clang++"},
		Libs: []string{"mpi_abi"}}
	Fortran = Lang{Name: "hympifort", Language: "Fortran",
		Vars: []string{"HYMPIFORT_FC", "FC"}, Defaults: []string{"gfortran", "f95"},
		Libs: []string{"mpi_abi_fort", "mpi_abi"}}
)

// Main runs the wrapper l with the process's arguments and exits.
func Main(l Lang) {
	os.Exit(Run(l, os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses of the wrapper itself (the compiler's own are passed on).
const (
	exitFailure = 1
	exitUsage   = 2
)

// Run is a whole wrapper invocation; it returns the exit status, or does not
// return when it hands the process over to the compiler.
func Run(l Lang, args []string, stdout, stderr io.Writer) int {
	self := selfPath()
	mode, rest, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", l.Name, err)
		return exitUsage
	}
	if mode == modeHelp {
		fmt.Fprint(stdout, l.usage())
		return 0
	}
	in, err := locate(self)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", l.Name, err)
		return exitFailure
	}
	// Showing runs nothing, so it is allowed even inside a compiler that a
	// wrapper started (a configure script may ask).
	if mode == modeRun || mode == modeVersion {
		if d := os.Getenv(guardVar); d != "" {
			fmt.Fprintf(stderr, "%s: refusing to run: %s=%s means a compiler started by a hympi wrapper is running a wrapper again,\n"+
				"which would loop forever. Set %s to a real compiler, not to a wrapper or a script that calls one.\n",
				l.Name, guardVar, d, l.Vars[0])
			return exitFailure
		}
	}
	cc, skips, err := chooseCompiler(self, l.Vars, l.Defaults)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", l.Name, err)
		return exitFailure
	}
	// The wrapper-specific variable is set on purpose; tell the user it was
	// not obeyed. $CC naming a wrapper is the everyday idiom: stay quiet.
	if mode == modeRun {
		for _, s := range skips {
			if s.from == l.Vars[0] {
				fmt.Fprintf(stderr, "%s: ignoring $%s=%s: %s; using %s\n", l.Name, s.from, s.value, s.why, strings.Join(cc.argv, " "))
			}
		}
	}
	if show, ok := l.show(mode, in, cc, rest); ok {
		fmt.Fprintln(stdout, show)
		return 0
	}
	if mode == modeVersion {
		fmt.Fprintf(stdout, "%s: %s (Language: %s)\n", l.Name, version.String(), l.Language)
		rest = []string{"--version"}
	} else if len(rest) == 0 {
		fmt.Fprintf(stderr, "%s: no input files\n%s", l.Name, l.usageLine())
		return exitUsage
	} else {
		rest = l.command(in, cc, rest)[len(cc.argv):]
	}
	argv := append(append([]string{}, cc.argv...), rest...)
	env := append(os.Environ(), guardVar+"=1")
	err = syscall.Exec(cc.path, argv, env)
	fmt.Fprintf(stderr, "%s: running %s: %v\n", l.Name, cc.path, err)
	return exitFailure
}

// selfPath is this executable with symlinks resolved: mpicc -> hympicc
// gives hympicc's path, the one a candidate compiler is compared with.
func selfPath() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return exe
}

type mode int

const (
	modeRun mode = iota
	modeHelp
	modeVersion
	modeShow        // the whole command line
	modeCompile     // compile flags (Open MPI)
	modeLink        // link flags (Open MPI)
	modeCompileInfo // MPICH's: the same as modeShow
	modeLinkInfo    // MPICH's: the same as modeShow
	modeCommand     // the compiler
	modeIncdirs
	modeLibdirs
	modeLibs
	modeShowVersion
)

// showOpts are the query options, with the spellings Open MPI and MPICH
// accept; each is also accepted with the other number of dashes.
var showOpts = map[string]mode{
	"showme":             modeShow,
	"show":               modeShow,
	"showme:compile":     modeCompile,
	"showme:link":        modeLink,
	"compile_info":       modeCompileInfo,
	"compile-info":       modeCompileInfo,
	"link_info":          modeLinkInfo,
	"link-info":          modeLinkInfo,
	"showme:command":     modeCommand,
	"showme:incdirs":     modeIncdirs,
	"showme:libdirs":     modeLibdirs,
	"showme:libs":        modeLibs,
	"showme:version":     modeShowVersion,
	"showme:help":        modeHelp,
	"help":               modeHelp,
	"version":            modeVersion,
	"showme:libs_static": modeLibs,
}

// parseArgs takes the wrapper's own options out of args. Only exact
// spellings are taken; anything else, however close, goes to the compiler.
func parseArgs(args []string) (mode, []string, error) {
	m := modeRun
	var rest []string
	for _, a := range args {
		name, ok := strings.CutPrefix(a, "--")
		if !ok {
			name, ok = strings.CutPrefix(a, "-")
		}
		opt, known := showOpts[name]
		if !ok || !known {
			if ok && strings.HasPrefix(name, "showme:") {
				return 0, nil, errors.New("unknown option " + a +
					" (want --showme, --showme:compile, --showme:link, --showme:command, --showme:incdirs, --showme:libdirs, --showme:libs or --showme:version)")
			}
			rest = append(rest, a)
			continue
		}
		if m != modeRun && m != opt {
			return 0, nil, fmt.Errorf("%s cannot be combined with another query option", a)
		}
		m = opt
	}
	return m, rest, nil
}

func (l Lang) compileFlags(in install) []string { return []string{"-I" + in.include} }

func (l Lang) linkFlags(in install) []string {
	f := []string{"-L" + in.lib, "-Wl,-rpath," + in.lib}
	for _, lib := range l.Libs {
		f = append(f, "-l"+lib)
	}
	return f
}

// linking reports whether a compiler given args links (no -c, -S, -E, -M,
// -MM or -fsyntax-only).
func linking(args []string) bool {
	for _, a := range args {
		switch a {
		case "-c", "-S", "-E", "-M", "-MM", "-fsyntax-only":
			return false
		}
	}
	return true
}

// command is the compiler command line for args.
func (l Lang) command(in install, cc choice, args []string) []string {
	cmd := append(append([]string{}, cc.argv...), l.compileFlags(in)...)
	cmd = append(cmd, args...)
	if linking(args) {
		cmd = append(cmd, l.linkFlags(in)...)
	}
	return cmd
}

// show answers a query option; ok is false for the modes that run the compiler.
func (l Lang) show(m mode, in install, cc choice, rest []string) (string, bool) {
	switch m {
	case modeShow:
		return quote(l.command(in, cc, rest)), true
	case modeCompile:
		return quote(l.compileFlags(in)), true
	case modeLink:
		return quote(l.linkFlags(in)), true
	case modeCompileInfo, modeLinkInfo:
		// As MPICH: both are the -show line.
		return quote(l.command(in, cc, rest)), true
	case modeCommand:
		return quote(cc.argv), true
	case modeIncdirs:
		return quote([]string{in.include}), true
	case modeLibdirs:
		return quote([]string{in.lib}), true
	case modeLibs:
		return strings.Join(l.Libs, " "), true
	case modeShowVersion:
		return fmt.Sprintf("%s: %s (Language: %s)", l.Name, version.String(), l.Language), true
	}
	return "", false
}

// quote joins words for a shell (and for CMake's parser, which accepts
// double quotes): words with spaces or quotes are double-quoted.
func quote(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w == "" || strings.ContainsAny(w, " \t\n\"'\\$`") {
			w = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`, "`", "\\`").Replace(w) + `"`
		}
		out[i] = w
	}
	return strings.Join(out, " ")
}

func (l Lang) usageLine() string {
	return fmt.Sprintf("usage: %s [--showme[:compile|:link|:command|...]] [--version] [--help] [compiler arguments...]\n", l.Name)
}

func (l Lang) usage() string {
	return l.usageLine() + fmt.Sprintf(`
%[1]s compiles and links %[2]s MPI programs against hympi:

  %[1]s prog%[3]s -o prog && hympirun -n 4 ./prog

It runs the %[2]s compiler with hympi's include directory and, when linking,
its libraries (%[4]s) with an rpath. Other arguments go to the compiler.

Options (one dash or two):
  --showme, -show        print the command line it would run, and exit
  --showme:compile       print the compile flags
  --showme:link          print the link flags
  -compile_info, -link_info   the same as -show, as MPICH's
  --showme:command       print the compiler it chose
  --showme:incdirs       print the include directory
  --showme:libdirs       print the library directory
  --showme:libs          print the libraries, without -l
  --showme:version       print hympi's version
  --version              print hympi's version, then the compiler's
  --help                 print this help

Environment:
  %[5]s  the compiler (else %[6]s); a value naming an MPI
                  wrapper (hympi's, mpicc, ...) is skipped, so %[7]s=%[1]s is harmless
  HYMPI_HOME      the directory holding include/ and lib/ (default: beside
                  this executable in the build tree, or its parent when installed)
  %[8]s   set for the compiler; a wrapper that finds it set refuses to
                  run, stopping a compiler that calls a wrapper from looping
`, l.Name, l.Language, l.suffix(), "-l"+strings.Join(l.Libs, " -l"),
		"$"+strings.Join(l.Vars, ", $"), strings.Join(l.Defaults, ", "), l.Vars[len(l.Vars)-1], guardVar)
}

func (l Lang) suffix() string {
	switch l.Language {
	case "C++":
		return ".cpp"
	case "Fortran":
		return ".f90"
	}
	return ".c"
}
