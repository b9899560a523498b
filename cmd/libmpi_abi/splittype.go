package main

/*
#include "cabi.h"
*/
import "C"

import (
	"sync"

	"golang.org/x/sys/unix"

	"github.com/hympi/hympi/topology"
)

// Hardware levels MPI_Comm_split_type knows, outermost first; the C side
// (comm_ext.c) names them in the same order.
const (
	hwMachine = iota
	hwPackage
	hwNUMA
	hwL3
	hwL2
	hwL1
	hwCore
	hwPU
	hwLevels
)

var (
	machineOnce sync.Once
	machine     *topology.Machine
)

// domainOf is the id of the hardware domain of the given level holding CPU
// id (the smallest CPU of the domain), or -1 when unknown.
func domainOf(m *topology.Machine, level, id int) int {
	c := m.Lookup(id)
	if c == nil {
		return -1
	}
	switch level {
	case hwMachine:
		return 0
	case hwPackage:
		return c.Package
	case hwNUMA:
		return c.Node
	case hwCore:
		return c.Siblings[0]
	case hwPU:
		return c.ID
	}
	want := map[int]int{hwL3: 3, hwL2: 2, hwL1: 1}[level]
	for _, k := range c.Caches {
		if k.Level == want && k.HoldsData() && len(k.SharedCPUs) > 0 {
			return k.SharedCPUs[0]
		}
	}
	return -1
}

// hympi_go_hw_colors writes, for each level, the domain this process runs
// in: the one holding every CPU it may run on, or -1 when those CPUs span
// several domains of the level (an unbound process on a machine with
// several cores is in no single core) or the machine cannot tell.
//
//export hympi_go_hw_colors
func hympi_go_hw_colors(out *C.int) {
	colors := intsAt(out, hwLevels)
	for i := range colors {
		colors[i] = -1
	}
	machineOnce.Do(func() { machine, _ = topology.Default() })
	var set unix.CPUSet
	if machine == nil || unix.SchedGetaffinity(0, &set) != nil {
		colors[hwMachine] = 0
		return
	}
	for level := range hwLevels {
		d := -2
		for _, c := range machine.CPUs {
			if !set.IsSet(c.ID) {
				continue
			}
			x := domainOf(machine, level, c.ID)
			if d == -2 {
				d = x
			} else if x != d {
				d = -1
			}
		}
		if d >= 0 {
			colors[level] = C.int(d)
		}
	}
}
