package main

import (
	"bytes"
	"strings"
	"testing"
)

// How each kind of C parameter crosses to Fortran, and what is refused.
func TestClassify(t *testing.T) {
	tests := []struct {
		proto string
		kinds []kind // nil: refused
		why   string
	}{
		{"int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);",
			[]kind{kChoice, kInt, kHandle, kInt, kInt, kHandle}, ""},
		{"int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses);",
			[]kind{kInt, kHandleArr, kStatuses}, ""},
		{"int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen);",
			[]kind{kHandle, kStrOut, kIntPtr}, ""},
		{"int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int nodes[], const int degrees[], const int targets[], const int weights[], MPI_Info info, int reorder, MPI_Comm * newcomm);",
			[]kind{kHandle, kInt, kIntPtr, kIntPtr, kIntPtr, kIntPtr, kHandle, kInt, kHandlePtr}, ""},
		{"int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size);", []kind{kHandle, kWidePtr}, ""},
		{"int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);", []kind{kWide, kHandle, kWidePtr}, ""},
		{"int MPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn, MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request);",
			nil, "parameter"},
		{"int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attr_val);", nil, "untyped"},
		{"int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]);",
			nil, "parameter"},
		{"double MPI_Wtime(void);", nil, "returns"},
	}
	for _, tc := range tests {
		m := protoRE.FindStringSubmatch(tc.proto)
		if m == nil {
			t.Fatalf("cannot parse %q", tc.proto)
		}
		f, why := classify(strings.TrimSpace(m[1]), m[2], m[3])
		if tc.kinds == nil {
			if why == "" || !strings.Contains(why, tc.why) {
				t.Errorf("MPI_%s: reason %q, want one with %q", m[2], why, tc.why)
			}
			continue
		}
		if why != "" {
			t.Errorf("MPI_%s refused: %s", m[2], why)
			continue
		}
		var got []kind
		for _, p := range f.params {
			got = append(got, p.k)
		}
		if len(got) != len(tc.kinds) {
			t.Errorf("MPI_%s: kinds %v, want %v", m[2], got, tc.kinds)
			continue
		}
		for i := range got {
			if got[i] != tc.kinds[i] {
				t.Errorf("MPI_%s: kinds %v, want %v", m[2], got, tc.kinds)
				break
			}
		}
	}
}

// Every line of mpif.h reads the same in fixed and free form: at most 72
// columns of text, an '&' in column 73 and column 6 for continuations,
// comments starting with '!' in column 1.
func TestMpifFixedAndFree(t *testing.T) {
	f := fn{name: "Neighbor_alltoallv_init", params: []param{{name: "sendbuf", k: kChoice}, {name: "sendcounts", k: kIntPtr, array: true},
		{name: "sdispls", k: kIntPtr, array: true}, {name: "sendtype", k: kHandle}, {name: "recvbuf", k: kChoice},
		{name: "recvcounts", k: kIntPtr, array: true}, {name: "rdispls", k: kIntPtr, array: true},
		{name: "recvtype", k: kHandle}, {name: "comm", k: kHandle}, {name: "info", k: kHandle}, {name: "request", k: kHandlePtr}}}
	out := genMpif([]fn{f}, []konst{{name: "MPI_COMM_WORLD", val: 257}})
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	cont := 0
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "!"):
		case len(l) > 73:
			t.Errorf("line %d is %d columns: %q", i+1, len(l), l)
		case len(l) == 73:
			if l[72] != '&' {
				t.Errorf("line %d: column 73 is %q, not '&'", i+1, l[72])
			}
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "     &") {
				t.Errorf("line %d continues, line %d does not start with '     &'", i+1, i+2)
			}
			cont++
		case !strings.HasPrefix(l, "      ") && !strings.HasPrefix(l, "     &"):
			t.Errorf("line %d does not start in column 7: %q", i+1, l)
		}
	}
	if cont == 0 {
		t.Error("the long SUBROUTINE statement was not continued")
	}
	if !bytes.Contains(out, []byte("PARAMETER (MPI_COMM_WORLD=257)")) {
		t.Error("constant missing")
	}
}
