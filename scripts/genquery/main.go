// Command genquery rewrites the Gin wrappers oapi-codegen generates so that
// each parses the request's query string once.
//
// A generated wrapper binds every query parameter of its operation with
// runtime.BindQueryParameterWithOptions(..., c.Request.URL.Query(), ...), and
// URL.Query parses the raw query afresh on each call: a list operation with
// eight parameters parsed it eight times, which was a sixth of the bytes a
// GET of ten regions allocated. genquery gives each wrapper that calls
// c.Request.URL.Query() one variable holding its result, declared first,
// and uses it in every call. Nothing between those calls changes the URL,
// so the binding is the same.
//
// It runs in `make generate` right after oapi-codegen, on the file it wrote,
// and fails when the file does not look as expected (no wrapper found, or a
// wrapper already declaring the variable), so that a new oapi-codegen that
// changes its output is noticed rather than half rewritten.
//
// Usage: go run ./scripts/genquery gen/backoffice/server.gen.go
package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"

	"github.com/entityapi/entityapi/scripts/internal/genfile"
)

// queryVar is the variable each rewritten wrapper declares.
const queryVar = "query"

func main() {
	genfile.Main("genquery", func(src []byte) ([]byte, error) {
		out, n, err := rewrite(src)
		if err == nil && n == 0 {
			err = errors.New("no ServerInterfaceWrapper method calls c.Request.URL.Query()")
		}
		return out, err
	})
}

// rewrite returns src with every ServerInterfaceWrapper method rewritten as
// the package comment says, and how many were.
func rewrite(src []byte) ([]byte, int, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		return nil, 0, err
	}
	plain := plainFields(file)
	var rewritten []*ast.FuncDecl
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil || !isWrapperMethod(fn) {
			continue
		}
		ctx, ok := ginContextParam(fn)
		if !ok {
			continue
		}
		if declares(fn.Body, queryVar) {
			return nil, 0, fmt.Errorf("%s already declares %q", fn.Name.Name, queryVar)
		}
		calls := 0
		ast.Inspect(fn.Body, func(node ast.Node) bool {
			call, ok := node.(*ast.CallExpr)
			if !ok {
				return true
			}
			for i, arg := range call.Args {
				if isURLQueryCall(arg, ctx) {
					call.Args[i] = ast.NewIdent(queryVar)
					calls++
				}
			}
			return true
		})
		if calls > 0 {
			rewritten = append(rewritten, fn)
		}
		guardAbsent(fn.Body, plain)
	}
	if countURLQueryCalls(file) > 0 {
		return nil, 0, errors.New("c.Request.URL.Query() left outside the wrappers' bindings")
	}
	for _, fn := range rewritten {
		ctx, _ := ginContextParam(fn)
		// query := c.Request.URL.Query()
		decl := &ast.AssignStmt{
			Lhs: []ast.Expr{ast.NewIdent(queryVar)},
			Tok: token.DEFINE,
			Rhs: []ast.Expr{&ast.CallExpr{Fun: &ast.SelectorExpr{
				X:   &ast.SelectorExpr{X: &ast.SelectorExpr{X: ast.NewIdent(ctx), Sel: ast.NewIdent("Request")}, Sel: ast.NewIdent("URL")},
				Sel: ast.NewIdent("Query"),
			}}},
		}
		fn.Body.List = append([]ast.Stmt{decl}, fn.Body.List...)
	}
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, file); err != nil {
		return nil, 0, err
	}
	return buf.Bytes(), len(rewritten), nil
}

// isWrapperMethod reports whether fn is a method of *ServerInterfaceWrapper.
func isWrapperMethod(fn *ast.FuncDecl) bool {
	if fn.Recv == nil || len(fn.Recv.List) != 1 {
		return false
	}
	star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	id, ok := star.X.(*ast.Ident)
	return ok && id.Name == "ServerInterfaceWrapper"
}

// ginContextParam returns the name of fn's one parameter when it is a
// *gin.Context.
func ginContextParam(fn *ast.FuncDecl) (string, bool) {
	params := fn.Type.Params.List
	if len(params) != 1 || len(params[0].Names) != 1 {
		return "", false
	}
	star, ok := params[0].Type.(*ast.StarExpr)
	if !ok {
		return "", false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Context" {
		return "", false
	}
	if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "gin" {
		return "", false
	}
	return params[0].Names[0].Name, true
}

// isURLQueryCall reports whether e is <ctx>.Request.URL.Query().
func isURLQueryCall(e ast.Expr, ctx string) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return false
	}
	query, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || query.Sel.Name != "Query" {
		return false
	}
	url, ok := query.X.(*ast.SelectorExpr)
	if !ok || url.Sel.Name != "URL" {
		return false
	}
	req, ok := url.X.(*ast.SelectorExpr)
	if !ok || req.Sel.Name != "Request" {
		return false
	}
	id, ok := req.X.(*ast.Ident)
	return ok && id.Name == ctx
}

// countURLQueryCalls counts the calls of x.Request.URL.Query(), on any x,
// left in file.
func countURLQueryCalls(file *ast.File) int {
	n := 0
	ast.Inspect(file, func(node ast.Node) bool {
		if call, ok := node.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && len(call.Args) == 0 && sel.Sel.Name == "Query" {
				if url, ok := sel.X.(*ast.SelectorExpr); ok && url.Sel.Name == "URL" {
					if req, ok := url.X.(*ast.SelectorExpr); ok && req.Sel.Name == "Request" {
						n++
					}
				}
			}
		}
		return true
	})
	return n
}

// declares reports whether body declares or assigns an identifier named
// name anywhere.
func declares(body *ast.BlockStmt, name string) bool {
	found := false
	ast.Inspect(body, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.AssignStmt:
			for _, l := range x.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name == name {
					found = true
				}
			}
		case *ast.ValueSpec:
			for _, id := range x.Names {
				if id.Name == name {
					found = true
				}
			}
		}
		return !found
	})
	return found
}
