// Package mpi is MPI for Go programs on one Linux machine: ranks are
// processes, messages move through shared memory or by a single direct copy
// between their address spaces, and the calls are the MPI calls you know,
// named in Go style.
//
// # Starting
//
// Build your program with go build, then start N copies of it as one job:
//
//	hympirun -n 4 ./prog
//
// Each copy calls Init, does its work on World(), and calls Finalize (see
// the package example). A program started without hympirun is a job of one
// rank, so the same binary runs alone for a quick test. hympirun reports the
// first rank that fails — a non-zero exit, a crash, an exit without
// Finalize — and stops the others.
//
// # Buffers and types
//
// The methods on Comm take []byte. For slices of numbers use the typed
// functions, which take []T for any Numeric T (the integer, float and
// complex types) and count in elements: SendSlice, RecvSlice, SsendSlice,
// BsendSlice, IsendSlice,
// IrecvSlice, SendrecvSlice, BcastSlice, ReduceSlice, AllreduceSlice,
// ScanSlice, ExscanSlice, GatherSlice, ScatterSlice, AllgatherSlice,
// AlltoallSlice, their v-variants (GathervSlice, ... with counts and
// displacements in elements), ReduceScatterSlice,
// ReduceScatterBlockSlice and the neighbourhood NeighborAllgatherSlice and
// NeighborAlltoallSlice (and their v-variants). Alltoallw and
// NeighborAlltoallw keep []byte and take a Datatype per peer, counting
// elements of it at byte displacements. A Status counts bytes; ElemCount[T] turns that
// into elements. Reductions take an Op: Sum, Prod, Max, Min, the logical
// and bitwise operators, or your own from NewOp. Complex numbers support Sum
// and Prod, as MPI defines.
//
// Bsend copies into an attached buffer: the communicator's
// (Comm.AttachBuffer), else the process's (BufferAttach, or
// BufferAttachAutomatic to let each message have memory of its own).
// BufferIflush and Comm.IflushBuffer return a request that completes once
// the messages buffered so far have left.
//
// # Errors
//
// Every call returns an error whose class (ErrTruncate, ErrRank, ...) says
// what went wrong; use errors.Is(err, mpi.ErrTruncate) or ClassOf(err). Bad
// arguments are refused before anything is sent. A bad HYMPI_* setting in
// the environment is refused by hympirun before the job starts, and by Init.
//
// # Waiting and progress
//
// A blocking call makes progress while it waits: it spins briefly, then
// yields the CPU, then sleeps until a peer wakes it, so a job with more
// ranks than cores stays usable. Nonblocking calls (Isend, Irecv and every
// collective's I-form: Ibarrier, Ibcast, Iallreduce, Igather, ...) return a
// Request to Wait or Test; persistent collectives (the *Init methods) return
// a Persistent to Start again and again. Messages move whenever this rank is
// inside any MPI call. With HYMPI_ASYNC_PROGRESS=on a
// goroutine per rank also moves them while the application computes. Calls
// are safe from several goroutines at once.
//
// # Tuning
//
// Defaults suit most programs. hympi-info shows what a job on this machine
// would use (topology, thresholds, direct copy, shared-memory budget); the
// README lists the HYMPI_* variables: when to copy directly instead of
// through shared memory (HYMPI_DIRECT, HYMPI_THRESHOLD), how much memory
// the job may use (HYMPI_SHM_BUDGET), and more.
package mpi
