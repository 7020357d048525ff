// Command genprune removes from a strict server that oapi-codegen generated
// the typed responses nothing uses.
//
// For every operation, oapi-codegen's strict server writes a struct per
// status and media type (ListRegions200ApplicationVndAPIPlusJSONResponse,
// ListRegions400JSONResponse, ...), their headers, the shared responses of
// the document's components, and a Visit<Op>Response method on each: two
// thirds of the back-office server file. The handlers of this service answer
// every operation through the one reply type scripts/genreply writes, so none
// of them is ever built; no setting of oapi-codegen leaves them out.
//
// genprune keeps everything else as oapi-codegen wrote it: the models, the
// parameter and request objects, the <Op>ResponseObject interfaces and the
// StrictServerInterface whose compile-time check the handlers keep. It
// removes the types that have a Visit<Op>Response method, then, while any is
// left unreferenced, the Response and ResponseHeaders types only they used,
// and the imports nothing uses any more. It fails when it finds no typed
// response, so that an oapi-codegen whose output changed is noticed; `go
// build` after it (make generate, make verify) proves nothing kept needed
// what it removed.
//
// Usage: go run ./scripts/genprune gen/backoffice/server.gen.go
package main

import (
	"bytes"
	"errors"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"strconv"
	"strings"

	"github.com/entityapi/entityapi/scripts/internal/genfile"
)

func main() {
	genfile.Main("genprune", prune)
}

// prune returns src without the typed responses, as the package comment says.
func prune(src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	gone := visitors(file)
	if len(gone) == 0 {
		return nil, errors.New("no type with a Visit<Op>Response method: not a strict server as genprune knows it")
	}
	for {
		kept := decls(file, gone, false)
		used, usedByGone := referencedTypes(kept), referencedTypes(decls(file, gone, true))
		more := false
		for _, decl := range file.Decls {
			for _, spec := range typeSpecs(decl) {
				name := spec.Name.Name
				if !gone[name] && isResponseName(name) && !used[name] && usedByGone[name] {
					gone[name] = true
					more = true
				}
			}
		}
		if !more {
			file.Decls = kept
			break
		}
	}
	dropUnusedImports(file)
	file.Comments = commentsWithin(file)
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, file); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// visitors are the types with a Visit<Op>Response method.
func visitors(file *ast.File) map[string]bool {
	out := map[string]bool{}
	for _, decl := range file.Decls {
		if recv := visitReceiver(decl); recv != "" {
			out[recv] = true
		}
	}
	return out
}

// visitReceiver is the receiver type of a Visit<Op>Response method, or "".
func visitReceiver(decl ast.Decl) string {
	fn, ok := decl.(*ast.FuncDecl)
	if !ok || !strings.HasPrefix(fn.Name.Name, "Visit") || !strings.HasSuffix(fn.Name.Name, "Response") {
		return ""
	}
	return receiverName(fn)
}

// isResponseName tells the names oapi-codegen gives response types and their
// headers; an interface <Op>ResponseObject is not one of them.
func isResponseName(name string) bool {
	return strings.HasSuffix(name, "Response") || strings.HasSuffix(name, "ResponseHeaders")
}

// decls are file's declarations without the types in gone and their
// methods (removed false; a type declaration group keeps its other specs), or
// only those (removed true).
func decls(file *ast.File, gone map[string]bool, removed bool) []ast.Decl {
	var out []ast.Decl
	for _, decl := range file.Decls {
		if d := without(decl, gone, removed); d != nil {
			out = append(out, d)
		}
	}
	return out
}

// without is decl keeping only what belongs to gone (removed true) or only
// what does not (removed false); nil when nothing is left.
func without(decl ast.Decl, gone map[string]bool, removed bool) ast.Decl {
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if gone[receiverName(d)] == removed {
			return d
		}
		return nil
	case *ast.GenDecl:
		if d.Tok != token.TYPE {
			if removed {
				return nil
			}
			return d
		}
		var specs []ast.Spec
		for _, spec := range d.Specs {
			if gone[spec.(*ast.TypeSpec).Name.Name] == removed {
				specs = append(specs, spec)
			}
		}
		if len(specs) == 0 {
			return nil
		}
		if len(specs) == len(d.Specs) {
			return d
		}
		copied := *d
		copied.Specs = specs
		return &copied
	}
	if removed {
		return nil
	}
	return decl
}

// receiverName is the type a method is declared on, "" for a function.
func receiverName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) != 1 {
		return ""
	}
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// typeSpecs are decl's type specs.
func typeSpecs(decl ast.Decl) []*ast.TypeSpec {
	d, ok := decl.(*ast.GenDecl)
	if !ok || d.Tok != token.TYPE {
		return nil
	}
	out := make([]*ast.TypeSpec, 0, len(d.Specs))
	for _, spec := range d.Specs {
		out = append(out, spec.(*ast.TypeSpec))
	}
	return out
}

// referencedTypes are the identifiers used in decls other than as the names
// they declare: a superset of the package's types they refer to, which is
// all genprune needs (a name that is not a type is never removed for it).
func referencedTypes(decls []ast.Decl) map[string]bool {
	out := map[string]bool{}
	for _, decl := range decls {
		ast.Inspect(decl, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeSpec:
				ast.Inspect(n.Type, func(m ast.Node) bool {
					if id, ok := m.(*ast.Ident); ok {
						out[id.Name] = true
					}
					return true
				})
				return false
			case *ast.Ident:
				out[n.Name] = true
			}
			return true
		})
	}
	return out
}

// dropUnusedImports removes the imports no declaration refers to any more.
func dropUnusedImports(file *ast.File) {
	used := map[string]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	var imports []*ast.ImportSpec
	for _, decl := range file.Decls {
		d, ok := decl.(*ast.GenDecl)
		if !ok || d.Tok != token.IMPORT {
			continue
		}
		var specs []ast.Spec
		for _, spec := range d.Specs {
			imp := spec.(*ast.ImportSpec)
			if name := importName(imp); name == "_" || name == "." || used[name] {
				specs = append(specs, spec)
				imports = append(imports, imp)
			}
		}
		d.Specs = specs
	}
	file.Imports = imports
}

// importName is the name an import is used by in the file: its explicit name,
// or the last element of its path with a /vN suffix skipped, as Go names it.
func importName(imp *ast.ImportSpec) string {
	if imp.Name != nil {
		return imp.Name.Name
	}
	path, _ := strconv.Unquote(imp.Path.Value)
	parts := strings.Split(path, "/")
	last := parts[len(parts)-1]
	if len(parts) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = parts[len(parts)-2]
	}
	return last
}

// commentsWithin are the file's comments that lie inside a declaration still
// in it (or before the first one: the header and package comment), so that
// a removed declaration's doc comment goes with it.
func commentsWithin(file *ast.File) []*ast.CommentGroup {
	var out []*ast.CommentGroup
	first := file.Package
	for _, cg := range file.Comments {
		if cg.End() <= first {
			out = append(out, cg)
			continue
		}
		for _, decl := range file.Decls {
			start := decl.Pos()
			if doc := docOf(decl); doc != nil {
				start = doc.Pos()
			}
			if cg.Pos() >= start && cg.End() <= decl.End() {
				out = append(out, cg)
				break
			}
		}
	}
	return out
}

// docOf is a declaration's doc comment.
func docOf(decl ast.Decl) *ast.CommentGroup {
	switch d := decl.(type) {
	case *ast.FuncDecl:
		return d.Doc
	case *ast.GenDecl:
		return d.Doc
	}
	return nil
}
