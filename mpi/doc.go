// Package mpi is hympi's MPI for Go: the public API (point-to-point,
// communicators, collectives) and the engine behind it — progress, matching,
// and the protocols that move messages through the shared region.
//
// Ranks are separate processes started by hympirun; each calls Init, uses
// World(), and calls Finalize. A program started without hympirun runs as a
// singleton of size 1.
//
// Every blocking call runs the progress engine while it waits: it spins
// briefly, then yields the CPU, then sleeps on its doorbell until a peer
// rings it, so jobs with more ranks than cores stay usable. The engine is
// safe for concurrent use by several goroutines (calls are serialised by one
// lock per process).
//
// Collectives run in the offload engine (coll.go): each started collective
// is a control entry whose schedule of sends, receives and local combining
// the progress engine advances whenever it runs, on the communicator's
// collective context and, for small messages, on each channel's collective
// microchannel. Blocking collectives are start plus wait; the nonblocking
// ones (coll_nb.go) return the request, persistent ones (Persistent) start
// it again on each Start. With HYMPI_ASYNC_PROGRESS=1 a goroutine
// per rank also runs the engine while the application computes.
package mpi
