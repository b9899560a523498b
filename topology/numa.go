package topology

// ChannelNodes says where the pages of the channels toward each rank
// belong: on the NUMA node the rank runs on, since the receiver reads a
// message more often than the sender writes it (the sender writes a cell
// once; the receiver polls the ring and reads the cell, often before the
// sender's copy of the line is gone). cpus[i] is the CPU rank i was mapped
// to (-1: unknown) and bind the --bind-to policy hympirun bound it by
// (HYMPI_BIND): the rank may run on any CPU of that CPU's domain of the
// kind, so its node is known only when that domain lies inside one node.
//
// Result[i] is rank i's node, or -1 where it is unknown. The result is nil
// when placement cannot matter or cannot be known: a machine of one node,
// ranks not bound (none, or no policy), or a job whose known nodes are all
// the same one (first touch by whichever rank puts the pages there too).
func ChannelNodes(m *Machine, bind string, cpus []int) []int {
	if m == nil || len(m.Nodes) <= 1 {
		return nil
	}
	switch bind {
	case DomainHWThread, DomainCore, DomainL3, DomainNUMA, DomainSocket:
	default:
		return nil
	}
	nodes := make([]int, len(cpus))
	seen := map[int]bool{}
	for i, cpu := range cpus {
		nodes[i] = m.domainNode(cpu, bind)
		if nodes[i] >= 0 {
			seen[nodes[i]] = true
		}
	}
	if len(seen) <= 1 {
		return nil
	}
	return nodes
}

// domainNode is the node holding every CPU of cpu's domain of kind, or -1
// when the CPU is unknown, no node lists it, or the domain spans nodes.
func (m *Machine) domainNode(cpu int, kind string) int {
	if cpu < 0 || m.Lookup(cpu) == nil {
		return -1
	}
	node := -1
	for _, c := range m.Domain(cpu, kind) {
		cc := m.Lookup(c)
		if cc == nil || cc.Node < 0 || (node >= 0 && cc.Node != node) {
			return -1
		}
		node = cc.Node
	}
	return node
}
