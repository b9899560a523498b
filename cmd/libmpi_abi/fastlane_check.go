package main

/*
#include <stdlib.h>
#include "fastlane.h"

static const int *hc_fl_layout(int *n)
{
	static const int v[] = {
	HC_FL_VERSION, HC_FL_HEADER, HC_FL_ENTRY, HC_FL_RUN, HC_FL_OVERSUB, HC_FL_RANK, HC_FL_SIZE,
	HC_FL_POSTED, HC_FL_UNEXP, HC_FL_SMALL,
	HC_FE_OUT_SLOTS, HC_FE_OUT_N, HC_FE_OUT_POS, HC_FE_SUM_WORD, HC_FE_BELL_SEQ, HC_FE_BELL_SLEEP,
	HC_FE_OUT_OPEN, HC_FE_C_MSGS, HC_FE_IN_SLOTS, HC_FE_IN_N, HC_FE_IN_POS, HC_FE_SND_SEQ,
	HC_FE_SND_SLEEP, HC_FE_IN_KNOWN, HC_FE_IN_STREAM, HC_FE_C_BYTES,
	HC_SLOT_SIZE, HC_DESC_KIND, HC_DESC_FLAGS, HC_DESC_CTX, HC_DESC_TAG, HC_DESC_FRAGLEN,
	HC_DESC_HEADER, HC_INLINE_MAX, HC_KIND_INLINE,
	HC_SPAN_MAX, HC_KIND_SPAN, HC_SPAN_HEAD_MAX, HC_SPAN_NEXT_MAX, HC_FE_SPAN_OUT,
	HC_FL_BUSY, HC_FE_COLL_OUT, HC_FE_COLL_OPOS, HC_FE_COLL_IN, HC_FE_COLL_IPOS, HC_FE_COLL_OPEN,
	HC_COLL_SLOTS, HC_COLL_SLOT_SIZE, HC_COLL_INLINE_MAX, HC_COLL_CTX, HC_COLL_TAG, HC_COLL_LEN,
	HC_COLL_RSVD, HC_COLL_HEADER, HC_COLL_MSG_MAX, HC_COLL_SPAN_MAX_SLOTS,
	};
	*n = sizeof v / sizeof v[0];
	return v;
}
*/
import "C"

import "unsafe"

// The C side of the fast lane's tests (fastlane_test.go): cgo is not
// allowed in test files.

// flLayoutNames lists fastlane.h's constants in hc_fl_layout's order.
var flLayoutNames = []string{
	"VERSION", "HEADER", "ENTRY", "RUN", "OVERSUB", "RANK", "SIZE", "POSTED", "UNEXP", "SMALL",
	"OUT_SLOTS", "OUT_N", "OUT_POS", "SUM_WORD", "BELL_SEQ", "BELL_SLEEP", "OUT_OPEN", "C_MSGS",
	"IN_SLOTS", "IN_N", "IN_POS", "SND_SEQ", "SND_SLEEP", "IN_KNOWN", "IN_STREAM", "C_BYTES",
	"SLOT_SIZE", "DESC_KIND", "DESC_FLAGS", "DESC_CTX", "DESC_TAG", "DESC_FRAGLEN", "DESC_HEADER",
	"INLINE_MAX", "KIND_INLINE",
	"SPAN_MAX", "KIND_SPAN", "SPAN_HEAD_MAX", "SPAN_NEXT_MAX", "SPAN_OUT",
	"BUSY", "COLL_OUT", "COLL_OPOS", "COLL_IN", "COLL_IPOS", "COLL_OPEN", "COLL_SLOTS", "COLL_SLOT_SIZE",
	"COLL_INLINE_MAX", "COLL_CTX", "COLL_TAG", "COLL_LEN", "COLL_RSVD", "COLL_HEADER",
	"COLL_MSG_MAX", "COLL_SPAN_MAX_SLOTS",
}

// flLayout is fastlane.h's view of the layout, by name.
func flLayout() map[string]int {
	var n C.int
	vals := unsafe.Slice(C.hc_fl_layout(&n), int(n))
	m := map[string]int{}
	for i, name := range flLayoutNames {
		if i < len(vals) {
			m[name] = int(vals[i])
		}
	}
	return m
}

// flCheckSlot runs C's receive-rule check on slot (at least a slot's size).
func flCheckSlot(slot []byte, ctx uint32, tag int, capacity, small int64) (uint32, bool) {
	p := C.CBytes(slot)
	defer C.free(p)
	var n C.uint32_t
	ok := C.hc_fl_check_slot((*C.uchar)(p), C.uint32_t(ctx), C.int(tag), C.int64_t(capacity), C.int64_t(small), &n)
	return uint32(n), ok != 0
}

// laneStateOf is the C lane's state of index k (fastlane.h HC_LANE_*).
func laneStateOf(k int) int { return int(C.hc_lane_state[k]) }
