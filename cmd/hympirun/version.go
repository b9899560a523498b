package main

// hympiVersion is the version --version prints. It stands in until the
// build-time version package is wired in: then it returns that version.
func hympiVersion() string { return "devel" }

func versionText() string {
	return "hympirun (hympi) " + hympiVersion() + "\n"
}
