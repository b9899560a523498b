package main

import (
	"github.com/hympi/hympi/topology"
)

// describeDomains fills in the machine's domains and its CPU pairs by
// relation, over the CPUs hympirun may use.
func (mi *machineInfo) describeDomains(m *topology.Machine, allowed []int) {
	mi.L3Domains = m.Domains(topology.DomainL3)
	mi.Nodes = make([]nodeInfo, 0, len(m.Nodes))
	for _, n := range m.Nodes {
		mi.Nodes = append(mi.Nodes, nodeInfo{ID: n.ID, CPUs: n.CPUs})
	}
	mi.CPUPairs = map[string]int{}
	for r, count := range m.RelationCounts(allowed) {
		if count > 0 {
			mi.CPUPairs[topology.Relation(r).String()] = count
		}
	}
}

// place maps and binds the report's ranks as hympirun would
// (topology.Place, with hympirun's round-robin fallback), and returns what
// classifies their pairs as the engine will: by HYMPI_CPU and HYMPI_BIND.
func (rep *report) place(m *topology.Machine, allowed []int, mapBy, bindTo string) *topology.DomainRelations {
	if mapBy == "" {
		mapBy = topology.DomainCore
	}
	bind := topology.BindPolicy(bindTo)
	if bindTo == "" {
		bind = topology.DefaultBinding(mapBy)
	}
	rep.MapBy, rep.BindTo = mapBy, string(bind)
	n := rep.Ranks
	p := topology.Place(m, allowed, n, mapBy, bind)
	if len(p.CPUs) != n {
		p.CPUs = make([]int, n)
		for i := range p.CPUs {
			p.CPUs[i] = allowed[i%len(allowed)]
		}
		p.Sets = nil
		if bind != topology.BindNone {
			p.Sets = make([][]int, n)
			for i, cpu := range p.CPUs {
				p.Sets[i] = []int{cpu}
			}
		}
	}
	rep.Binding = p.CPUs
	rep.BoundTo = make([]string, n)
	for i := range p.Sets {
		rep.BoundTo[i] = topology.FormatCPUList(p.Sets[i])
	}
	return topology.NewDomainRelations(m, string(bind))
}
