package proto

import "testing"

// TestReplies checks that a reply finds its request once, and that ids a
// peer could send wrongly — stale, repeated, out of range, zero, another
// slot's generation — find nothing and disturb nothing.
func TestReplies(t *testing.T) {
	var tab Replies[int]
	a, b := new(int), new(int)
	ida := tab.Register(a)
	idb := tab.Register(b)
	if ida == 0 || idb == 0 || ida == idb {
		t.Fatalf("ids %#x %#x", ida, idb)
	}
	bad := []struct {
		name string
		id   uint64
	}{
		{"zero", 0},
		{"out of range", 1<<32 | 99},
		{"low bits only", ida & 0xffffffff},
		{"wrong generation", ida + 1<<32},
		{"max", ^uint64(0)},
	}
	for _, tc := range bad {
		if r := tab.Take(tc.id); r != nil {
			t.Errorf("%s id %#x took a request", tc.name, tc.id)
		}
	}
	if tab.Take(ida) != a {
		t.Fatal("a's reply did not find a")
	}
	if tab.Take(ida) != nil {
		t.Fatal("a repeated reply found something")
	}
	c := new(int)
	idc := tab.Register(c) // reuses a's slot
	if idc&0xffffffff != ida&0xffffffff || idc == ida {
		t.Fatalf("reused slot: id %#x after %#x", idc, ida)
	}
	if tab.Take(ida) != nil {
		t.Fatal("a stale reply took the request that reused its slot")
	}
	if tab.Take(idb) != b || tab.Take(idc) != c {
		t.Fatal("b or c lost")
	}
	n := testing.AllocsPerRun(100, func() { tab.Take(tab.Register(a)) })
	if n != 0 {
		t.Fatalf("%v allocations per register and take", n)
	}
}
