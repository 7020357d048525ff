package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// method is one method of the generated StrictServerInterface.
type method struct {
	name     string   // Go name, such as CreateAccount
	request  string   // its request object type
	response string   // its response object type
	bodies   []string // the request object's body fields
}

// readInterface lists the methods of StrictServerInterface in oapi-codegen's
// output, with the body fields of each request object: the generated code, not
// a guess at oapi-codegen's naming rules, says how the bodies are named.
func readInterface(file string) ([]method, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	structs := map[string]*ast.StructType{}
	var iface *ast.InterfaceType
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, s := range g.Specs {
			ts := s.(*ast.TypeSpec)
			switch t := ts.Type.(type) {
			case *ast.StructType:
				structs[ts.Name.Name] = t
			case *ast.InterfaceType:
				if ts.Name.Name == "StrictServerInterface" {
					iface = t
				}
			}
		}
	}
	if iface == nil {
		return nil, fmt.Errorf("%s declares no StrictServerInterface", file)
	}
	var out []method
	for _, fld := range iface.Methods.List {
		ft, ok := fld.Type.(*ast.FuncType)
		if !ok || len(fld.Names) != 1 || len(ft.Params.List) != 2 || len(ft.Results.List) != 2 {
			return nil, fmt.Errorf("%s: StrictServerInterface has a member that is not (ctx, request) (response, error)", file)
		}
		m := method{name: fld.Names[0].Name, request: identName(ft.Params.List[1].Type), response: identName(ft.Results.List[0].Type)}
		req, ok := structs[m.request]
		if !ok {
			return nil, fmt.Errorf("%s: %s takes %q, not a request object struct of the file", file, m.name, m.request)
		}
		for _, rf := range req.Fields.List {
			for _, n := range rf.Names {
				if strings.HasSuffix(n.Name, "Body") {
					m.bodies = append(m.bodies, n.Name)
				}
			}
		}
		out = append(out, m)
	}
	return out, nil
}

func identName(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// handlers is what the hand-written files of the handlers' package say about
// one handler type.
type handlers struct {
	pkg        string          // package name
	alias      string          // the name the generated package is imported as
	importPath string          // the generated package
	written    map[string]bool // methods written by hand, which the generator leaves out
}

// readHandlers parses the hand-written Go files of dir (not tests, not *.gen.go)
// for the methods of typ and for the compile-time check
// `var _ <alias>.StrictServerInterface = (*typ)(nil)`, which must stay: it names
// the generated package the methods implement.
func readHandlers(dir, typ string) (*handlers, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	h := &handlers{written: map[string]bool{}}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, ".gen.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		h.pkg = f.Name.Name
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && receiverName(d.Recv.List[0].Type) == typ {
					h.written[d.Name.Name] = true
				}
			case *ast.GenDecl:
				if alias := interfaceCheck(d, typ); alias != "" {
					h.alias = alias
					h.importPath = importOf(f, alias)
				}
			}
		}
	}
	if h.alias == "" || h.importPath == "" {
		return nil, fmt.Errorf("%s: no `var _ <gen>.StrictServerInterface = (*%s)(nil)` naming an imported package", dir, typ)
	}
	return h, nil
}

func receiverName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	return identName(e)
}

// interfaceCheck returns X of `var _ X.StrictServerInterface = (*typ)(nil)`.
func interfaceCheck(d *ast.GenDecl, typ string) string {
	if d.Tok != token.VAR {
		return ""
	}
	for _, s := range d.Specs {
		vs := s.(*ast.ValueSpec)
		sel, ok := vs.Type.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "StrictServerInterface" || len(vs.Values) != 1 {
			continue
		}
		conv, ok := vs.Values[0].(*ast.CallExpr)
		if !ok {
			continue
		}
		paren, ok := conv.Fun.(*ast.ParenExpr)
		if ok && receiverName(paren.X) == typ {
			if _, star := paren.X.(*ast.StarExpr); star {
				return identName(sel.X)
			}
		}
	}
	return ""
}

// importOf is the path f imports under name (an explicit name, or the last
// element of the path).
func importOf(f *ast.File, name string) string {
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		if (imp.Name != nil && imp.Name.Name == name) || (imp.Name == nil && p[strings.LastIndex(p, "/")+1:] == name) {
			return p
		}
	}
	return ""
}
