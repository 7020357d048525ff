package main

import (
	"reflect"
	"strings"
	"testing"
)

const m = modulePath

// graph builds a fake `go list -deps` result. Each edge is "from -> to"; a
// path starting with "~" is the module's own package (relative to the module
// root, "~" alone being the root package); a path without a dot in its first
// element is standard library, anything else is a third-party package.
func graph(edges ...string) []Package {
	pkgs := map[string]*Package{}
	var order []string
	node := func(name string) string {
		path := name
		if name == "~" {
			path = m
		} else if rel, ok := strings.CutPrefix(name, "~"); ok {
			path = m + "/" + rel
		}
		if _, ok := pkgs[path]; !ok {
			p := &Package{ImportPath: path}
			first, _, _ := strings.Cut(path, "/")
			switch {
			case strings.HasPrefix(name, "~"):
				p.Module = &struct{ Path string }{m}
			case !strings.Contains(first, "."):
				p.Standard = true
			default:
				p.Module = &struct{ Path string }{"third/party"}
			}
			pkgs[path] = p
			order = append(order, path)
		}
		return path
	}
	for _, e := range edges {
		from, to, ok := strings.Cut(e, " -> ")
		f := node(strings.TrimSpace(from))
		if ok {
			t := node(strings.TrimSpace(to))
			pkgs[f].Imports = append(pkgs[f].Imports, t)
		}
	}
	out := make([]Package, 0, len(order))
	for _, path := range order {
		out = append(out, *pkgs[path])
	}
	return out
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		graph   []Package
		checked int
		want    []string // Violation.Format lines without the rule, ordered by full import paths
	}{
		{
			name:    "empty module",
			graph:   nil,
			checked: 0,
		},
		{
			name: "clean layering",
			graph: graph(
				"~ -> ~server/api",
				"~ -> ~storage/sql",
				"~server/api -> ~server/jsonapi",
				"~server/api -> ~gen/backoffice",
				"~server/api -> ~storage/sql",
				"~ -> github.com/gin-gonic/gin",
				"github.com/gin-gonic/gin -> net/http",
				"~server/jsonapi -> encoding/json",
				"~server/jsonapi -> C",
				"~gen/backoffice -> ~server/jsonapi",
				"~gen/backoffice -> github.com/oapi-codegen/runtime",
				"~storage/sql -> ~storage/isodata",
				"~storage/sql -> github.com/uptrace/bun",
				"~storage/isodata -> embed",
			),
			checked: 6,
		},
		{
			name: "a dialect imports storage, and jobs a dialect directly",
			graph: graph(
				"~storage -> ~storage/dialect/sqlite",
				"~storage -> ~storage/dialect",
				"~storage/dialect/sqlite -> ~storage/dialect",
				"~storage/dialect/postgres -> ~storage",
				"~storage/jobs -> ~storage",
				"~storage/jobs -> ~storage/dialect",
				"~storage/authstore -> ~storage/dialect/sqlite",
			),
			checked: 6,
			want: []string{
				"storage/authstore reaches storage/dialect/sqlite via storage/authstore -> storage/dialect/sqlite",
				"storage/dialect/postgres reaches storage via storage/dialect/postgres -> storage",
			},
		},
		{
			name: "storage imports gin directly",
			graph: graph(
				"~storage/x -> github.com/gin-gonic/gin",
				"github.com/gin-gonic/gin -> github.com/gin-gonic/gin/binding",
				"github.com/gin-gonic/gin -> net/http",
			),
			checked: 1,
			want: []string{
				"storage/x reaches github.com/gin-gonic/gin via storage/x -> github.com/gin-gonic/gin",
			},
		},
		{
			name: "storage reaches a gin subpackage through a third-party package and another storage package",
			graph: graph(
				"~storage -> ~storage/y",
				"~storage/y -> example.com/helper",
				"example.com/helper -> github.com/gin-gonic/gin/binding",
			),
			checked: 2,
			want: []string{
				"storage reaches github.com/gin-gonic/gin/binding via storage -> storage/y -> example.com/helper -> github.com/gin-gonic/gin/binding",
				"storage/y reaches github.com/gin-gonic/gin/binding via storage/y -> example.com/helper -> github.com/gin-gonic/gin/binding",
			},
		},
		{
			name: "storage must not reach gen or server, even server/jsonapi",
			graph: graph(
				"~storage/x -> ~gen/backoffice",
				"~storage/x -> ~server/jsonapi",
				"~gen/backoffice -> ~server/jsonapi",
			),
			checked: 3,
			want: []string{
				"storage/x reaches gen/backoffice via storage/x -> gen/backoffice",
				"storage/x reaches server/jsonapi via storage/x -> server/jsonapi",
			},
		},
		{
			name: "a shortest chain is shown and the forbidden package is reported once",
			graph: graph(
				"~storage/x -> ~storage/a",
				"~storage/x -> ~storage/b",
				"~storage/a -> ~storage/c",
				"~storage/c -> ~server/api",
				"~storage/b -> ~server/api",
			),
			checked: 5,
			want: []string{
				"storage/a reaches server/api via storage/a -> storage/c -> server/api",
				"storage/b reaches server/api via storage/b -> server/api",
				"storage/c reaches server/api via storage/c -> server/api",
				"storage/x reaches server/api via storage/x -> storage/b -> server/api",
			},
		},
		{
			name: "gen may use server/jsonapi but nothing else of the module",
			graph: graph(
				"~gen/backoffice -> ~server/jsonapi",
				"~gen/backoffice -> ~storage/isodata",
				"~gen/backoffice -> ~gen/common",
				"~gen/common -> ~",
				"~gen/backoffice -> github.com/gin-gonic/gin",
			),
			checked: 5,
			want: []string{
				"gen/backoffice reaches gen/common via gen/backoffice -> gen/common",
				"gen/backoffice reaches storage/isodata via gen/backoffice -> storage/isodata",
				"gen/common reaches github.com/entityapi/entityapi via gen/common -> github.com/entityapi/entityapi",
			},
		},
		{
			name: "gen reaches the module through server/jsonapi",
			graph: graph(
				"~gen/backoffice -> ~server/jsonapi",
				"~server/jsonapi -> ~server/util",
			),
			checked: 3,
			want: []string{
				"gen/backoffice reaches server/util via gen/backoffice -> server/jsonapi -> server/util",
				"server/jsonapi reaches server/util via server/jsonapi -> server/util",
			},
		},
		{
			name: "gen/sdk depends on no package of this module, not even server/jsonapi",
			graph: graph(
				"~gen/sdk/go -> ~storage/isodata",
				"~gen/sdk/go/backoffice -> ~server/jsonapi",
				"~gen/sdk/go/storefront -> ~gen/sdk/go/shared",
				"~gen/sdk/go/storefront -> github.com/oapi-codegen/runtime",
				"~gen/sdkextra -> ~server/api",
			),
			checked: 8,
			want: []string{
				"gen/sdk/go reaches storage/isodata via gen/sdk/go -> storage/isodata",
				"gen/sdk/go/backoffice reaches server/jsonapi via gen/sdk/go/backoffice -> server/jsonapi",
				"gen/sdkextra reaches server/api via gen/sdkextra -> server/api",
			},
		},
		{
			name: "server/identity depends on the standard library only",
			graph: graph(
				"~server/identity -> time",
				"~server/identity -> ~storage/authstore",
			),
			checked: 2,
			want: []string{
				"server/identity reaches storage/authstore via server/identity -> storage/authstore",
			},
		},
		{
			name: "server/jsonapi depends on the standard library only",
			graph: graph(
				"~server/jsonapi -> encoding/json",
				"~server/jsonapi -> github.com/google/uuid",
				"github.com/google/uuid -> example.com/deeper",
				"~server/jsonapi -> ~server/jsonapi/internal",
			),
			checked: 2,
			want: []string{
				"server/jsonapi reaches server/jsonapi/internal via server/jsonapi -> server/jsonapi/internal",
				"server/jsonapi reaches github.com/google/uuid via server/jsonapi -> github.com/google/uuid",
			},
		},
		{
			name: "only package server depends on gin",
			graph: graph(
				"~server -> github.com/gin-gonic/gin",
				"~server -> ~server/engine",
				"~server/engine -> ~server/jsonapi",
				"~server/auth -> github.com/gin-gonic/gin/render",
				"~server/batch -> example.com/ginwrap",
				"example.com/ginwrap -> github.com/gin-gonic/gin",
			),
			checked: 5,
			want: []string{
				"server/auth reaches github.com/gin-gonic/gin/render via server/auth -> github.com/gin-gonic/gin/render",
				"server/batch reaches github.com/gin-gonic/gin via server/batch -> example.com/ginwrap -> github.com/gin-gonic/gin",
			},
		},
		{
			name: "the splitter reaches neither the engine, storage nor a third-party package",
			graph: graph(
				"~server/batch/split -> encoding/json",
				"~server/batch/split -> ~server/problem",
				"~server/batch/split -> ~server/jsonguard",
				"~server/batch/split -> ~server/engine",
				"~server/batch/split -> github.com/google/uuid",
				"~server/batch -> ~server/batch/split",
				"~server/batch -> ~storage/jobs",
			),
			checked: 6,
			want: []string{
				"server/batch/split reaches server/engine via server/batch/split -> server/engine",
				"server/batch/split reaches github.com/google/uuid via server/batch/split -> github.com/google/uuid",
			},
		},
		{
			name: "the edge uses the pipeline, the storefront and auth, which use the engine, which uses none of them",
			graph: graph(
				"~server -> ~server/batch",
				"~server -> ~server/storefront",
				"~server -> ~server/auth",
				"~server/batch -> ~server/engine",
				"~server/batch -> ~server/batch/split",
				"~server/batch -> ~server/batch/chunk",
				"~server/batch -> ~server/batch/stage",
				"~server/batch/chunk -> ~server/batch/stage",
				"~server/batch/chunk -> ~server/engine",
				"~server/batch/stage -> ~server/engine",
				"~server/batch/stage -> ~server/batch/split",
				"~server/storefront -> ~server/resource",
			),
			checked: 9,
		},
		{
			name: "the engine reaches nothing of the batch, and the batch's packages stay below the pipeline",
			graph: graph(
				"~server/engine -> ~server/batch/split",
				"~server/engine -> ~storage/jobs",
				"~server/batch/chunk -> ~server/batch",
				"~server/batch/stage -> ~server/batch/chunk",
				"~server/batch/chunk -> ~server/auth",
			),
			checked: 7,
			want: []string{
				"server/batch/chunk reaches server/auth via server/batch/chunk -> server/auth",
				"server/batch/chunk reaches server/batch via server/batch/chunk -> server/batch",
				"server/batch/stage reaches server/auth via server/batch/stage -> server/batch/chunk -> server/auth",
				"server/batch/stage reaches server/batch via server/batch/stage -> server/batch/chunk -> server/batch",
				"server/batch/stage reaches server/batch/chunk via server/batch/stage -> server/batch/chunk",
				"server/engine reaches server/batch/split via server/engine -> server/batch/split",
				"server/engine reaches storage/jobs via server/engine -> storage/jobs",
			},
		},
		{
			name: "the engine reaching up, and the packages beside each other",
			graph: graph(
				"~server/engine -> ~server/storefront",
				"~server/engine -> ~server",
				"~server/batch -> ~server/auth",
				"~server/storefront -> ~server/batch",
				"~server/auth -> ~server",
			),
			checked: 5,
			want: []string{
				"server/auth reaches server via server/auth -> server",
				"server/batch reaches server/auth via server/batch -> server/auth",
				"server/engine reaches server via server/engine -> server",
				"server/engine reaches server/storefront via server/engine -> server/storefront",
				"server/storefront reaches server/batch via server/storefront -> server/batch",
			},
		},
		{
			name: "the request checks reach kin-openapi, the error, document and resource packages only",
			graph: graph(
				"~server/check -> github.com/getkin/kin-openapi/openapi3filter",
				"github.com/getkin/kin-openapi/openapi3filter -> github.com/go-openapi/jsonpointer",
				"~server/check -> ~server/problem",
				"~server/check -> ~server/jsonapi",
				"~server/check -> ~server/resource",
				"~server/resource -> github.com/getkin/kin-openapi/openapi3",
				"~server/check -> ~server/engine",
				"~server/check -> ~storage",
				"~server/check -> github.com/google/uuid",
			),
			checked: 6,
			want: []string{
				"server/check reaches server/engine via server/check -> server/engine",
				"server/check reaches storage via server/check -> storage",
				"server/check reaches github.com/google/uuid via server/check -> github.com/google/uuid",
			},
		},
		{
			name: "atomic operations sit above the engine and beside the pipeline",
			graph: graph(
				"~server -> ~server/atomic",
				"~server/atomic -> ~server/engine",
				"~server/atomic -> ~server/check",
				"~server/atomic -> ~storage",
				"~server/engine -> ~server/check",
				"~server/atomic -> ~server/batch",
				"~server/atomic -> ~server/webhook",
				"~server/engine -> ~server/atomic",
			),
			checked: 7,
			want: []string{
				"server/atomic reaches server/batch via server/atomic -> server/batch",
				"server/atomic reaches server/webhook via server/atomic -> server/webhook",
				"server/engine reaches server/atomic via server/engine -> server/atomic",
			},
		},
		{
			name: "the packages between the edge and the engine stand side by side",
			graph: graph(
				"~server -> ~server/webhook",
				"~server -> ~server/batch",
				"~server/webhook -> ~server/engine",
				"~server/webhook -> ~server/atomic",
				"~server/batch -> ~server/webhook",
				"~server/storefront -> ~server/atomic",
				"~server/engine -> ~server/webhook",
			),
			checked: 6,
			want: []string{
				"server/batch reaches server/webhook via server/batch -> server/webhook",
				"server/engine reaches server/webhook via server/engine -> server/webhook",
				"server/storefront reaches server/atomic via server/storefront -> server/atomic",
				"server/webhook reaches server/atomic via server/webhook -> server/atomic",
			},
		},
		{
			name: "server never depends on the main package",
			graph: graph(
				"~server/api -> ~server/mw",
				"~server/mw -> ~",
				"~ -> ~server/api",
				"~serverless -> ~",
				"~cmd/tool -> ~",
			),
			checked: 5,
			want: []string{
				"server/api reaches github.com/entityapi/entityapi via server/api -> server/mw -> github.com/entityapi/entityapi",
				"server/mw reaches github.com/entityapi/entityapi via server/mw -> github.com/entityapi/entityapi",
			},
		},
		{
			name: "the command sits on top: the main package runs it, it reaches the edge and Gin, the batch client the SDK",
			graph: graph(
				"~ -> ~server/cli",
				"~server/cli -> ~server",
				"~server/cli -> ~server/cli/batchclient",
				"~server/cli -> ~server/cli/flagargs",
				"~server -> github.com/gin-gonic/gin",
				"~server/cli/batchclient -> ~gen/sdk/go/backoffice",
				"~server/cli/batchclient -> ~server/cli/flagargs",
				"~server/cli/batchclient -> github.com/mattn/go-isatty",
				"~server/cli/flagargs -> flag",
				"~gen/sdk/go/backoffice -> github.com/oapi-codegen/runtime",
			),
			checked: 6,
		},
		{
			name: "nothing else under server reaches the command, and the batch client reaches nothing of the server",
			graph: graph(
				"~server -> ~server/cli",
				"~server/engine -> ~server/cli/flagargs",
				"~server/cli/batchclient -> ~server/engine",
				"~server/cli/batchclient -> ~server/cli",
				"~server/cli/batchclient -> github.com/gin-gonic/gin/binding",
				"~server/cli/flagargs -> github.com/spf13/pflag",
			),
			checked: 5,
			want: []string{
				"server reaches server/cli via server -> server/cli",
				"server/cli/batchclient reaches server/cli via server/cli/batchclient -> server/cli",
				"server/cli/batchclient reaches server/engine via server/cli/batchclient -> server/engine",
				"server/cli/batchclient reaches github.com/gin-gonic/gin/binding via server/cli/batchclient -> github.com/gin-gonic/gin/binding",
				"server/cli/flagargs reaches github.com/spf13/pflag via server/cli/flagargs -> github.com/spf13/pflag",
				"server/engine reaches server/cli/flagargs via server/engine -> server/cli/flagargs",
			},
		},
		{
			name: "server may depend on other server packages, storage and gen",
			graph: graph(
				"~server -> ~server/api",
				"~server/api -> ~gen/backoffice",
				"~server/api -> ~storage/sql",
				"~gen/backoffice -> ~server/jsonapi",
			),
			checked: 5,
		},
		{
			name: "storage of another module with the same prefix is not ours",
			graph: graph(
				"~storagex -> github.com/gin-gonic/gin",
				"~storage/ok -> github.com/gin-gonic/gin-contrib",
			),
			checked: 2,
		},
		{
			name: "the record stores beside storage follow storage's rule",
			graph: graph(
				"~storage/jobs -> ~storage",
				"~storage/jobs -> github.com/gin-gonic/gin",
				"~storage/authstore -> ~storage",
				"~storage/authstore -> ~server/problem",
			),
			checked: 4,
			want: []string{
				"storage/authstore reaches server/problem via storage/authstore -> server/problem",
				"storage/jobs reaches github.com/gin-gonic/gin via storage/jobs -> github.com/gin-gonic/gin",
			},
		},
		{
			name: "storage/jobs and storage/authstore stay apart",
			graph: graph(
				"~storage/jobs -> ~storage/authstore",
				"~storage/authstore -> ~storage",
			),
			checked: 3,
			want: []string{
				"storage/jobs reaches storage/authstore via storage/jobs -> storage/authstore",
			},
		},
		{
			name: "server/auth reaches storage through storage/authstore and storage/secret",
			graph: graph(
				"~server/auth -> ~storage/authstore",
				"~server/auth -> ~storage/secret",
				"~storage/authstore -> ~storage",
				"~storage/authstore -> ~storage/secret",
				"~storage -> ~storage/isodata",
			),
			checked: 5,
		},
		{
			name: "server/auth reaching storage another way",
			graph: graph(
				"~server/auth -> ~storage/authstore",
				"~server/auth -> ~storage",
				"~server/auth -> ~server/problem",
				"~server/problem -> ~storage/jobs",
				"~storage/authstore -> ~storage",
				"~storage/jobs -> ~storage",
			),
			checked: 5,
			want: []string{
				"server/auth reaches storage via server/auth -> storage",
				"server/auth reaches storage/jobs via server/auth -> server/problem -> storage/jobs",
			},
		},
		{
			name: "below server, gin is refused directly or through another package of ours or not",
			graph: graph(
				"~server/auth -> github.com/gin-gonic/gin",
				"~server/auth/oidc -> ~server/jsonguard",
				"~server/jsonguard -> example.com/helper",
				"example.com/helper -> github.com/gin-gonic/gin/render",
				"~server -> ~server/auth",
				"~server -> github.com/gin-gonic/gin",
			),
			checked: 4,
			want: []string{
				"server/auth reaches github.com/gin-gonic/gin via server/auth -> github.com/gin-gonic/gin",
				"server/auth/oidc reaches github.com/gin-gonic/gin/render via server/auth/oidc -> server/jsonguard -> example.com/helper -> github.com/gin-gonic/gin/render",
				"server/jsonguard reaches github.com/gin-gonic/gin/render via server/jsonguard -> example.com/helper -> github.com/gin-gonic/gin/render",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, checked := Check(m, tt.graph, Rules(m))
			if checked != tt.checked {
				t.Errorf("checked = %d, want %d", checked, tt.checked)
			}
			var lines []string
			for _, v := range got {
				line, _, _ := strings.Cut(v.Format(m), " (rule: ")
				lines = append(lines, line)
			}
			if !reflect.DeepEqual(lines, tt.want) {
				t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestRuleNamesInOutput(t *testing.T) {
	got, _ := Check(m, graph("~storage/x -> github.com/gin-gonic/gin"), Rules(m))
	if len(got) != 1 {
		t.Fatalf("got %d violations, want 1", len(got))
	}
	want := "storage/x reaches github.com/gin-gonic/gin via storage/x -> github.com/gin-gonic/gin" +
		" (rule: storage/... must not depend on gen/..., server/... or gin)"
	if line := got[0].Format(m); line != want {
		t.Errorf("Format = %q, want %q", line, want)
	}
}

func TestDecode(t *testing.T) {
	in := `{"ImportPath":"fmt","Standard":true,"Imports":["errors"]}
{"ImportPath":"github.com/entityapi/entityapi/server/jsonapi","Imports":["fmt"],"Module":{"Path":"github.com/entityapi/entityapi","Main":true}}
`
	pkgs, err := decode(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 2 || !pkgs[0].Standard || pkgs[1].Module == nil || pkgs[1].Module.Path != m ||
		!reflect.DeepEqual(pkgs[1].Imports, []string{"fmt"}) {
		t.Fatalf("decode = %+v", pkgs)
	}
	if _, err := decode(strings.NewReader(`{"ImportPath":`)); err == nil {
		t.Error("decode of a truncated stream: no error")
	}
}
