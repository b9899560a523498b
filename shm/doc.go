// Package shm owns hympi's shared region: the one file under /dev/shm that
// every rank of a job maps, its layout, and the lock-free structures laid out
// in it.
//
// The region holds a self-validating header, one block per rank (pid, life
// state, doorbell, summary of non-empty incoming channels, incoming-channel
// table, gate table), an arena from which each ordered pair of ranks gets a
// channel when it first talks (arena.go), and gate blocks, each a
// communicator's arrival counter and generation word for small collectives
// (gate.go). A channel is the DECK design on shared memory: a
// single-producer/single-consumer ring of fixed-size descriptor slots (small
// messages travel inline in the slot), a pool of fixed-size cells owned by the
// sender for larger payloads, and a return ring through which the receiver
// hands cells back once it has copied them out, so steady traffic allocates
// nothing.
//
// The region is mapped at a different address in every process, so it holds
// offsets, never pointers. Every cross-process word is a sync/atomic value at
// an offset the layout guarantees to be 8-byte aligned; the comment at each
// accessor names its writer, its readers and the ordering it relies on. All
// unsafe pointer arithmetic lives in unsafe.go. Everything read from the region
// that a peer wrote (descriptor fields, cell indices) is validated before use:
// a misbehaving peer produces an error, never a read outside the region.
package shm
