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
