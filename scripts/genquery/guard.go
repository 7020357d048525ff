package main

import (
	"go/ast"
	"go/token"
	"strconv"
)

// bindFunc is the runtime function whose calls guardAbsent guards.
const bindFunc = "BindQueryParameterWithOptions"

// plainTypes are the Go types a guarded parameter may be bound to: those
// BindQueryParameterWithOptions binds as a primitive, from the key alone.
var plainTypes = map[string]bool{
	"string": true, "int": true, "int32": true, "int64": true,
}

// plainFields returns, per struct type of file, the names of its fields
// whose type is a pointer to a plain type (directly or through a type
// declared in file as one).
func plainFields(file *ast.File) map[string]map[string]bool {
	types := map[string]ast.Expr{}
	for _, decl := range file.Decls {
		if gen, ok := decl.(*ast.GenDecl); ok && gen.Tok == token.TYPE {
			for _, spec := range gen.Specs {
				ts := spec.(*ast.TypeSpec)
				types[ts.Name.Name] = ts.Type
			}
		}
	}
	isPlain := func(e ast.Expr) bool {
		for range 8 { // a chain of declared names, bounded
			id, ok := e.(*ast.Ident)
			if !ok {
				return false
			}
			if plainTypes[id.Name] {
				return true
			}
			if e, ok = types[id.Name]; !ok {
				return false
			}
		}
		return false
	}
	out := map[string]map[string]bool{}
	for name, t := range types {
		st, ok := t.(*ast.StructType)
		if !ok {
			continue
		}
		for _, f := range st.Fields.List {
			star, ok := f.Type.(*ast.StarExpr)
			if !ok || !isPlain(star.X) {
				continue
			}
			for _, id := range f.Names {
				if out[name] == nil {
					out[name] = map[string]bool{}
				}
				out[name][id.Name] = true
			}
		}
	}
	return out
}

// guardAbsent rewrites, in body, each statement
//
//	err = runtime.BindQueryParameterWithOptions("form", true, false, "<key>", query, &params.<Field>,
//		runtime.BindQueryParameterOptions{Type: "string" or "integer", Format: ""})
//
// where params is declared as a struct type whose <Field> plainFields lists,
// into
//
//	if _, found := query["<key>"]; found {
//		err = runtime.BindQueryParameterWithOptions(...)
//	}
//
// and returns how many it rewrote.
func guardAbsent(body *ast.BlockStmt, plain map[string]map[string]bool) int {
	paramsType := ""
	n := 0
	guarded := map[ast.Stmt]bool{} // Inspect walks into the if statements it adds
	ast.Inspect(body, func(node ast.Node) bool {
		if vs, ok := node.(*ast.ValueSpec); ok && len(vs.Names) == 1 && vs.Names[0].Name == "params" {
			if id, ok := vs.Type.(*ast.Ident); ok {
				paramsType = id.Name
			}
		}
		return true
	})
	ast.Inspect(body, func(node ast.Node) bool {
		block, ok := node.(*ast.BlockStmt)
		if !ok {
			return true
		}
		for i, stmt := range block.List {
			key, ok := guardedKey(stmt, plain[paramsType])
			if !ok || guarded[stmt] {
				continue
			}
			// The new nodes take the statement's position, so that the
			// comment before it stays before the if.
			pos := stmt.Pos()
			ident := func(name string) *ast.Ident { return &ast.Ident{NamePos: pos, Name: name} }
			block.List[i] = &ast.IfStmt{
				If: pos,
				Init: &ast.AssignStmt{
					Lhs:    []ast.Expr{ident("_"), ident("found")},
					TokPos: pos,
					Tok:    token.DEFINE,
					Rhs:    []ast.Expr{&ast.IndexExpr{X: ident(queryVar), Lbrack: pos, Index: key, Rbrack: pos}},
				},
				Cond: ident("found"),
				Body: &ast.BlockStmt{List: []ast.Stmt{stmt}},
			}
			guarded[stmt] = true
			n++
		}
		return true
	})
	return n
}

// guardedKey returns the key literal of stmt when it is a binding
// guardAbsent guards, given the plain fields of the params type.
func guardedKey(stmt ast.Stmt, fields map[string]bool) (*ast.BasicLit, bool) {
	as, ok := stmt.(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return nil, false
	}
	if id, ok := as.Lhs[0].(*ast.Ident); !ok || id.Name != "err" {
		return nil, false
	}
	call, ok := as.Rhs[0].(*ast.CallExpr)
	if !ok || len(call.Args) != 7 {
		return nil, false
	}
	fun, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || fun.Sel.Name != bindFunc {
		return nil, false
	}
	if pkg, ok := fun.X.(*ast.Ident); !ok || pkg.Name != "runtime" {
		return nil, false
	}
	if stringLit(call.Args[0]) != "form" || identName(call.Args[1]) != "true" || identName(call.Args[2]) != "false" {
		return nil, false
	}
	key, ok := call.Args[3].(*ast.BasicLit)
	if !ok || key.Kind != token.STRING || identName(call.Args[4]) != queryVar {
		return nil, false
	}
	addr, ok := call.Args[5].(*ast.UnaryExpr)
	if !ok || addr.Op != token.AND {
		return nil, false
	}
	field, ok := addr.X.(*ast.SelectorExpr)
	if !ok || identName(field.X) != "params" || !fields[field.Sel.Name] {
		return nil, false
	}
	opts, ok := call.Args[6].(*ast.CompositeLit)
	if !ok || len(opts.Elts) != 2 {
		return nil, false
	}
	kind, format := "", "-"
	for _, e := range opts.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			return nil, false
		}
		switch identName(kv.Key) {
		case "Type":
			kind = stringLit(kv.Value)
		case "Format":
			format = stringLit(kv.Value)
		}
	}
	if (kind != "string" && kind != "integer") || format != "" {
		return nil, false
	}
	return key, true
}

func identName(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// stringLit is the value of a string literal, or "-" for anything else.
func stringLit(e ast.Expr) string {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "-"
	}
	s, err := strconv.Unquote(lit.Value)
	if err != nil {
		return "-"
	}
	return s
}
