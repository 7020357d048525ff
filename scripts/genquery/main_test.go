package main

import (
	"strings"
	"testing"
)

const header = `package p

import "github.com/gin-gonic/gin"

type ServerInterfaceWrapper struct{}

func bind(name string, q any) error { return nil }
`

func TestRewrite(t *testing.T) {
	src := header + `
// ListThings binds two parameters.
func (siw *ServerInterfaceWrapper) ListThings(c *gin.Context) {
	var err error
	err = bind("a", c.Request.URL.Query())
	if err != nil {
		return
	}
	err = bind("b", c.Request.URL.Query())
	_ = err
}

// GetThing binds none.
func (siw *ServerInterfaceWrapper) GetThing(c *gin.Context) {}
`
	out, n, err := rewrite([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	if n != 1 || strings.Count(got, "c.Request.URL.Query()") != 1 || strings.Count(got, ", query)") != 2 {
		t.Fatalf("%d rewritten:\n%s", n, got)
	}
	if !strings.Contains(got, "func (siw *ServerInterfaceWrapper) ListThings(c *gin.Context) {\n\tquery := c.Request.URL.Query()\n") {
		t.Errorf("the variable is not declared first:\n%s", got)
	}
	if !strings.Contains(got, "// GetThing binds none.\nfunc (siw *ServerInterfaceWrapper) GetThing(c *gin.Context) {}") {
		t.Errorf("a wrapper without query parameters changed, or its comment moved:\n%s", got)
	}
}

func TestRewriteRefuses(t *testing.T) {
	for name, src := range map[string]string{
		"a call outside a wrapper": header + `
func other(c *gin.Context) { _ = bind("a", c.Request.URL.Query()) }
`,
		"a wrapper with its own query variable": header + `
func (siw *ServerInterfaceWrapper) ListThings(c *gin.Context) {
	query := 1
	_ = query
	_ = bind("a", c.Request.URL.Query())
}
`,
	} {
		if out, _, err := rewrite([]byte(src)); err == nil {
			t.Errorf("%s: rewritten:\n%s", name, out)
		}
	}
}

func TestGuardAbsent(t *testing.T) {
	src := `package p

import (
	"github.com/gin-gonic/gin"
	"github.com/oapi-codegen/runtime"
)

type ServerInterfaceWrapper struct{}

type Size = int
type Name = string
type When struct{}

type ListThingsParams struct {
	Size *Size
	Name *Name
	When *When
	Tags *[]string
}

func (siw *ServerInterfaceWrapper) ListThings(c *gin.Context) {
	var err error
	_ = err
	var params ListThingsParams
	err = runtime.BindQueryParameterWithOptions("form", true, false, "page[size]", c.Request.URL.Query(), &params.Size, runtime.BindQueryParameterOptions{Type: "integer", Format: ""})
	if err != nil {
		return
	}
	err = runtime.BindQueryParameterWithOptions("form", true, false, "name", c.Request.URL.Query(), &params.Name, runtime.BindQueryParameterOptions{Type: "string", Format: ""})
	err = runtime.BindQueryParameterWithOptions("form", true, true, "name", c.Request.URL.Query(), &params.Name, runtime.BindQueryParameterOptions{Type: "string", Format: ""})
	err = runtime.BindQueryParameterWithOptions("form", true, false, "name", c.Request.URL.Query(), &params.Name, runtime.BindQueryParameterOptions{Type: "string", Format: "date"})
	err = runtime.BindQueryParameterWithOptions("form", true, false, "when", c.Request.URL.Query(), &params.When, runtime.BindQueryParameterOptions{Type: "string", Format: ""})
	err = runtime.BindQueryParameterWithOptions("form", true, false, "tags", c.Request.URL.Query(), &params.Tags, runtime.BindQueryParameterOptions{Type: "array", Format: ""})
}
`
	out, n, err := rewrite([]byte(src))
	if err != nil || n != 1 {
		t.Fatalf("%d rewritten, %v", n, err)
	}
	got := string(out)
	for _, want := range []string{
		"\tif _, found := query[\"page[size]\"]; found {\n\t\terr = runtime.BindQueryParameterWithOptions(\"form\", true, false, \"page[size]\", query, &params.Size,",
		"\tif _, found := query[\"name\"]; found {\n\t\terr = runtime.BindQueryParameterWithOptions(\"form\", true, false, \"name\", query, &params.Name, runtime.BindQueryParameterOptions{Type: \"string\", Format: \"\"})\n\t}\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	// Required, with a format, to a struct, an array: left alone.
	if c := strings.Count(got, "found {"); c != 2 {
		t.Errorf("%d bindings guarded, want 2:\n%s", c, got)
	}
}
