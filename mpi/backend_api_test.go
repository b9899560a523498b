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
var notOnBackends = map[string]string{}

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
