package match

import "testing"

type req struct {
	name string
	m    Posted[req]
}

type msg struct {
	name string
	a    Arrived[msg]
}

// TestTakePosted checks which posted receive an arrival takes: the oldest
// matching one over its source's queue and the AnySource queue.
func TestTakePosted(t *testing.T) {
	type post struct {
		name     string
		src, tag int
	}
	tests := []struct {
		name     string
		posts    []post
		src      int
		tag      int32
		want     string // "" for none
		wantLeft int64
	}{
		{"none posted", nil, 1, 5, "", 0},
		{"exact", []post{{"a", 1, 5}}, 1, 5, "a", 0},
		{"other source", []post{{"a", 0, 5}}, 1, 5, "", 1},
		{"other tag", []post{{"a", 1, 6}}, 1, 5, "", 1},
		{"any tag", []post{{"a", 1, AnyTag}}, 1, 5, "a", 0},
		{"any source older wins", []post{{"w", AnySource, 5}, {"a", 1, 5}}, 1, 5, "w", 1},
		{"source older wins", []post{{"a", 1, 5}, {"w", AnySource, 5}}, 1, 5, "a", 1},
		{"first matching of source", []post{{"x", 1, 6}, {"a", 1, 5}, {"b", 1, 5}}, 1, 5, "a", 2},
		{"wildcard behind non-matching", []post{{"x", AnySource, 6}, {"w", AnySource, AnyTag}}, 2, 5, "w", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var live [2]int64
			q := New[req, msg](3, &live)
			rs := make([]req, len(tc.posts))
			for i, p := range tc.posts {
				rs[i].name = p.name
				rs[i].m = Posted[req]{Src: p.src, Tag: p.tag, Seq: uint64(i + 1)}
				q.Post(&rs[i].m, &rs[i])
			}
			got := q.TakePosted(tc.src, tc.tag)
			name := ""
			if got != nil {
				name = got.name
			}
			if name != tc.want {
				t.Fatalf("took %q, want %q", name, tc.want)
			}
			if live[0] != tc.wantLeft {
				t.Fatalf("posted count %d, want %d", live[0], tc.wantLeft)
			}
			if q.HasPosted() != (tc.wantLeft > 0) {
				t.Fatalf("HasPosted %v with %d left", q.HasPosted(), tc.wantLeft)
			}
			for i := range rs {
				q.Unpost(&rs[i].m) // a taken one is left alone
			}
			if live[0] != 0 || q.HasPosted() {
				t.Fatalf("after unposting all: count %d, HasPosted %v", live[0], q.HasPosted())
			}
		})
	}
}

// TestFindUnexpected checks which unexpected message a receive finds: the
// first from its source, or the first in arrival order for AnySource.
func TestFindUnexpected(t *testing.T) {
	type arrival struct {
		name string
		src  int
		tag  int32
	}
	arrivals := []arrival{{"a", 1, 5}, {"b", 0, 5}, {"c", 1, 6}, {"d", 0, 6}}
	tests := []struct {
		name     string
		src, tag int
		want     string
	}{
		{"source and tag", 0, 6, "d"},
		{"source any tag", 0, AnyTag, "b"},
		{"any source tag", AnySource, 6, "c"},
		{"any any", AnySource, AnyTag, "a"},
		{"no such tag", 1, 7, ""},
		{"silent source", 2, AnyTag, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var live [2]int64
			q := New[req, msg](3, &live)
			ms := make([]msg, len(arrivals))
			for i, a := range arrivals {
				ms[i].name = a.name
				ms[i].a = Arrived[msg]{Src: a.src, Tag: a.tag}
				q.AddUnexpected(&ms[i].a, &ms[i])
			}
			got := q.FindUnexpected(tc.src, tc.tag)
			name := ""
			if got != nil {
				name = got.name
				q.RemoveUnexpected(&got.a)
			}
			if name != tc.want {
				t.Fatalf("found %q, want %q", name, tc.want)
			}
			left := int64(len(arrivals))
			if got != nil {
				left--
			}
			if live[1] != left || int64(q.Unexpected()) != left {
				t.Fatalf("counts %d/%d, want %d", live[1], q.Unexpected(), left)
			}
			if got != nil && q.FindUnexpected(tc.src, tc.tag) == got {
				t.Fatal("removed message found again")
			}
			var from []string
			for m := range q.From(1) {
				from = append(from, m.name)
				q.RemoveUnexpected(&m.a) // removal while walking is allowed
			}
			for _, n := range from {
				if n != "a" && n != "c" {
					t.Fatalf("From(1) yielded %q", n)
				}
			}
		})
	}
}

// TestNoAllocs checks that posting, matching and filing allocate nothing.
func TestNoAllocs(t *testing.T) {
	var live [2]int64
	q := New[req, msg](2, &live)
	var r req
	var m msg
	n := testing.AllocsPerRun(100, func() {
		r.m = Posted[req]{Src: 1, Tag: 3, Seq: 1}
		q.Post(&r.m, &r)
		q.TakePosted(1, 3)
		m.a = Arrived[msg]{Src: 1, Tag: 3}
		q.AddUnexpected(&m.a, &m)
		q.RemoveUnexpected(&q.FindUnexpected(AnySource, 3).a)
	})
	if n != 0 {
		t.Fatalf("%v allocations per round", n)
	}
}
