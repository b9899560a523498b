// Package topology owns hympi's picture of the machine: which CPUs are
// online, how they group into hardware threads, cores, packages (sockets)
// and NUMA nodes, and which caches they share. From that picture it derives
// the three things the rest of hympi needs from the hardware:
//
//   - the relation of two CPUs (self, smt, shared-cache, intra-socket,
//     inter-socket), by the closest thing they share (relation.go);
//   - the base eager→direct threshold for each relation, and where the
//     threshold in force comes from: environment, a calibrated profile, or
//     the seed study's defaults (threshold.go, profile.go);
//   - where each rank runs under hympirun --map-by and --bind-to, and the
//     relation of ranks bound to domains rather than CPUs (bind.go,
//     domain.go, relation.go).
//
// The machine is read from a sysfs tree rooted at a configurable directory
// (HYMPI_SYSFS, default /sys), so tests and hympi-info can run against the
// fixture trees in testdata/ and the generated trees of two-socket servers
// of internal/sysfsfixture (sysfs.go). The parsers (cpu lists, cache
// sizes, /proc/cpuinfo model names) are pure functions of their input and
// are tested and fuzzed apart from the file reading (cpulist.go, sysfs.go).
//
// The package does not set CPU affinity or measure anything: the launcher
// applies the binding, and hympi-info --tune measures the crossovers that it
// then stores with SaveProfile.
package topology
