package shm

// Area is a named byte range of a region, for tools that attack it on
// purpose (bench/chaos writes into a live job's region to prove that the
// engine turns damage into errors, never crashes or silent wrong data).
type Area struct {
	Name     string // which structure: "header", "summary", "cells", ...
	Off, Len int64
}

// Areas lists every structure of the region, one entry per rank block field
// group and per part of each channel made so far.
func (r *Region) Areas() []Area {
	l := r.L
	var out []Area
	add := func(name string, off, n int64) { out = append(out, Area{name, off, n}) }
	add("header", 0, headerSize)
	for r := 0; r < l.Ranks; r++ {
		b := l.RankBlockOff + int64(r)*l.RankBlockSize
		add("rank state", b, rbBellSeq)
		add("doorbell", b+rbBellSeq, rbDoorbellLen)
		add("summary", b+rbSummary, 8*int64(l.SummaryWords))
		add("direct bits", b+l.DirectOff, 8*int64(l.SummaryWords))
		add("channel table", b+l.TableOff, 4*int64(l.Ranks))
		add("gate table", b+l.GateTableOff, 8*GateEntries)
	}
	for i := 0; i < r.ChannelsUsed(); i++ {
		c := l.channelBase(i)
		add("return tail", c+l.RetTailOff, 8)
		add("feedback", c+l.FeedbackOff, chFeedbackLen)
		add("channel ident", c+l.IdentOff, 8)
		add("return ring", c+l.RetRingOff, 4*int64(l.CellsPerChannel))
		add("ring", c+l.SlotsOff, int64(l.Slots)*SlotSize)
		add("coll ring", c+l.CollOff, CollSlots*CollSlotSize)
		add("cells", c+l.CellsOff, int64(l.CellsPerChannel)*int64(l.CellSize))
	}
	for i := 0; i < r.GatesUsed(); i++ {
		add("gate", l.GateOff+int64(i)*l.GateStride, gateSize(l.Ranks))
	}
	return out
}
