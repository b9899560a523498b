package ctests

// The argument attack's C program, written at test time from the ABI's
// function list: every implemented function (abilist's rule, the one gen/
// uses) is called once with good arguments and then once per bad value of
// each parameter, the others good. Bad values come from the parameter's C
// type (and, for ints, its name): NULL and page-zero pointers, negative
// and huge ints, NULL, garbage, wrong-kind and freed handles, bad entries
// in input arrays. A new function needs no work here unless it has a new
// kind of parameter: one of an unknown type gets zeroes and is listed as
// not attacked until the generator learns it.

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/hympi/hympi/cmd/libmpi_abi/internal/abilist"
)

// attackSkip lists functions not attacked at all, with the reason.
var attackSkip = map[string]string{
	"Abort":    "ends the job by design",
	"Finalize": "ends MPI for the rest of the program",
}

// attackSkipParam lists parameters whose bad values cannot be told from
// good ones by any library, with the reason.
var attackSkipParam = map[string]string{
	"Free_mem.base":                  "any pointer but NULL goes to free()",
	"Comm_set_attr.attribute_val":    "opaque to MPI",
	"Attr_put.attribute_val":         "opaque to MPI",
	"Comm_create_keyval.extra_state": "opaque to MPI",
	"Keyval_create.extra_state":      "opaque to MPI",
	"Win_create_keyval.extra_state":  "opaque to MPI",
	"Win_set_attr.attribute_val":     "opaque to MPI",
	"Type_create_keyval.extra_state": "opaque to MPI",
	"Type_set_attr.attribute_val":    "opaque to MPI",
	"Grequest_start.extra_state":     "opaque to MPI",
	"Get_address.location":           "any address is an address",
	"Info_create_env.argv":           "NULL is MPI_ARGV_NULL",
	"Init.argv":                      "NULL is allowed",
	"Init_thread.argv":               "NULL is allowed",
	"Init.argc":                      "NULL is allowed",
	"Init_thread.argc":               "NULL is allowed",
}

// attackCase is one call of the program: variant 0 of a function is the
// all-good call.
type attackCase struct {
	fn, param, label string
}

type cParam struct {
	typ, name, arr string // typ without const; arr: "", "[]" or "[][3]"
	isConst        bool
}

var paramRE = regexp.MustCompile(`^(.*?)(\w+)((?:\[\w*\])*)$`)

func parseParams(s string) ([]cParam, error) {
	s = strings.TrimSpace(s)
	if s == "void" || s == "" {
		return nil, nil
	}
	var ps []cParam
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "..." {
			continue
		}
		m := paramRE.FindStringSubmatch(f)
		if m == nil {
			return nil, fmt.Errorf("cannot parse parameter %q", f)
		}
		t := strings.TrimSpace(m[1])
		c := strings.HasPrefix(t, "const ")
		t = strings.TrimPrefix(t, "const ")
		t = strings.ReplaceAll(t, " *", "*")
		t = strings.ReplaceAll(t, " ", "")
		ps = append(ps, cParam{typ: t, name: m[2], arr: m[3], isConst: c})
	}
	return ps, nil
}

// handleKinds: C type -> (null constant, hympi kind tag or 0 when the
// library creates none of it, the constructor of a fresh one).
var handleKinds = map[string]struct {
	null  string
	kind  int
	fresh string
	good  string
}{
	"MPI_Comm":       {"MPI_COMM_NULL", 1, "fresh_comm()", "MPI_COMM_WORLD"},
	"MPI_Group":      {"MPI_GROUP_NULL", 2, "fresh_group()", "world_group"},
	"MPI_Request":    {"MPI_REQUEST_NULL", 3, "fresh_req()", "fresh_req()"},
	"MPI_Op":         {"MPI_OP_NULL", 4, "fresh_op()", "MPI_SUM"},
	"MPI_Errhandler": {"MPI_ERRHANDLER_NULL", 5, "fresh_errh()", "MPI_ERRORS_RETURN"},
	"MPI_Datatype":   {"MPI_DATATYPE_NULL", 6, "fresh_type()", "MPI_INT"},
	"MPI_Info":       {"MPI_INFO_NULL", 7, "fresh_info()", "fresh_info()"},
	"MPI_Win":        {"MPI_WIN_NULL", 8, "fresh_win()", "fresh_win()"},
	"MPI_File":       {"MPI_FILE_NULL", 0, "", "MPI_FILE_NULL"},
	"MPI_Session":    {"MPI_SESSION_NULL", 0, "fresh_session()", "fresh_session()"},
	"MPI_Message":    {"MPI_MESSAGE_NULL", 0, "", "MPI_MESSAGE_NO_PROC"},
}

type variant struct {
	label, code string // code: C statements overriding the parameter
}

// badHandles are the bad values of a handle of type t.
func badHandles(t string) []variant {
	h := handleKinds[t]
	vs := []variant{
		{"null handle", h.null},
		{"garbage handle", fmt.Sprintf("(%s)(intptr_t)0x7777777", t)},
		// The reserved range of predefined handles, past any constant
		// and inside the datatypes' block: table lookups by value.
		{"unassigned predefined value", fmt.Sprintf("(%s)(intptr_t)0xfff", t)},
		{"unassigned datatype-range value", fmt.Sprintf("(%s)(intptr_t)0x2ff", t)},
		{"negative handle", fmt.Sprintf("(%s)(intptr_t)-1", t)},
	}
	if h.kind != 0 {
		vs = append(vs,
			variant{"out-of-range handle", fmt.Sprintf("(%s)(intptr_t)0x%x", t, h.kind<<24|0xfffff)},
			variant{"freed handle", strings.Replace(h.fresh, "fresh_", "freed_", 1)})
	}
	wrong := "(intptr_t)MPI_COMM_WORLD"
	if t == "MPI_Comm" {
		wrong = "(intptr_t)MPI_INT"
	}
	vs = append(vs, variant{"handle of another kind", fmt.Sprintf("(%s)%s", t, wrong)})
	return vs
}

// winModes: the state fresh_win_in makes a window in for the calls that
// are good only in it (the others get WIN_LOCKED_ALL: RMA to its rank).
var winModes = map[string]string{
	"Win_free":     "WIN_IDLE",
	"Win_lock":     "WIN_IDLE",
	"Win_lock_all": "WIN_IDLE",
	"Win_post":     "WIN_IDLE",
	"Win_complete": "WIN_STARTED",
	"Win_wait":     "WIN_COMPLETED",
	"Win_test":     "WIN_COMPLETED",
	"Win_unlock":   "WIN_LOCKED",
	"Win_attach":   "WIN_DYNAMIC",
	"Win_detach":   "WIN_DYNAMIC",
	// An attribute set with win_attr_keyval, which the call's keyval is.
	"Win_delete_attr": "WIN_ATTR",
}

// inOutHandles matches the functions whose handle pointers are read as
// well as written (the others only write there: bad values behind them
// mean nothing).
var inOutHandles = regexp.MustCompile(`_free$|_commit$|_disconnect$|_close$|^Wait|^Test|^Start|^Cancel$|^I?[mM]recv`)

// countLike ints give the length of an array or buffer the caller owns:
// a huge value is a lie no library can detect, so only negatives are
// tried.
func countLike(fn, name string) bool {
	switch name {
	case "count", "sendcount", "recvcount", "incount", "outcount", "insize", "outsize", "size", "ndims",
		"maxdims", "blocklength", "valuelen", "argc", "origin_count", "result_count":
		return true
	case "n":
		return strings.HasPrefix(fn, "Group_")
	}
	return false
}

// goodInt is a valid value of an int parameter, by name.
func goodInt(fn, name string) string {
	switch name {
	case "dest", "source":
		return "MPI_PROC_NULL"
	case "count", "sendcount", "recvcount", "incount", "outcount", "n", "ndims", "maxdims", "blocklength", "commute", "nnodes",
		"stride", "disp":
		if fn == "Info_get_nthkey" {
			return "0"
		}
		return "1"
	case "outsize", "insize", "size", "valuelen":
		return "64"
	case "origin_count", "result_count", "target_count", "target_cout", "disp_unit", "logical_size":
		// RMA on the 64-byte window fresh_win() opens to its rank.
		return "1"
	case "lock_type":
		return "MPI_LOCK_SHARED"
	case "partitions":
		return "1"
	case "win_keyval":
		return "fresh_win_keyval()"
	case "errorcode", "errorclass":
		if fn == "Add_error_string" {
			return "user_code"
		}
		return "MPI_ERR_OTHER"
	case "comm_keyval", "keyval":
		return "fresh_keyval()"
	case "split_type":
		return "MPI_COMM_TYPE_SHARED"
	case "required":
		return "MPI_THREAD_SINGLE"
	}
	return "0"
}

func goodIntPtr(name string) string {
	switch name {
	case "buflen":
		return "64"
	case "comm_keyval", "keyval":
		return "fresh_keyval()"
	case "win_keyval":
		return "fresh_win_keyval()"
	}
	return "0"
}

// goodArrayEntry is the value every entry of an int array starts with.
func goodArrayEntry(fn, name string) string {
	switch name {
	case "recvcounts", "sendcounts", "array_of_blocklengths", "array_of_block_lengths":
		return "1"
	case "dims":
		if fn == "Cart_create" {
			return "1"
		}
	}
	return "0"
}

func displLike(name string) bool { return strings.Contains(name, "displ") }

// genAttack writes the C program and returns its cases, in order.
func genAttack(libdir string) (string, []attackCase, []string, error) {
	protos, err := abilist.ReadProtos(libdir + "/gen/functions.txt")
	if err != nil {
		return "", nil, nil, err
	}
	impl, _, err := abilist.Implemented(libdir)
	if err != nil {
		return "", nil, nil, err
	}
	var cases []attackCase
	var skipped []string
	var fns, dispatch strings.Builder
	// HYMPI_ATTACK_ONLY (a regexp on names without MPI_) narrows the
	// attack to the functions being worked on.
	var only *regexp.Regexp
	if o := os.Getenv("HYMPI_ATTACK_ONLY"); o != "" {
		if only, err = regexp.Compile(o); err != nil {
			return "", nil, nil, fmt.Errorf("HYMPI_ATTACK_ONLY: %v", err)
		}
	}
	for _, p := range protos {
		if !impl[p.Name] || only != nil && !only.MatchString(p.Name) {
			continue
		}
		if why, ok := attackSkip[p.Name]; ok {
			skipped = append(skipped, fmt.Sprintf("MPI_%s: %s", p.Name, why))
			continue
		}
		params, err := parseParams(p.Params)
		if err != nil {
			return "", nil, nil, fmt.Errorf("MPI_%s: %v", p.Name, err)
		}
		var decl strings.Builder
		var vars []variant // overrides, numbered from 1
		var vparam []string
		args := make([]string, len(params))
		for i, q := range params {
			a := fmt.Sprintf("a%d", i)
			args[i] = a
			var bad []variant
			key := p.Name + "." + q.name
			switch {
			case handleKinds[q.typ].null != "" && q.arr == "":
				fmt.Fprintf(&decl, "\t%s %s = %s;\n", q.typ, a, handleKinds[q.typ].good)
				if p.Name == "Win_start" && q.typ == "MPI_Group" {
					// A start waits for the targets' posts: with
					// one rank and no post, only none is good.
					fmt.Fprintf(&decl, "\t%s = MPI_GROUP_EMPTY;\n", a)
				}
				if q.typ == "MPI_Win" {
					if m, ok := winModes[p.Name]; ok {
						fmt.Fprintf(&decl, "\t%s = fresh_win_in(%s);\n", a, m)
					}
				}
				if p.Name == "File_set_errhandler" && q.typ == "MPI_Errhandler" {
					// Keep MPI_FILE_NULL's handler counting.
					fmt.Fprintf(&decl, "\t%s = file_counting;\n", a)
				}
				if p.Name == "Session_init" && q.typ == "MPI_Errhandler" {
					// Session_init raises its errors on the
					// handler it is given.
					fmt.Fprintf(&decl, "\t%s = session_counting();\n", a)
				}
				if p.Name == "Type_set_name" {
					fmt.Fprintf(&decl, "\t%s = fresh_type();\n", a)
				}
				if q.typ == "MPI_Comm" && (strings.HasPrefix(p.Name, "Cart_") && p.Name != "Cart_create" || p.Name == "Cartdim_get" ||
					strings.Contains(p.Name, "eighbor_")) {
					fmt.Fprintf(&decl, "\t%s = cart_comm;\n", a)
				}
				if q.typ == "MPI_Comm" && (strings.HasPrefix(p.Name, "Graph_") && p.Name != "Graph_create" && p.Name != "Graph_map" || p.Name == "Graphdims_get") {
					fmt.Fprintf(&decl, "\t%s = graph_comm;\n", a)
				}
				if q.typ == "MPI_Comm" && strings.HasPrefix(p.Name, "Dist_graph_neighbors") {
					fmt.Fprintf(&decl, "\t%s = dist_comm;\n", a)
				}
				for _, v := range badHandles(q.typ) {
					bad = append(bad, variant{v.label, fmt.Sprintf("%s = %s;", a, v.code)})
				}
			case strings.HasSuffix(q.typ, "*") && handleKinds[strings.TrimSuffix(q.typ, "*")].null != "" && q.arr == "",
				handleKinds[q.typ].null != "" && q.arr == "[]":
				// A handle pointer or array: good handles behind it.
				t := strings.TrimSuffix(q.typ, "*")
				fresh := handleKinds[t].fresh
				if fresh == "" || t == "MPI_Datatype" && q.arr == "[]" {
					fresh = handleKinds[t].good
				}
				if m, ok := winModes[p.Name]; ok && t == "MPI_Win" {
					fresh = "fresh_win_in(" + m + ")"
				}
				if q.arr == "[]" {
					fmt.Fprintf(&decl, "\t%s %s_v[4] = {%s, %s, %s, %s};\n", t, a, fresh, fresh, fresh, fresh)
				} else {
					fmt.Fprintf(&decl, "\t%s %s_v[1] = {%s};\n", t, a, fresh)
				}
				fmt.Fprintf(&decl, "\t%s *%s = %s_v;\n", t, a, a)
				bad = append(bad, variant{"NULL", fmt.Sprintf("%s = NULL;", a)}, variant{"page-zero pointer", fmt.Sprintf("%s = (%s *)1;", a, t)})
				if q.isConst || q.arr == "[]" || inOutHandles.MatchString(p.Name) {
					for _, v := range badHandles(t) {
						bad = append(bad, variant{"points to " + v.label, fmt.Sprintf("%s_v[0] = %s;", a, v.code)})
					}
				}
			case q.typ == "MPI_Status*" || q.typ == "MPI_Status" && q.arr == "[]":
				fmt.Fprintf(&decl, "\tMPI_Status %s_v[4];\n\tmemset(%s_v, 0, sizeof %s_v);\n\tMPI_Status *%s = %s_v;\n", a, a, a, a, a)
				bad = append(bad, variant{"NULL (MPI_STATUS_IGNORE)", fmt.Sprintf("%s = NULL;", a)})
			case (q.typ == "int" || q.typ == "MPI_Aint" || q.typ == "MPI_Count" || q.typ == "MPI_Offset") && q.arr == "":
				good := goodInt(p.Name, q.name)
				if p.Name == "Win_delete_attr" && q.name == "win_keyval" {
					good = "win_attr_keyval"
				}
				if q.typ == "MPI_Aint" && q.name == "extent" {
					good = "4"
				}
				fmt.Fprintf(&decl, "\t%s %s = %s;\n", q.typ, a, good)
				vals := []string{"-1", "-999", "INT_MAX"}
				if countLike(p.Name, q.name) || q.typ != "int" {
					vals = vals[:2]
				}
				for _, v := range vals {
					if v == "-1" && q.name == "source" {
						continue // MPI_ANY_SOURCE: a valid receive that waits forever here
					}
					bad = append(bad, variant{v, fmt.Sprintf("%s = %s;", a, v)})
				}
			case (q.typ == "int*" || q.typ == "MPI_Aint*" || q.typ == "MPI_Count*" || q.typ == "MPI_Offset*") && q.arr == "":
				t := strings.TrimSuffix(q.typ, "*")
				fmt.Fprintf(&decl, "\t%s %s_v = %s;\n\t%s *%s = &%s_v;\n", t, a, goodIntPtr(q.name), t, a, a)
				bad = append(bad, variant{"NULL", fmt.Sprintf("%s = NULL;", a)}, variant{"page-zero pointer", fmt.Sprintf("%s = (%s *)1;", a, t)})
				switch q.name {
				case "position", "buflen", "keyval", "comm_keyval", "win_keyval":
					vals := []string{"-1", "-999", "INT_MAX"}
					if q.name == "buflen" {
						vals = vals[:2] // a length: too big is a lie no library can see
					}
					for _, v := range vals {
						bad = append(bad, variant{"points to " + v, fmt.Sprintf("%s_v = %s;", a, v)})
					}
				}
			case (q.typ == "int" || q.typ == "MPI_Aint" || q.typ == "MPI_Count") && q.arr == "[]",
				q.typ == "int" && q.arr == "[][3]":
				t := q.typ
				fmt.Fprintf(&decl, "\t%s %s_v[48];\n\tfor (int i = 0; i < 48; i++) %s_v[i] = %s;\n", t, a, a, goodArrayEntry(p.Name, q.name))
				if q.arr == "[][3]" {
					fmt.Fprintf(&decl, "\t%s_v[2] = 1;\n\tint (*%s)[3] = (int (*)[3])%s_v;\n", a, a, a)
					bad = append(bad, variant{"NULL", fmt.Sprintf("%s = NULL;", a)})
				} else {
					fmt.Fprintf(&decl, "\t%s *%s = %s_v;\n", t, a, a)
					bad = append(bad, variant{"NULL", fmt.Sprintf("%s = NULL;", a)}, variant{"page-zero pointer", fmt.Sprintf("%s = (%s *)1;", a, t)})
				}
				input := q.isConst || q.arr == "[][3]" || p.Name == "Dims_create"
				if input && !displLike(q.name) && t == "int" {
					bad = append(bad, variant{"entry -1", fmt.Sprintf("%s_v[0] = -1;", a)})
					switch q.name {
					case "ranks", "ranks1", "coords", "dims":
						bad = append(bad, variant{"entry INT_MAX", fmt.Sprintf("%s_v[0] = INT_MAX;", a)})
					}
				}
			case q.typ == "void*":
				// Buffers and outputs of any kind: scratch space.
				if p.Name == "Win_detach" {
					fmt.Fprintf(&decl, "\tvoid *%s = dyn_mem;\n", a)
				} else if p.Name == "Buffer_attach" {
					fmt.Fprintf(&decl, "\tvoid *%s = attach_buf;\n", a)
				} else if p.Name == "Free_mem" {
					fmt.Fprintf(&decl, "\tvoid *%s = NULL;\n\tMPI_Alloc_mem(16, MPI_INFO_NULL, &%s);\n", a, a)
				} else {
					fmt.Fprintf(&decl, "\tvoid *%s = scratch[%d];\n", a, i)
				}
				bad = append(bad, variant{"NULL", fmt.Sprintf("%s = NULL;", a)}, variant{"MPI_IN_PLACE", fmt.Sprintf("%s = MPI_IN_PLACE;", a)})
			case q.typ == "char*" && q.arr == "":
				if q.isConst {
					fmt.Fprintf(&decl, "\tconst char *%s = \"hympi\";\n", a)
					bad = append(bad, variant{"NULL", fmt.Sprintf("%s = NULL;", a)}, variant{"page-zero pointer", fmt.Sprintf("%s = (const char *)1;", a)},
						variant{"70000-byte string", fmt.Sprintf("%s = long_string;", a)}, variant{"empty string", fmt.Sprintf("%s = \"\";", a)})
				} else {
					fmt.Fprintf(&decl, "\tchar *%s = (char *)scratch[%d];\n", a, i)
					bad = append(bad, variant{"NULL", fmt.Sprintf("%s = NULL;", a)}, variant{"page-zero pointer", fmt.Sprintf("%s = (char *)1;", a)})
				}
			case q.typ == "char***":
				fmt.Fprintf(&decl, "\tchar ***%s = &main_argv;\n", a)
				bad = append(bad, variant{"NULL", fmt.Sprintf("%s = NULL;", a)})
			case q.typ == "char*" && q.arr == "[]":
				fmt.Fprintf(&decl, "\tchar **%s = main_argv;\n", a)
				bad = append(bad, variant{"NULL", fmt.Sprintf("%s = NULL;", a)})
			case strings.HasSuffix(q.typ, "_function*") || strings.HasSuffix(q.typ, "_function_c*"):
				t := strings.TrimSuffix(q.typ, "*")
				good := "NULL"
				switch t {
				case "MPI_User_function":
					good = "user_op"
				case "MPI_User_function_c":
					good = "user_op_c"
				case "MPI_Comm_errhandler_function":
					good = "user_errh"
				case "MPI_Win_errhandler_function":
					good = "count_win_errors"
				case "MPI_Session_errhandler_function":
					good = "count_session_errors"
				}
				fmt.Fprintf(&decl, "\t%s *%s = %s;\n", t, a, good)
				bad = append(bad, variant{"NULL", fmt.Sprintf("%s = NULL;", a)})
			default:
				// A type the attack does not know yet: zeroes, not
				// attacked, and said so in the tally.
				if strings.HasSuffix(q.typ, "_function") && q.arr == "" {
					// A parameter of function type is a pointer to
					// one; declared as the type, it would be a
					// function.
					fmt.Fprintf(&decl, "\t%s *%s = NULL;\n", q.typ, a)
				} else if q.arr != "" || strings.HasSuffix(q.typ, "*") {
					t := q.typ // the element type of an array
					if q.arr == "" {
						t = strings.TrimSuffix(q.typ, "*")
					}
					fmt.Fprintf(&decl, "\t%s *%s = (%s *)(void *)scratch[%d];\n", t, a, t, i)
				} else {
					fmt.Fprintf(&decl, "\t%s %s;\n\tmemset(&%s, 0, sizeof %s);\n", q.typ, a, a, a)
				}
				skipped = append(skipped, fmt.Sprintf("MPI_%s(%s): type %s%s not known to the attack yet", p.Name, q.name, q.typ, q.arr))
				continue
			}
			if why, ok := attackSkipParam[key]; ok {
				skipped = append(skipped, fmt.Sprintf("MPI_%s(%s): %s", p.Name, q.name, why))
				continue
			}
			for _, v := range bad {
				vars = append(vars, v)
				vparam = append(vparam, q.name)
			}
		}
		call := fmt.Sprintf("MPI_%s(%s)", p.Name, strings.Join(args, ", "))
		fid := len(cases)
		fmt.Fprintf(&fns, "static int call_%s(int v)\n{\n%s\tswitch (v) {\n", p.Name, decl.String())
		for k, v := range vars {
			fmt.Fprintf(&fns, "\tcase %d: %s break;\n", k+1, v.code)
		}
		fns.WriteString("\t}\n")
		// _toint returns a handle's number, not an error code.
		if strings.TrimSpace(p.Ret) == "int" && !strings.HasSuffix(p.Name, "_toint") {
			fmt.Fprintf(&fns, "\treturn %s;\n}\n\n", call)
		} else {
			fmt.Fprintf(&fns, "\t(void)%s;\n\treturn MPI_SUCCESS;\n}\n\n", call)
		}
		cases = append(cases, attackCase{p.Name, "", "all good"})
		for k, v := range vars {
			cases = append(cases, attackCase{p.Name, vparam[k], v.label})
		}
		fmt.Fprintf(&dispatch, "\tif (i < %d) return call_%s(i - %d);\n", len(cases), p.Name, fid)
	}
	sort.Strings(skipped)
	var good []string
	n := len(cases)
	for i := 0; i < n; i++ {
		if cases[i].label == "all good" {
			good = append(good, fmt.Sprint(i))
			cases = append(cases, attackCase{cases[i].fn, "", "after MPI_Finalize"})
		}
	}
	prelude := strings.Replace(attackPrelude, "@NCASES@", fmt.Sprint(n), 1)
	prelude = strings.Replace(prelude, "@GOOD@", fmt.Sprintf("#define NGOOD %d\nstatic const int good_cases[] = {%s};", len(good), strings.Join(good, ", ")), 1)
	src := prelude + fns.String() +
		"static int run_case(int i)\n{\n" + dispatch.String() + "\treturn -1;\n}\n" + attackMain
	return src, cases, skipped, nil
}

const attackPrelude = `/* GENERATED at test time by attackgen_test.go: the C ABI argument attack. */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>

#define NCASES @NCASES@
@GOOD@

static unsigned char scratch[16][1 << 16] __attribute__((aligned(64)));
static char attach_buf[1 << 12];
static char long_string[70001];
static char **main_argv;
static MPI_Comm cart_comm, graph_comm, dist_comm;
static MPI_Errhandler file_counting; /* MPI_FILE_NULL's, counting errors */
static MPI_Group world_group;
static int user_code;

static void user_op(void *in, void *inout, int *len, MPI_Datatype *dt) { (void)in, (void)inout, (void)len, (void)dt; }
static void user_op_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt) { (void)in, (void)inout, (void)len, (void)dt; }
static void user_errh(MPI_Comm *c, int *code, ...) { (void)c, (void)code; }

static MPI_Comm fresh_comm(void) { MPI_Comm c = MPI_COMM_NULL; MPI_Comm_dup(MPI_COMM_WORLD, &c); return c; }
static MPI_Comm freed_comm(void) { MPI_Comm c = fresh_comm(), d = c; MPI_Comm_free(&c); return d; }
static MPI_Group fresh_group(void) { MPI_Group g = MPI_GROUP_NULL; MPI_Comm_group(MPI_COMM_WORLD, &g); return g; }
static MPI_Group freed_group(void) { MPI_Group g = fresh_group(), h = g; MPI_Group_free(&g); return h; }
static MPI_Request fresh_req(void)
{
	static int x;
	MPI_Request r = MPI_REQUEST_NULL;
	MPI_Send_init(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r);
	return r;
}
static MPI_Request freed_req(void) { MPI_Request r = fresh_req(), s = r; MPI_Request_free(&r); return s; }
static MPI_Op fresh_op(void) { MPI_Op o = MPI_OP_NULL; MPI_Op_create(user_op, 1, &o); return o; }
static MPI_Op freed_op(void) { MPI_Op o = fresh_op(), p = o; MPI_Op_free(&o); return p; }
static MPI_Errhandler fresh_errh(void) { MPI_Errhandler e = MPI_ERRHANDLER_NULL; MPI_Comm_create_errhandler(user_errh, &e); return e; }
static MPI_Errhandler freed_errh(void) { MPI_Errhandler e = fresh_errh(), f = e; MPI_Errhandler_free(&e); return f; }
static MPI_Datatype fresh_type(void)
{
	MPI_Datatype t = MPI_DATATYPE_NULL;
	MPI_Type_contiguous(2, MPI_INT, &t);
	MPI_Type_commit(&t);
	return t;
}
static MPI_Datatype freed_type(void) { MPI_Datatype t = fresh_type(), u = t; MPI_Type_free(&t); return u; }
static MPI_Info fresh_info(void)
{
	MPI_Info i = MPI_INFO_NULL;
	MPI_Info_create(&i);
	MPI_Info_set(i, "hympi", "value");
	return i;
}
static MPI_Info freed_info(void) { MPI_Info i = fresh_info(), j = i; MPI_Info_free(&i); return j; }
/* Sessions raise their errors on their own handler, which counts like
 * count_errors (below). */
static void count_session_errors(MPI_Session *s, int *code, ...);
static MPI_Errhandler session_counting(void)
{
	static MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
	if (eh == MPI_ERRHANDLER_NULL) MPI_Session_create_errhandler(count_session_errors, &eh);
	return eh;
}
/* The sessions made, finalized before MPI_Finalize: an open one would keep
 * the engine from finishing. */
static MPI_Session sessions_made[1 << 13];
static int nsessions_made;
static MPI_Session fresh_session(void)
{
	MPI_Session s = MPI_SESSION_NULL;
	MPI_Session_init(MPI_INFO_NULL, session_counting(), &s);
	if (nsessions_made < (int)(sizeof sessions_made / sizeof sessions_made[0]))
		sessions_made[nsessions_made++] = s;
	return s;
}
static int fresh_keyval(void)
{
	int k = MPI_KEYVAL_INVALID;
	MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k, NULL);
	return k;
}
static int fresh_win_keyval(void)
{
	int k = MPI_KEYVAL_INVALID;
	MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &k, NULL);
	return k;
}
/* A live window of 64 bytes on MPI_COMM_SELF, open for RMA to its rank
 * (a passive epoch), its errors counted like the communicators'; the
 * windows a case makes are freed after it (release_wins). */
static void count_win_errors(MPI_Win *w, int *code, ...);
static MPI_Win made_wins[64];
static int nmade_wins;
static char dyn_mem[64];
enum { WIN_LOCKED_ALL, WIN_IDLE, WIN_LOCKED, WIN_STARTED, WIN_COMPLETED, WIN_DYNAMIC, WIN_ATTR };
static int win_attr_keyval = MPI_KEYVAL_INVALID;
static MPI_Win fresh_win_in(int mode)
{
	static MPI_Errhandler weh = MPI_ERRHANDLER_NULL;
	void *base = NULL;
	MPI_Win w = MPI_WIN_NULL;
	MPI_Group self;
	if (weh == MPI_ERRHANDLER_NULL) MPI_Win_create_errhandler(count_win_errors, &weh);
	if (mode == WIN_DYNAMIC) {
		if (MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_SELF, &w) != MPI_SUCCESS) return MPI_WIN_NULL;
	} else if (MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_SELF, &base, &w) != MPI_SUCCESS) {
		return MPI_WIN_NULL;
	}
	MPI_Win_set_errhandler(w, weh);
	switch (mode) {
	case WIN_LOCKED_ALL: MPI_Win_lock_all(0, w); break;
	case WIN_LOCKED: MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w); break;
	case WIN_STARTED:
	case WIN_COMPLETED:
		MPI_Win_get_group(w, &self);
		MPI_Win_post(self, 0, w);
		MPI_Win_start(self, 0, w);
		if (mode == WIN_COMPLETED) MPI_Win_complete(w);
		MPI_Group_free(&self);
		break;
	case WIN_DYNAMIC: MPI_Win_attach(w, dyn_mem, sizeof dyn_mem); break;
	case WIN_ATTR:
		if (win_attr_keyval == MPI_KEYVAL_INVALID) win_attr_keyval = fresh_win_keyval();
		MPI_Win_set_attr(w, win_attr_keyval, dyn_mem);
		break;
	}
	if (nmade_wins < 64) made_wins[nmade_wins++] = w;
	return w;
}
static MPI_Win fresh_win(void) { return fresh_win_in(WIN_LOCKED_ALL); }
static MPI_Win freed_win(void)
{
	MPI_Win w = fresh_win(), v = w;
	MPI_Win_unlock_all(w);
	MPI_Win_free(&w);
	return v;
}
static void release_wins(void)
{
	/* Whatever epoch the case left open is closed, never waited for. */
	for (int i = 0; i < nmade_wins; i++) {
		int done = 0;
		MPI_Win_unlock_all(made_wins[i]);
		MPI_Win_unlock(0, made_wins[i]);
		MPI_Win_complete(made_wins[i]);
		MPI_Win_test(made_wins[i], &done);
		MPI_Win_free(&made_wins[i]);
	}
	nmade_wins = 0;
}

`

const attackMain = `
static int log_fd = -1;
static volatile int current = -1;

/* Every error must reach the communicator's handler, once, with the code
 * the call returns: the handler counts. */
static int eh_calls, eh_code;
static MPI_Errhandler counting;
static void count_errors(MPI_Comm *c, int *code, ...)
{
	(void)c;
	eh_calls++;
	eh_code = *code;
}

static void count_session_errors(MPI_Session *s, int *code, ...)
{
	(void)s;
	eh_calls++;
	eh_code = *code;
}

static void count_win_errors(MPI_Win *w, int *code, ...)
{
	(void)w;
	eh_calls++;
	eh_code = *code;
}

/* Errors of MPI_File_* calls go through MPI_FILE_NULL's handler. */
static void count_file_errors(MPI_File *f, int *code, ...)
{
	(void)f;
	eh_calls++;
	eh_code = *code;
}

static void logline(const char *s)
{
	if (write(log_fd, s, strlen(s)) < 0) _exit(98);
}

static void on_alarm(int sig)
{
	char b[64];
	(void)sig;
	snprintf(b, sizeof b, "H %d\n", current);
	logline(b);
	_exit(97);
}

int main(int argc, char **argv)
{
	main_argv = argv;
	if (argc < 3) {
		fprintf(stderr, "usage: attack LOGFILE FIRSTCASE\n");
		return 2;
	}
	log_fd = open(argv[1], O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (log_fd < 0) return 2;
	int first = atoi(argv[2]);
	MPI_Init(&argc, &argv);
	MPI_Comm_create_errhandler(count_errors, &counting);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, counting);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, counting);
	MPI_File_create_errhandler(count_file_errors, &file_counting);
	MPI_File_set_errhandler(MPI_FILE_NULL, file_counting);
	memset(long_string, 'k', sizeof long_string - 1);
	int dims[1] = {1}, periods[1] = {0}, cls;
	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart_comm);
	/* One node with an edge to itself, plain and distributed (weighted). */
	int gindex[1] = {1}, gedges[1] = {0}, gw[1] = {1};
	MPI_Graph_create(MPI_COMM_WORLD, 1, gindex, gedges, 0, &graph_comm);
	MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, gedges, gw, 1, gedges, gw, MPI_INFO_NULL, 0, &dist_comm);
	MPI_Comm_group(MPI_COMM_WORLD, &world_group);
	MPI_Add_error_class(&cls);
	MPI_Add_error_code(cls, &user_code);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_ONSTACK; /* Go's threads share the process */
	sigaction(SIGALRM, &sa, NULL);
	char b[64];
	for (int i = first; i < NCASES + NGOOD; i++) {
		if (i == NCASES) {
			/* After all that, the library still works: a message to
			 * self, a reduction, a new communicator. */
			int out = 42, in = -1, sum = -1;
			MPI_Comm c = MPI_COMM_NULL;
			int sane = MPI_Sendrecv(&out, 1, MPI_INT, 0, 9, &in, 1, MPI_INT, 0, 9, MPI_COMM_WORLD,
						MPI_STATUS_IGNORE) == MPI_SUCCESS &&
				   in == 42 && MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS &&
				   sum == 42 && MPI_Comm_dup(MPI_COMM_WORLD, &c) == MPI_SUCCESS &&
				   MPI_Comm_free(&c) == MPI_SUCCESS;
			logline(sane ? "SANE\n" : "BROKEN\n");
		}
		if (i == NCASES || (i > NCASES && i == first)) {
			/* Then every function once more, with good arguments,
			 * after MPI_Finalize: an error or success, never a crash. */
			for (int k = 0; k < nsessions_made; k++) MPI_Session_finalize(&sessions_made[k]);
			nsessions_made = 0;
			MPI_Finalize();
		}
		current = i;
		snprintf(b, sizeof b, "C %d\n", i);
		logline(b);
		for (int k = 0; k < 16; k++) memset(scratch[k], 0, 4096);
		eh_calls = 0;
		eh_code = MPI_SUCCESS;
		alarm(20);
		int rc = run_case(i < NCASES ? i : good_cases[i - NCASES]);
		alarm(0);
		int calls = eh_calls, same = eh_code == rc;
		int c = rc;
		if (rc != MPI_SUCCESS && MPI_Error_class(rc, &c) != MPI_SUCCESS) c = -1;
		snprintf(b, sizeof b, "R %d %d %d %d\n", i, c, calls, same);
		logline(b);
		release_wins();
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, counting);
	}
	logline("DONE\n");
	return 0;
}
`
