package main

import "github.com/hympi/hympi/internal/version"

// versionText is what --version prints, in mpirun's form ("mpirun (Open
// MPI) 4.1.4"): the launcher, the project, then release and commit.
func versionText() string {
	return "hympirun (hympi) " + version.Release() + " (commit " + version.Commit() + ")\n"
}
