// Package peer owns the engine's per-peer state: the endpoint a rank keeps
// toward each peer (Endpoint: its channel ends, whether the peer can read
// our memory, the skew feedback toward it and its counters) and the table
// of them by world rank (Table), filled on first use; the thresholds
// toward a peer (Thresholds: the pair's relation on the machine, a tuned
// profile, HYMPI_THRESHOLD); and the skew feedback state (Skew).
//
// Endpoint refers to package mpi's request, unexpected-message and counter
// types, so it is generic over them; package mpi names its instantiation
// once (endpoint) and makes an endpoint when it first deals with a peer,
// asking a Thresholds for the threshold when it learns where the peer runs.
package peer
