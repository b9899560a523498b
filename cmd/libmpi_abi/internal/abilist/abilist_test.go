package abilist

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestImplemented(t *testing.T) {
	d := t.TempDir()
	files := map[string]string{
		"a.c": "int PMPI_Send(const void *buf, int count)\n{\n}\n" +
			"int PMPI_Recv(void *buf);\n" +
			"\tint PMPI_Indented(void) { } /* not at the line start: inside a macro */\n" +
			"MPI_Aint PMPI_Aint_add(MPI_Aint a, MPI_Aint b) { return a + b; }\n",
		"b.c":         "HC_INTCONV(MPI_Comm, Comm)\nstatic int hc_x(void) { return PMPI_Send(0, 0); }\n",
		"stubs_gen.c": "int PMPI_Stub(void) { return 0; }\n",
	}
	for n, s := range files {
		if err := os.WriteFile(filepath.Join(d, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	impl, byFile, err := Implemented(d)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"Send": true, "Aint_add": true, "Comm_toint": true, "Comm_fromint": true}
	if !reflect.DeepEqual(impl, want) {
		t.Errorf("implemented %v, want %v", impl, want)
	}
	if got := byFile["a"]; !reflect.DeepEqual(got, []string{"Send", "Aint_add"}) {
		t.Errorf("a.c: %v", got)
	}
}

func TestReadProtos(t *testing.T) {
	p := filepath.Join(t.TempDir(), "functions.txt")
	os.WriteFile(p, []byte("# comment\n\nint MPI_Send(const void *buf, int count);\ndouble MPI_Wtime(void);\n"), 0o644)
	ps, err := ReadProtos(p)
	want := []Proto{{"int ", "Send", "const void *buf, int count"}, {"double ", "Wtime", "void"}}
	if err != nil || !reflect.DeepEqual(ps, want) {
		t.Errorf("ReadProtos: %q, %v; want %q", ps, err, want)
	}
	os.WriteFile(p, []byte("int MPI_Send(\n"), 0o644)
	if _, err := ReadProtos(p); err == nil {
		t.Error("a broken line was accepted")
	}
}
