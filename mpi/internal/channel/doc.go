// Package channel holds a rank's two ends of the per-pair channels of the
// shared region: Out, the sending end toward one peer with its queue of
// sends and protocol replies, and In, the receiving end from one peer with
// the multi-fragment message it is in the middle of (a proto.Flight).
//
// The ends refer to the engine's requests and unexpected-message records,
// which are package mpi's types; they are generic over them (R and U), as
// match.Queues is, so nothing is boxed and field accesses compile to the
// same loads as before. Package mpi pushes and drains through them; the
// channel's framing lives in package proto.
package channel
