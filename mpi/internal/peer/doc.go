// Package peer owns the engine's per-peer state that does not depend on the
// engine's own types: the thresholds toward a peer (Thresholds: the pair's
// relation on the machine, a tuned profile, HYMPI_THRESHOLD) and the skew
// feedback state kept toward it (Skew). Package mpi's endpoint (one per
// peer, made on first use) holds a Skew next to its channel ends and
// counters, and asks a Thresholds for the threshold when it learns where
// the peer runs.
package peer
