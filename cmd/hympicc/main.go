// Command hympicc compiles and links C MPI programs against hympi's C ABI
// (libmpi_abi.so.1 and its mpi.h):
//
//	hympicc prog.c -o prog && hympirun -n 4 ./prog
//
// It runs the system C compiler with hympi's include directory and, when
// linking, the library with an rpath, so the program finds libmpi_abi.so.1
// without LD_LIBRARY_PATH. Every argument is passed on unchanged.
//
//	hympicc --showme          print the command line it would run, and exit (also -show)
//	hympicc --showme:compile  print only the compile flags
//	hympicc --showme:link     print only the link flags
//
// The compiler is $HYMPICC_CC, else $CC, else cc. The installation is the
// directory of the hympicc executable (bin/: bin/include, bin/lib), or
// $HYMPI_HOME when set.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	os.Exit(run(os.Stdout, os.Stderr, os.Args[1:]))
}

// install is where hympi's header and library are.
type install struct{ include, lib string }

func locate() (install, error) {
	home := os.Getenv("HYMPI_HOME")
	if home == "" {
		exe, err := os.Executable()
		if err != nil {
			return install{}, err
		}
		if exe, err = filepath.EvalSymlinks(exe); err != nil {
			return install{}, err
		}
		home = filepath.Dir(exe)
	}
	in := install{include: filepath.Join(home, "include"), lib: filepath.Join(home, "lib")}
	if _, err := os.Stat(filepath.Join(in.include, "mpi.h")); err != nil {
		return in, fmt.Errorf("no mpi.h in %s (run make, or set HYMPI_HOME)", in.include)
	}
	return in, nil
}

func (in install) compileFlags() []string { return []string{"-I" + in.include} }

func (in install) linkFlags() []string {
	return []string{"-L" + in.lib, "-Wl,-rpath," + in.lib, "-lmpi_abi"}
}

func compiler() string {
	for _, v := range []string{"HYMPICC_CC", "CC"} {
		if cc := os.Getenv(v); cc != "" {
			return cc
		}
	}
	return "cc"
}

// linking reports whether the compiler will link (no -c, -S, -E or -M*).
func linking(args []string) bool {
	for _, a := range args {
		switch {
		case a == "-c", a == "-S", a == "-E", a == "-M", a == "-MM":
			return false
		}
	}
	return true
}

// command is the compiler command line for args.
func command(in install, args []string) []string {
	cmd := append([]string{compiler()}, in.compileFlags()...)
	cmd = append(cmd, args...)
	if linking(args) {
		cmd = append(cmd, in.linkFlags()...)
	}
	return cmd
}

func run(stdout, stderr io.Writer, args []string) int {
	in, err := locate()
	if err != nil {
		fmt.Fprintln(stderr, "hympicc:", err)
		return 1
	}
	var rest []string
	show := ""
	for _, a := range args {
		if a == "--showme" || strings.HasPrefix(a, "--showme:") {
			show = a
			continue
		}
		if a == "-show" || a == "-showme" { // MPICH's and Open MPI's single-dash spellings
			show = "--showme"
			continue
		}
		rest = append(rest, a)
	}
	switch show {
	case "--showme":
		fmt.Fprintln(stdout, strings.Join(command(in, rest), " "))
		return 0
	case "--showme:compile":
		fmt.Fprintln(stdout, strings.Join(in.compileFlags(), " "))
		return 0
	case "--showme:link":
		fmt.Fprintln(stdout, strings.Join(in.linkFlags(), " "))
		return 0
	case "":
	default:
		fmt.Fprintf(stderr, "hympicc: unknown option %s (want --showme, --showme:compile or --showme:link)\n", show)
		return 2
	}
	if len(rest) == 0 {
		fmt.Fprintln(stderr, "usage: hympicc [--showme[:compile|:link]] [compiler arguments...]")
		return 2
	}
	argv := command(in, rest)
	c := exec.Command(argv[0], argv[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, stdout, stderr
	if err := c.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 {
			return ee.ExitCode()
		}
		fmt.Fprintln(stderr, "hympicc:", err)
		return 1
	}
	return 0
}
