// Command gen writes hympi's Fortran bindings from the C ABI's function
// list.
//
// Run it through `go generate ./cmd/libmpi_abi_fort`. It reads
// cmd/libmpi_abi/gen/functions.txt (every C prototype of the standard ABI)
// and cmd/libmpi_abi/include/mpi.h (the constants), and writes into src/:
//
//   - wrappers_gen.c: mpi_x_ for every function whose arguments Fortran can
//     express (gfortran's names: lower case, one trailing underscore;
//     every argument by reference; CHARACTER lengths as trailing size_t),
//     converting integer handles to C handles and back;
//   - mpif.h: the constants, the sentinels' common blocks, and interfaces
//     with unchecked buffer arguments for the routines that take a buffer
//     (so one file may pass REAL and INTEGER buffers to the same routine);
//   - mpi_f08_gen.f90 and mpi_f08_procs_gen.f90: the body of the mpi_f08
//     module (handle types, constants, interfaces to the C entry points;
//     a module procedure per routine with optional ierror);
//   - mpi_gen.f90: the interfaces the mpi module adds to mpif.h's.
//
// Functions taking callbacks are written by hand in src/callbacks.c.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func main() {
	out := flag.String("o", "src", "directory to write the generated files to")
	flag.Parse()
	if err := run(".", *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// handleTypes are the C handle types and their f08 derived types.
var handleTypes = map[string]string{
	"MPI_Comm": "MPI_Comm", "MPI_Datatype": "MPI_Datatype", "MPI_Errhandler": "MPI_Errhandler",
	"MPI_File": "MPI_File", "MPI_Group": "MPI_Group", "MPI_Info": "MPI_Info", "MPI_Message": "MPI_Message",
	"MPI_Op": "MPI_Op", "MPI_Request": "MPI_Request", "MPI_Session": "MPI_Session", "MPI_Win": "MPI_Win",
}

// choiceNames are the void* parameters that are buffers ("choice"
// arguments in the standard's words).
var choiceNames = map[string]bool{
	"buf": true, "sendbuf": true, "recvbuf": true, "buffer": true, "inbuf": true, "outbuf": true,
	"inoutbuf": true, "origin_addr": true, "result_addr": true, "compare_addr": true,
	"buffer_addr": true, "location": true, "base": true, "ibuf": true,
}

// logicalNames are int parameters that are LOGICAL in Fortran.
var logicalNames = map[string]bool{
	"flag": true, "periods": true, "reorder": true, "remain_dims": true, "commute": true,
	"high": true, "weighted": true,
}

// handWritten are implemented in src/callbacks.c or src/fort.c.
var handWritten = map[string]bool{
	"Init": true, "Init_thread": true, "Wtime": true, "Wtick": true, "Aint_add": true, "Aint_diff": true,
	"Comm_get_attr": true, "Comm_set_attr": true, "Attr_get": true, "Attr_put": true,
	"Op_create": true, "Comm_create_errhandler": true, "Comm_create_keyval": true, "Keyval_create": true,
}

// detaches are the functions whose buffer argument is an output: the
// address of the detached buffer.
var detaches = map[string]bool{"Buffer_detach": true, "Comm_detach_buffer": true, "Session_detach_buffer": true}

type kind int

const (
	kChoice    kind = iota
	kInt            // int by value
	kIntPtr         // int* or int[]
	kWide           // MPI_Aint/Count/Offset by value
	kWidePtr        // pointer or array of those
	kHandle         // handle by value
	kHandlePtr      // handle* (in and out)
	kHandleArr      // handle[] (length: arrLen)
	kStatus         // MPI_Status*
	kStatuses       // MPI_Status[]
	kStrIn          // const char*
	kStrOut         // char*
)

type param struct {
	ctype, name string
	k           kind
	handle      string // C handle type for kHandle*
	logical     bool
	isConst     bool
	array       bool   // declared with []
	arrLen      string // C expression for kHandleArr
}

type fn struct {
	name   string // without MPI_
	params []param
	// largeCount: an MPI-4 _c variant, which Fortran has only in mpi_f08,
	// as a second specific procedure of the routine's generic name.
	largeCount bool
}

var protoRE = regexp.MustCompile(`^(.*?)\bMPI_(\w+)\((.*)\);$`)
var paramRE = regexp.MustCompile(`^(const )?([\w ]*?)\s*(\*?)\s*(\w+)(\[\])?$`)

func run(dir, outDir string) error {
	abi := filepath.Join(dir, "..", "libmpi_abi")
	fns, skipped, err := readFuncs(filepath.Join(abi, "gen", "functions.txt"))
	if err != nil {
		return err
	}
	hdr, err := os.ReadFile(filepath.Join(abi, "include", "mpi.h"))
	if err != nil {
		return err
	}
	consts, err := readConsts(hdr)
	if err != nil {
		return err
	}
	f08spec, f08procs := genF08(fns, consts)
	outs := map[string][]byte{
		"wrappers_gen.c":        genC(fns, skipped),
		"mpif.h":                genMpif(fns, consts),
		"mpi_f08_gen.f90":       f08spec,
		"mpi_f08_procs_gen.f90": f08procs,
		"mpi_gen.f90":           genMpiModule(fns),
	}
	for name, b := range outs {
		if err := os.WriteFile(filepath.Join(outDir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func readFuncs(path string) (fns []fn, skipped []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := protoRE.FindStringSubmatch(line)
		if m == nil {
			return nil, nil, fmt.Errorf("cannot parse %q", line)
		}
		name := m[2]
		if handWritten[name] {
			continue
		}
		fun, why := classify(strings.TrimSpace(m[1]), name, m[3])
		if why != "" {
			skipped = append(skipped, "MPI_"+name+": "+why)
			continue
		}
		fns = append(fns, fun)
	}
	return fns, skipped, sc.Err()
}

// classify decides how each parameter crosses from Fortran to C, or why
// the function has no Fortran binding here.
func classify(ret, name, params string) (fn, string) {
	f := fn{name: name, largeCount: strings.HasSuffix(name, "_c")}
	switch {
	case strings.HasSuffix(name, "_toint"), strings.HasSuffix(name, "_fromint"):
		return f, "C only"
	case ret != "int":
		return f, "returns " + ret
	case strings.HasPrefix(name, "T_"):
		return f, "tool interface"
	case strings.HasPrefix(name, "Neighbor_alltoallw"), strings.HasPrefix(name, "Ineighbor_alltoallw"):
		return f, "datatype arrays sized by the topology"
	}
	if params == "void" {
		return f, ""
	}
	for _, raw := range strings.Split(params, ",") {
		raw = strings.TrimSpace(raw)
		raw = strings.Replace(raw, "* ", "*", 1)
		if strings.Contains(raw, "ranges[][3]") {
			f.params = append(f.params, param{ctype: "int", name: "ranges", k: kIntPtr, array: true})
			continue
		}
		m := paramRE.FindStringSubmatch(raw)
		if m == nil {
			return f, "parameter " + raw
		}
		p := param{ctype: m[2], name: m[4], isConst: m[1] != "", array: m[5] == "[]"}
		ptr := m[3] == "*" || m[5] == "[]"
		switch {
		case p.ctype == "void" && ptr && name == "Alloc_mem" && p.name == "baseptr":
			// The address of the memory: INTEGER(MPI_ADDRESS_KIND) in
			// mpif.h and mpi, TYPE(C_PTR) in mpi_f08; 8 bytes either way.
			p.k = kWidePtr
			p.ctype = "MPI_Aint"
		case p.ctype == "void" && ptr:
			if !choiceNames[p.name] {
				return f, "untyped parameter " + p.name
			}
			p.k = kChoice
		case p.ctype == "int":
			p.k = kInt
			if ptr {
				p.k = kIntPtr
			}
			p.logical = logicalNames[p.name]
		case p.ctype == "MPI_Aint" || p.ctype == "MPI_Count" || p.ctype == "MPI_Offset":
			p.k = kWide
			if ptr {
				p.k = kWidePtr
			}
		case handleTypes[p.ctype] != "":
			p.handle = p.ctype
			switch {
			case m[5] == "[]":
				p.k = kHandleArr
			case ptr && p.name == "array_of_requests":
				p.k = kHandleArr
			case ptr:
				p.k = kHandlePtr
			default:
				p.k = kHandle
			}
		case p.ctype == "MPI_Status":
			p.k = kStatus
			if m[5] == "[]" || p.name == "array_of_statuses" {
				p.k = kStatuses
			}
		case p.ctype == "char" && ptr && m[3] == "*" && m[5] == "":
			p.k = kStrOut
			if p.isConst {
				p.k = kStrIn
			}
		case p.ctype == "char" && p.isConst && m[5] == "[]":
			p.k = kStrIn
		default:
			return f, "parameter " + raw
		}
		f.params = append(f.params, p)
	}
	for i := range f.params {
		p := &f.params[i]
		if p.k != kHandleArr {
			continue
		}
		switch p.name {
		case "array_of_requests", "array_of_types":
			if f.has("incount") {
				p.arrLen = "*incount"
			} else {
				p.arrLen = "*count"
			}
		case "array_of_datatypes":
			if !f.has("max_datatypes") {
				return f, "datatype array without length"
			}
			p.arrLen = "*max_datatypes"
		case "sendtypes", "recvtypes":
			p.arrLen = "hf_comm_span(*comm)"
		default:
			return f, "handle array " + p.name
		}
	}
	return f, ""
}

// distinct says whether a generic can tell the two apart: some argument is
// a default INTEGER in one and 8 bytes wide in the other (where only
// MPI_Aint becomes MPI_Count both are 8 bytes, and the _c variant stays a
// procedure of its own name).
func distinct(base, large fn) bool {
	if len(base.params) != len(large.params) {
		return false
	}
	for i, p := range base.params {
		q := large.params[i]
		if (p.k == kInt && q.k == kWide) || (p.k == kIntPtr && q.k == kWidePtr) {
			return true
		}
	}
	return false
}

func (f fn) has(name string) bool {
	for _, p := range f.params {
		if p.name == name {
			return true
		}
	}
	return false
}

func (f fn) hasChoice() bool {
	for _, p := range f.params {
		if p.k == kChoice {
			return true
		}
	}
	return false
}

// ---- C wrappers -------------------------------------------------------

func cParam(p param) string {
	c := "const "
	if !p.isConst && p.k != kInt && p.k != kWide && p.k != kHandle && p.k != kStrIn {
		c = ""
	}
	switch p.k {
	case kChoice:
		return c + "void *" + p.name
	case kInt, kIntPtr, kHandle, kHandlePtr, kHandleArr:
		return c + "MPI_Fint *" + p.name
	case kWide, kWidePtr:
		return c + p.ctype + " *" + p.name
	case kStatus, kStatuses:
		return c + "MPI_Status *" + p.name
	case kStrIn, kStrOut:
		return c + "char *" + p.name
	}
	panic("kind")
}

func genC(fns []fn, skipped []string) []byte {
	var b bytes.Buffer
	b.WriteString("/* GENERATED by `go generate ./cmd/libmpi_abi_fort` (gen/main.go). DO NOT EDIT.\n *\n")
	b.WriteString(" * The Fortran entry points (gfortran's names) of every C ABI function\n")
	b.WriteString(" * whose arguments Fortran can express. Not bound here:\n")
	for _, s := range skipped {
		if strings.Contains(s, "tool interface") {
			continue
		}
		fmt.Fprintf(&b, " *   %s\n", s)
	}
	b.WriteString(" * (and the MPI_T tool interface). The _c large-count variants have\n")
	b.WriteString(" * entry points for mpi_f08 only. */\n\n")
	b.WriteString("#include \"fort.h\"\n")
	for _, f := range fns {
		writeCWrapper(&b, f)
	}
	// The profiling interface: a tool that defines mpi_x_ reaches ours as
	// pmpi_x_.
	b.WriteString("\n")
	for _, f := range fns {
		low := strings.ToLower(f.name)
		fmt.Fprintf(&b, "#pragma weak pmpi_%s_ = mpi_%s_\n", low, low)
	}
	return b.Bytes()
}

func writeCWrapper(b *bytes.Buffer, f fn) {
	var args []string
	var lens []string
	for _, p := range f.params {
		args = append(args, cParam(p))
		if p.k == kStrIn || p.k == kStrOut {
			lens = append(lens, "size_t "+p.name+"_len")
		}
	}
	args = append(args, "MPI_Fint *ierr")
	args = append(args, lens...)
	low := strings.ToLower(f.name)
	fmt.Fprintf(b, "\nvoid mpi_%s_(%s)\n{\n", low, strings.Join(args, ", "))
	// always runs after the call whatever it returned: handles come back
	// unchanged from a failed call, and a failed MPI_Waitall (say) has
	// still completed some requests.
	var pre, post, always, call, frees []string
	for _, p := range f.params {
		n := p.name
		switch p.k {
		case kChoice:
			if detaches[f.name] {
				// C returns the buffer's address through it; Fortran
				// has its buffer already and must not get 8 bytes of
				// it overwritten.
				pre = append(pre, fmt.Sprintf("void *d_%s = NULL;", n), fmt.Sprintf("(void)%s;", n))
				call = append(call, "&d_"+n)
				break
			}
			call = append(call, "HF_BUF("+n+")")
		case kInt:
			call = append(call, "*"+n)
		case kIntPtr:
			if strings.HasPrefix(p.name, "weights") || strings.HasSuffix(p.name, "weights") {
				call = append(call, "HF_WEIGHTS("+n+")")
			} else if p.name == "ranges" {
				call = append(call, "(int (*)[3])"+n)
			} else if p.name == "array_of_errcodes" {
				call = append(call, "HF_ERRCODES("+n+")")
			} else {
				call = append(call, n)
			}
		case kWide:
			call = append(call, "*"+n)
		case kWidePtr:
			call = append(call, n)
		case kHandle:
			call = append(call, fmt.Sprintf("(%s)(intptr_t)*%s", p.handle, n))
		case kHandlePtr:
			pre = append(pre, fmt.Sprintf("%s h_%s = (%s)(intptr_t)*%s;", p.handle, n, p.handle, n))
			call = append(call, "&h_"+n)
			always = append(always, fmt.Sprintf("*%s = (MPI_Fint)(intptr_t)h_%s;", n, n))
		case kHandleArr:
			pre = append(pre, fmt.Sprintf("int n_%s = %s;", n, p.arrLen),
				fmt.Sprintf("%s *h_%s = hf_handles_in(%s, n_%s);", p.handle, n, n, n),
				fmt.Sprintf("if (!h_%s && n_%s > 0) { *ierr = hf_nomem(\"MPI_%s\"); return; }", n, n, f.name))
			call = append(call, "h_"+n)
			if !p.isConst {
				always = append(always, fmt.Sprintf("hf_handles_out(%s, (void **)h_%s, n_%s);", n, n, n))
			}
			frees = append(frees, fmt.Sprintf("free(h_%s);", n))
		case kStatus:
			if p.isConst {
				call = append(call, n)
			} else {
				call = append(call, "HF_STATUS("+n+")")
			}
		case kStatuses:
			call = append(call, "HF_STATUSES("+n+")")
		case kStrIn:
			pre = append(pre, fmt.Sprintf("char *s_%s = hf_cstr(%s, %s_len);", n, n, n),
				fmt.Sprintf("if (!s_%s) { *ierr = hf_nomem(\"MPI_%s\"); return; }", n, f.name))
			call = append(call, "s_"+n)
			frees = append(frees, fmt.Sprintf("free(s_%s);", n))
		case kStrOut:
			pre = append(pre, fmt.Sprintf("char *s_%s = hf_cbuf(%s_len);", n, n),
				fmt.Sprintf("if (!s_%s) { *ierr = hf_nomem(\"MPI_%s\"); return; }", n, f.name))
			call = append(call, "s_"+n)
			post = append(post, fmt.Sprintf("hf_fstr(%s, %s_len, s_%s);", n, n, n))
			frees = append(frees, fmt.Sprintf("free(s_%s);", n))
		}
		if p.logical && (p.k == kIntPtr) && !p.isConst && p.name == "flag" {
			post = append(post, fmt.Sprintf("*%s = *%s != 0;", n, n))
		}
	}
	// Fortran counts from 1: the index of a completed request.
	switch f.name {
	case "Waitany", "Testany", "Request_get_status_any":
		post = append(post, "if (*index >= 0) (*index)++;")
	case "Waitsome", "Testsome", "Request_get_status_some":
		post = append(post, "hf_indices_to_f(outcount, array_of_indices);")
	}
	for _, s := range pre {
		fmt.Fprintf(b, "\t%s\n", s)
	}
	fmt.Fprintf(b, "\tint rc = MPI_%s(%s);\n", f.name, strings.Join(call, ", "))
	if len(post) > 0 {
		b.WriteString("\tif (rc == MPI_SUCCESS) {\n")
		for _, s := range post {
			fmt.Fprintf(b, "\t\t%s\n", s)
		}
		b.WriteString("\t}\n")
	}
	for _, s := range always {
		fmt.Fprintf(b, "\t%s\n", s)
	}
	for _, s := range frees {
		fmt.Fprintf(b, "\t%s\n", s)
	}
	b.WriteString("\tif (ierr) *ierr = rc;\n}\n")
}

// ---- constants --------------------------------------------------------

type konst struct {
	name string
	val  int64
	typ  string // "" integer, or a handle type
}

var defRE = regexp.MustCompile(`(?m)^#define (MPI_\w+)\s+\(\((MPI_\w+)\)(0x[0-9a-fA-F]+|-?\d+)\)`)
var aliasRE = regexp.MustCompile(`(?m)^#define (MPI_\w+)\s+(MPI_\w+)\s*$`)
var numRE = regexp.MustCompile(`(?m)^#define (MPI_\w+)\s+(\d+)\s*$`)
var enumRE = regexp.MustCompile(`(?m)^\s+(MPI_\w+)\s*=\s*(-?(?:0x[0-9a-fA-F]+|\d+)),?\s*$`)

func readConsts(hdr []byte) ([]konst, error) {
	var out []konst
	byName := map[string]konst{}
	add := func(k konst) {
		if _, dup := byName[k.name]; dup {
			return
		}
		byName[k.name] = k
		out = append(out, k)
	}
	for _, m := range defRE.FindAllSubmatch(hdr, -1) {
		v, err := strconv.ParseInt(string(m[3]), 0, 64)
		if err != nil {
			return nil, err
		}
		if handleTypes[string(m[2])] == "" {
			continue
		}
		add(konst{name: string(m[1]), val: v, typ: string(m[2])})
	}
	for _, m := range aliasRE.FindAllSubmatch(hdr, -1) {
		if k, ok := byName[string(m[2])]; ok {
			k.name = string(m[1])
			add(k)
		}
	}
	for _, m := range numRE.FindAllSubmatch(hdr, -1) {
		v, _ := strconv.ParseInt(string(m[2]), 0, 64)
		name := string(m[1])
		if strings.HasPrefix(name, "MPI_MAX_") {
			v-- // Fortran strings have no terminating NUL
		}
		add(konst{name: name, val: v})
	}
	for _, m := range enumRE.FindAllSubmatch(hdr, -1) {
		v, err := strconv.ParseInt(string(m[2]), 0, 64)
		if err != nil {
			return nil, err
		}
		name := string(m[1])
		switch name {
		case "MPI_F_STATUS_SIZE", "MPI_F_SOURCE", "MPI_F_TAG", "MPI_F_ERROR":
			continue
		}
		add(konst{name: name, val: v})
	}
	// Fortran's status is an INTEGER array indexed from 1.
	for _, k := range []konst{{"MPI_STATUS_SIZE", 8, ""}, {"MPI_SOURCE", 1, ""}, {"MPI_TAG", 2, ""},
		{"MPI_ERROR", 3, ""}, {"MPI_ADDRESS_KIND", 8, ""}, {"MPI_OFFSET_KIND", 8, ""},
		{"MPI_COUNT_KIND", 8, ""}, {"MPI_INTEGER_KIND", 4, ""}} {
		add(k)
	}
	return out, nil
}

// ---- mpif.h -----------------------------------------------------------

// sentinels are the Fortran variables whose addresses the C wrappers
// recognise: name, declaration suffix, common block (= C symbol without
// the trailing underscore).
var sentinels = [][3]string{
	{"MPI_BOTTOM", "", "mpi_fortran_bottom"},
	{"MPI_IN_PLACE", "", "mpi_fortran_in_place"},
	{"MPI_STATUS_IGNORE", "(MPI_STATUS_SIZE)", "mpi_fortran_status_ignore"},
	{"MPI_STATUSES_IGNORE", "(MPI_STATUS_SIZE,1)", "mpi_fortran_statuses_ignore"},
	{"MPI_ERRCODES_IGNORE", "(1)", "mpi_fortran_errcodes_ignore"},
	{"MPI_UNWEIGHTED", "(1)", "mpi_fortran_unweighted"},
	{"MPI_WEIGHTS_EMPTY", "(1)", "mpi_fortran_weights_empty"},
}

// fixed writes one statement so that it reads the same as fixed and as
// free source form: text from column 7, at most 72 columns, continued
// with '&' in column 73 (ignored in fixed form) and in column 6.
func fixed(b *bytes.Buffer, stmt string) {
	const width = 66
	first := true
	for len(stmt) > 0 {
		n := len(stmt)
		if n > width {
			n = width
		}
		chunk := stmt[:n]
		stmt = stmt[n:]
		lead := "      "
		if !first {
			lead = "     &"
		}
		first = false
		if len(stmt) > 0 {
			fmt.Fprintf(b, "%s%-66s&\n", lead, chunk)
		} else {
			fmt.Fprintf(b, "%s%s\n", lead, chunk)
		}
	}
}

func genMpif(fns []fn, consts []konst) []byte {
	var b bytes.Buffer
	b.WriteString("! mpif.h: hympi's Fortran constants and interfaces (MPI 5.0 standard ABI).\n")
	b.WriteString("! Valid in fixed and free source form.\n")
	b.WriteString("! GENERATED by `go generate ./cmd/libmpi_abi_fort` (gen/main.go). DO NOT EDIT.\n")
	for _, k := range consts {
		if len(k.name) > 31 {
			continue // Fortran 95's limit; only an MPI_T constant
		}
		fixed(&b, "INTEGER "+k.name)
		fixed(&b, fmt.Sprintf("PARAMETER (%s=%d)", k.name, k.val))
	}
	fixed(&b, "INTEGER(KIND=8) MPI_DISPLACEMENT_CURRENT")
	fixed(&b, "PARAMETER (MPI_DISPLACEMENT_CURRENT=-1)")
	for _, n := range []string{"MPI_SUBARRAYS_SUPPORTED", "MPI_ASYNC_PROTECTS_NONBLOCKING"} {
		fixed(&b, "LOGICAL "+n)
		fixed(&b, "PARAMETER ("+n+"=.FALSE.)")
	}
	for _, s := range sentinels {
		fixed(&b, "INTEGER "+s[0]+s[1])
		fixed(&b, "COMMON /"+s[2]+"/ "+s[0])
	}
	fixed(&b, "EXTERNAL MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK")
	fixed(&b, "DOUBLE PRECISION MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK")
	fixed(&b, "EXTERNAL MPI_AINT_ADD, MPI_AINT_DIFF")
	fixed(&b, "INTEGER(KIND=8) MPI_AINT_ADD, MPI_AINT_DIFF")
	fixed(&b, "EXTERNAL MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN")
	fixed(&b, "EXTERNAL MPI_COMM_DUP_FN, MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN")
	fixed(&b, "EXTERNAL MPI_DUP_FN")
	// Routines with buffers get an interface whose buffer is unchecked, so
	// that one program unit may pass buffers of different types.
	b.WriteString("!     Interfaces of the routines that take buffers.\n")
	fixed(&b, "INTERFACE")
	// MPI_ADDRESS (MPI-1, deleted in MPI-3, src/legacy.c) takes a buffer too.
	address := fn{name: "Address", params: []param{{name: "location", k: kChoice}, {name: "address", k: kIntPtr}}}
	for _, f := range append(fns, address) {
		if !f.hasChoice() || f.largeCount {
			continue
		}
		writeF77Interface(&b, f, true)
	}
	// MPI_F_SYNC_REG (src/fort.c) exists to be opaque; it has no IERROR.
	fixed(&b, "SUBROUTINE MPI_F_SYNC_REG(BUF)")
	b.WriteString("!GCC$ ATTRIBUTES NO_ARG_CHECK :: BUF\n")
	fixed(&b, "INTEGER BUF(*)")
	fixed(&b, "END SUBROUTINE")
	fixed(&b, "END INTERFACE")
	return b.Bytes()
}

// f77Type is the Fortran declaration of p in the mpif.h / mpi bindings.
func f77Type(p param) (typ string, array bool) {
	switch p.k {
	case kInt:
		if p.logical {
			return "LOGICAL", false
		}
		return "INTEGER", false
	case kIntPtr:
		if p.logical {
			return "LOGICAL", p.array
		}
		return "INTEGER", p.array
	case kWide:
		return "INTEGER(KIND=8)", false
	case kWidePtr:
		return "INTEGER(KIND=8)", p.array
	case kHandle, kHandlePtr:
		return "INTEGER", false
	case kHandleArr, kStatus, kStatuses:
		return "INTEGER", true
	case kStrIn, kStrOut:
		return "CHARACTER*(*)", false
	}
	return "", false
}

// writeF77Interface writes the interface of f for mpif.h and the mpi
// module. Buffers are unchecked; with looseArrays, so are the other
// arrays, since classic codes pass a scalar request or status where the
// routine takes an array of one (both files use it: an interface must not
// reject what the same code compiled without one accepted).
func writeF77Interface(b *bytes.Buffer, f fn, looseArrays bool) {
	var names []string
	for _, p := range f.params {
		names = append(names, strings.ToUpper(p.name))
	}
	names = append(names, "IERROR")
	up := "MPI_" + strings.ToUpper(f.name)
	fixed(b, "SUBROUTINE "+up+"("+strings.Join(names, ", ")+")")
	for i, p := range f.params {
		if p.k == kChoice {
			// An INTEGER array rather than TYPE(*), so that
			// -std=f95 and f2008 programs may include mpif.h.
			b.WriteString("!GCC$ ATTRIBUTES NO_ARG_CHECK :: " + names[i] + "\n")
			fixed(b, "INTEGER "+names[i]+"(*)")
			continue
		}
		t, arr := f77Type(p)
		switch {
		case p.name == "ranges":
			fixed(b, t+" "+names[i]+"(3, *)")
		case arr:
			if looseArrays {
				b.WriteString("!GCC$ ATTRIBUTES NO_ARG_CHECK :: " + names[i] + "\n")
			}
			fixed(b, t+" "+names[i]+"(*)")
		default:
			fixed(b, t+" "+names[i])
		}
	}
	fixed(b, "INTEGER IERROR")
	fixed(b, "END SUBROUTINE")
}

// genMpiModule writes the interfaces the mpi module adds to mpif.h's: one
// for every routine without a buffer.
func genMpiModule(fns []fn) []byte {
	var b bytes.Buffer
	b.WriteString("! Interfaces of the routines without buffers, for the mpi module.\n")
	b.WriteString("! GENERATED by `go generate ./cmd/libmpi_abi_fort` (gen/main.go). DO NOT EDIT.\n")
	fixed(&b, "INTERFACE")
	for _, f := range fns {
		if !f.hasChoice() && !f.largeCount {
			writeF77Interface(&b, f, true)
		}
	}
	fixed(&b, "END INTERFACE")
	return b.Bytes()
}

// ---- mpi_f08 ----------------------------------------------------------

// free writes one line of free-form source, continued with '&' where it
// would pass 100 columns.
func free(b *bytes.Buffer, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	for _, line := range strings.Split(text, "\n") {
		freeLine(b, line)
	}
}

func freeLine(b *bytes.Buffer, line string) {
	for len(line) > 100 {
		cut := strings.LastIndex(line[:100], ", ")
		if cut < 0 {
			break
		}
		b.WriteString(line[:cut+1] + " &\n")
		line = "    " + line[cut+2:]
	}
	b.WriteString(line + "\n")
}

func genF08(fns []fn, consts []konst) (spec, procs []byte) {
	var b bytes.Buffer
	free(&b, "! The body of module mpi_f08 (included by mpi_f08.f90).")
	free(&b, "! GENERATED by `go generate ./cmd/libmpi_abi_fort` (gen/main.go). DO NOT EDIT.")
	free(&b, "")
	var types []string
	for _, t := range handleTypes {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		free(&b, "type, bind(C) :: %s\n  integer :: MPI_VAL\nend type", t)
	}
	free(&b, "interface operator(==)")
	for _, t := range types {
		free(&b, "  module procedure hf_eq_%s", strings.ToLower(t[4:]))
	}
	free(&b, "end interface\ninterface operator(/=)")
	for _, t := range types {
		free(&b, "  module procedure hf_ne_%s", strings.ToLower(t[4:]))
	}
	free(&b, "end interface")
	for _, t := range types {
		free(&b, "private :: hf_eq_%s, hf_ne_%s", strings.ToLower(t[4:]), strings.ToLower(t[4:]))
	}
	for _, k := range consts {
		switch {
		case k.typ != "":
			free(&b, "type(%s), parameter :: %s = %s(%d)", handleTypes[k.typ], k.name, handleTypes[k.typ], k.val)
		case k.name == "MPI_DISPLACEMENT_CURRENT":
		default:
			free(&b, "integer, parameter :: %s = %d", k.name, k.val)
		}
	}
	free(&b, "integer(kind=8), parameter :: MPI_DISPLACEMENT_CURRENT = -1")
	free(&b, "logical, parameter :: MPI_SUBARRAYS_SUPPORTED = .false.")
	free(&b, "logical, parameter :: MPI_ASYNC_PROTECTS_NONBLOCKING = .false.")
	// MPI_X and MPI_X_c share the generic name MPI_X: the kind of the
	// counts picks one.
	have := map[string]fn{}
	for _, f := range fns {
		have[f.name] = f
	}
	for _, f := range fns {
		if base := strings.TrimSuffix(f.name, "_c"); f.largeCount && distinct(have[base], f) {
			free(&b, "interface MPI_%s\n  module procedure MPI_%s, MPI_%s\nend interface", base, base, f.name)
		}
	}
	var c bytes.Buffer
	free(&c, "! The procedures of module mpi_f08 (included by mpi_f08.f90 after contains).")
	free(&c, "! GENERATED by `go generate ./cmd/libmpi_abi_fort` (gen/main.go). DO NOT EDIT.")
	for _, t := range types {
		l := strings.ToLower(t[4:])
		free(&c, "\nelemental logical function hf_eq_%s(a, b)\n  type(%s), intent(in) :: a, b\n  hf_eq_%s = a%%MPI_VAL == b%%MPI_VAL\nend function", l, t, l)
		free(&c, "elemental logical function hf_ne_%s(a, b)\n  type(%s), intent(in) :: a, b\n  hf_ne_%s = a%%MPI_VAL /= b%%MPI_VAL\nend function", l, t, l)
	}
	for _, f := range fns {
		writeF08Proc(&c, f)
	}
	return b.Bytes(), c.Bytes()
}

// f08Decl declares p as the mpi_f08 binding does; cside: in the BIND(C)
// interface to the C wrapper.
func f08Decl(p param, cside bool) string {
	intent := ""
	if !cside {
		if p.k == kInt || p.k == kWide || p.k == kHandle || p.k == kStrIn || p.isConst {
			intent = ", intent(in)"
		}
	}
	switch p.k {
	case kChoice:
		if cside {
			return "type(*), dimension(*) :: " + p.name
		}
		return "type(*), dimension(*)" + intent + " :: " + p.name
	case kStrIn, kStrOut:
		if cside {
			return "character(kind=c_char) :: " + p.name + "(*)"
		}
		return "character(len=*)" + intent + " :: " + p.name
	case kHandle, kHandlePtr:
		return "type(" + handleTypes[p.handle] + ")" + intent + " :: " + p.name
	case kHandleArr:
		return "type(" + handleTypes[p.handle] + ")" + intent + " :: " + p.name + "(*)"
	case kWidePtr:
		if p.name == "baseptr" {
			return "type(c_ptr) :: baseptr"
		}
	case kStatus:
		return "type(MPI_Status)" + intent + " :: " + p.name
	case kStatuses:
		return "type(MPI_Status)" + intent + " :: " + p.name + "(*)"
	}
	t, arr := f77Type(p)
	t = strings.Replace(t, "INTEGER(KIND=8)", "integer(kind=MPI_ADDRESS_KIND)", 1)
	t = strings.ToLower(t)
	if p.name == "ranges" {
		return t + intent + " :: ranges(3,*)"
	}
	if arr {
		return t + intent + " :: " + p.name + "(*)"
	}
	return t + intent + " :: " + p.name
}

func writeF08CInterface(b *bytes.Buffer, f fn) {
	var names, lens []string
	for _, p := range f.params {
		names = append(names, p.name)
		if p.k == kStrIn || p.k == kStrOut {
			lens = append(lens, p.name+"_len")
		}
	}
	names = append(names, "ierror")
	names = append(names, lens...)
	low := strings.ToLower(f.name)
	free(b, "subroutine hf_%s(%s) bind(C, name=\"mpi_%s_\")", low, strings.Join(names, ", "), low)
	free(b, "  import")
	for _, p := range f.params {
		free(b, "  %s", f08Decl(p, true))
	}
	free(b, "  integer :: ierror")
	for _, l := range lens {
		free(b, "  integer(c_size_t), value :: %s", l)
	}
	free(b, "end subroutine")
}

func writeF08Proc(b *bytes.Buffer, f fn) {
	var names, call []string
	var lens []string
	for _, p := range f.params {
		names = append(names, p.name)
		call = append(call, p.name)
		if p.k == kStrIn || p.k == kStrOut {
			lens = append(lens, "len("+p.name+", kind=c_size_t)")
		}
	}
	names = append(names, "ierror")
	call = append(call, "ierr")
	call = append(call, lens...)
	free(b, "\nsubroutine MPI_%s(%s)", f.name, strings.Join(names, ", "))
	// A buffer that outlives the call (nonblocking and persistent
	// routines: they return a request) is ASYNCHRONOUS, as the standard
	// declares it.
	async := false
	for _, p := range f.params {
		if p.k == kHandlePtr && p.handle == "MPI_Request" {
			async = true
		}
	}
	for _, p := range f.params {
		d := f08Decl(p, false)
		if p.k == kChoice {
			free(b, "  !GCC$ ATTRIBUTES NO_ARG_CHECK :: %s", p.name)
			if async {
				d = strings.Replace(d, " :: ", ", asynchronous :: ", 1)
			}
		}
		free(b, "  %s", d)
	}
	free(b, "  integer, optional, intent(out) :: ierror")
	free(b, "  integer :: ierr")
	// The C entry point, declared here rather than in the module so that
	// programs see only the standard's names: every argument by
	// reference, CHARACTER lengths passed as gfortran would pass them.
	free(b, "  interface")
	writeF08CInterface(b, f)
	free(b, "  end interface")
	free(b, "  call hf_%s(%s)", strings.ToLower(f.name), strings.Join(call, ", "))
	free(b, "  if (present(ierror)) ierror = ierr")
	free(b, "end subroutine")
}
