package mpi

import (
	"bytes"
	"go/ast"
	"go/build"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"
)

// exportedAPI lists package mpi's exported declarations as the files
// selected by tags declare them: functions and methods with their
// signatures, types with their exported fields, constants and variables
// with their types and values. Doc comments and bodies are left out, so
// two builds compare equal when a caller cannot tell them apart.
func exportedAPI(t *testing.T, tags ...string) []string {
	t.Helper()
	ctx := build.Default
	ctx.BuildTags = tags
	ctx.CgoEnabled = true
	ents, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var api []string
	show := func(n any) string {
		var b bytes.Buffer
		printer.Fprint(&b, fset, n)
		return strings.Join(strings.Fields(b.String()), " ")
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := ctx.MatchFile(".", name); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || d.Name.Name == "goUserOp" {
					continue
				}
				if d.Recv != nil {
					recv := show(d.Recv.List[0].Type)
					if !ast.IsExported(strings.TrimLeft(recv, "*")) {
						continue
					}
				}
				d.Body, d.Doc = nil, nil
				api = append(api, "func "+show(d))
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						line := "type " + s.Name.Name
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, f := range st.Fields.List {
								for _, n := range f.Names {
									if n.IsExported() {
										line += " " + n.Name + ":" + show(f.Type)
									}
								}
							}
						} else {
							line += " " + show(s.Type)
						}
						api = append(api, line)
					case *ast.ValueSpec:
						for i, n := range s.Names {
							if !n.IsExported() {
								continue
							}
							line := d.Tok.String() + " " + n.Name
							if s.Type != nil {
								line += " " + show(s.Type)
							}
							if i < len(s.Values) {
								line += " = " + show(s.Values[i])
							}
							api = append(api, line)
						}
					}
				}
			}
		}
	}
	slices.Sort(api)
	return api
}

// notOnBackends names engine declarations the backends do not have yet,
// each with the reason (a line of exportedAPI's output → why). Keep it
// short: a name here is a program that builds on hympi and not on a
// cluster.
var notOnBackends = map[string]string{
	"func func (c *Comm) AllgatherInit(send, recv []byte) (*Persistent, error)":                                                                               "nbc: persistent collectives not yet on the system-MPI backends",
	"func func (c *Comm) AllgathervInit(send, recv []byte, counts, displs []int) (*Persistent, error)":                                                        "nbc: persistent collectives not yet on the system-MPI backends",
	"func func (c *Comm) AllreduceInit(send, recv []byte, dt Datatype, op Op) (*Persistent, error)":                                                           "nbc: persistent collectives not yet on the system-MPI backends",
	"func func (c *Comm) AlltoallInit(send, recv []byte) (*Persistent, error)":                                                                                "nbc: persistent collectives not yet on the system-MPI backends",
	"func func (c *Comm) AlltoallvInit(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Persistent, error)":                        "nbc: persistent collectives not yet on the system-MPI backends",
	"func func (c *Comm) BarrierInit() (*Persistent, error)":                                                                                                  "nbc: persistent collectives not yet on the system-MPI backends",
	"func func (c *Comm) BcastInit(buf []byte, root int) (*Persistent, error)":                                                                                "nbc: persistent collectives not yet on the system-MPI backends",
	"func func (c *Comm) ExscanInit(send, recv []byte, dt Datatype, op Op) (*Persistent, error)":                                                              "nbc: persistent collectives not yet on the system-MPI backends",
	"func func (c *Comm) GatherInit(send, recv []byte, root int) (*Persistent, error)":                                                                        "nbc: persistent collectives not yet on the system-MPI backends",
	"func func (c *Comm) GathervInit(send, recv []byte, counts, displs []int, root int) (*Persistent, error)":                                                 "nbc: persistent collectives not yet on the system-MPI backends",
	"func func (c *Comm) Iallgather(send, recv []byte) (*Request, error)":                                                                                     "nbc: nonblocking collective not yet on the system-MPI backends",
	"func func (c *Comm) Iallgatherv(send, recv []byte, counts, displs []int) (*Request, error)":                                                              "nbc: nonblocking collective not yet on the system-MPI backends",
	"func func (c *Comm) Ialltoall(send, recv []byte) (*Request, error)":                                                                                      "nbc: nonblocking collective not yet on the system-MPI backends",
	"func func (c *Comm) Ialltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Request, error)":                              "nbc: nonblocking collective not yet on the system-MPI backends",
	"func func (c *Comm) Iexscan(send, recv []byte, dt Datatype, op Op) (*Request, error)":                                                                    "nbc: nonblocking collective not yet on the system-MPI backends",
	"func func (c *Comm) Igather(send, recv []byte, root int) (*Request, error)":                                                                              "nbc: nonblocking collective not yet on the system-MPI backends",
	"func func (c *Comm) Igatherv(send, recv []byte, counts, displs []int, root int) (*Request, error)":                                                       "nbc: nonblocking collective not yet on the system-MPI backends",
	"func func (c *Comm) IneighborAlltoallv(nb *Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Request, error)":       "nbc: neighbourhood collectives not yet on the system-MPI backends",
	"func func (c *Comm) Ireduce(send, recv []byte, dt Datatype, op Op, root int) (*Request, error)":                                                          "nbc: nonblocking collective not yet on the system-MPI backends",
	"func func (c *Comm) IreduceScatter(send, recv []byte, counts []int, dt Datatype, op Op) (*Request, error)":                                               "nbc: nonblocking collective not yet on the system-MPI backends",
	"func func (c *Comm) IreduceScatterBlock(send, recv []byte, dt Datatype, op Op) (*Request, error)":                                                        "nbc: nonblocking collective not yet on the system-MPI backends",
	"func func (c *Comm) Iscan(send, recv []byte, dt Datatype, op Op) (*Request, error)":                                                                      "nbc: nonblocking collective not yet on the system-MPI backends",
	"func func (c *Comm) Iscatter(send, recv []byte, root int) (*Request, error)":                                                                             "nbc: nonblocking collective not yet on the system-MPI backends",
	"func func (c *Comm) Iscatterv(send []byte, counts, displs []int, recv []byte, root int) (*Request, error)":                                               "nbc: nonblocking collective not yet on the system-MPI backends",
	"func func (c *Comm) NeighborAlltoallv(nb *Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error":                    "nbc: neighbourhood collectives not yet on the system-MPI backends",
	"func func (c *Comm) NeighborAlltoallvInit(nb *Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Persistent, error)": "nbc: neighbourhood collectives not yet on the system-MPI backends",
	"func func (c *Comm) ReduceInit(send, recv []byte, dt Datatype, op Op, root int) (*Persistent, error)":                                                    "nbc: persistent collectives not yet on the system-MPI backends",
	"func func (c *Comm) ReduceScatterBlockInit(send, recv []byte, dt Datatype, op Op) (*Persistent, error)":                                                  "nbc: persistent collectives not yet on the system-MPI backends",
	"func func (c *Comm) ReduceScatterInit(send, recv []byte, counts []int, dt Datatype, op Op) (*Persistent, error)":                                         "nbc: persistent collectives not yet on the system-MPI backends",
	"func func (c *Comm) ScanInit(send, recv []byte, dt Datatype, op Op) (*Persistent, error)":                                                                "nbc: persistent collectives not yet on the system-MPI backends",
	"func func (c *Comm) ScatterInit(send, recv []byte, root int) (*Persistent, error)":                                                                       "nbc: persistent collectives not yet on the system-MPI backends",
	"func func (c *Comm) ScattervInit(send []byte, counts, displs []int, recv []byte, root int) (*Persistent, error)":                                         "nbc: persistent collectives not yet on the system-MPI backends",
	"func func (p *Persistent) Free() error":                                                                                                                  "nbc: persistent collectives not yet on the system-MPI backends",
	"func func (p *Persistent) Start() (*Request, error)":                                                                                                     "nbc: persistent collectives not yet on the system-MPI backends",
	"func func (p *Persistent) Test() (Status, bool, error)":                                                                                                  "nbc: persistent collectives not yet on the system-MPI backends",
	"func func (p *Persistent) Wait() (Status, error)":                                                                                                        "nbc: persistent collectives not yet on the system-MPI backends",
	"func func CartNeighbors(dims []int, periods []bool, rank int) *Neighbors":                                                                                "nbc: neighbourhood collectives not yet on the system-MPI backends",
	"func func IreduceSlice[T Numeric](c *Comm, send, recv []T, op Op, root int) (*Request, error)":                                                           "nbc: nonblocking collective not yet on the system-MPI backends",
	"type Neighbors Sources:[]int Destinations:[]int SendOrder:[]int":                                                                                         "nbc: neighbourhood collectives not yet on the system-MPI backends",
	"type Persistent": "nbc: persistent collectives not yet on the system-MPI backends",
}

// The system-MPI backends (-tags ompi, -tags mpich) declare exactly the
// engine's public API, so a program builds on every backend.
func TestBackendAPIMatchesEngine(t *testing.T) {
	engine := exportedAPI(t)
	if len(engine) < 100 {
		t.Fatalf("found only %d engine declarations", len(engine))
	}
	for _, tag := range []string{"ompi", "mpich"} {
		t.Run(tag, func(t *testing.T) {
			backend := exportedAPI(t, tag)
			for _, d := range engine {
				if _, ok := notOnBackends[d]; !ok && !slices.Contains(backend, d) {
					t.Errorf("-tags %s lacks: %s", tag, d)
				}
			}
			for _, d := range backend {
				if !slices.Contains(engine, d) {
					t.Errorf("-tags %s adds: %s", tag, d)
				}
			}
		})
	}
}
