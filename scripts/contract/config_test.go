package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"gopkg.in/yaml.v3"

	"github.com/entityapi/entityapi/openapi"
)

// portmanConfig is the part of a Portman configuration these tests hold to
// the documents: every operation, parameter and answer it names.
type portmanConfig struct {
	Tests struct {
		ContractTests []struct {
			OpenAPIOperation     string   `yaml:"openApiOperation"`
			OpenAPIOperationIDs  []string `yaml:"openApiOperationIds"`
			ExcludeForOperations []string `yaml:"excludeForOperations"`
			OpenAPIResponse      string   `yaml:"openApiResponse"`
		} `yaml:"contractTests"`
	} `yaml:"tests"`
	Overwrites []struct {
		OpenAPIOperation            string `yaml:"openApiOperation"`
		OverwriteRequestQueryParams []struct {
			Key   string `yaml:"key"`
			Value string `yaml:"value"`
		} `yaml:"overwriteRequestQueryParams"`
	} `yaml:"overwrites"`
	Globals struct {
		SecurityOverwrites struct {
			Bearer struct {
				Token string `yaml:"token"`
			} `yaml:"bearer"`
		} `yaml:"securityOverwrites"`
		OrderOfFolders    []string `yaml:"orderOfFolders"`
		OrderOfOperations []string `yaml:"orderOfOperations"`
	} `yaml:"globals"`
}

// documentOperation is one operation of a document, named as Portman names
// it (METHOD::/path).
type documentOperation struct {
	ref  string
	path string
	op   *openapi3.Operation
	item *openapi3.PathItem
}

func loadConfig(t *testing.T, name string) portmanConfig {
	t.Helper()
	raw, err := os.ReadFile(filepath.Base(applications[name].portman))
	if err != nil {
		t.Fatal(err)
	}
	var c portmanConfig
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func documentOperations(t *testing.T, raw []byte) map[string]documentOperation {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]documentOperation{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			ref := method + "::" + path
			ops[ref] = documentOperation{ref: ref, path: path, op: op, item: item}
			ops[op.OperationID] = ops[ref]
		}
	}
	return ops
}

// TestPortmanConfigsNameTheDocuments: each configuration names only
// operations, answers and query parameters its document has (an undeclared
// query parameter is a 400), passes the token newman is given, and orders
// every folder (tag) of the back office.
func TestPortmanConfigsNameTheDocuments(t *testing.T) {
	for name, raw := range map[string][]byte{"backoffice": openapi.Backoffice, "storefront": openapi.Storefront} {
		t.Run(name, func(t *testing.T) {
			c := loadConfig(t, name)
			ops := documentOperations(t, raw)
			if got := c.Globals.SecurityOverwrites.Bearer.Token; got != "{{token}}" {
				t.Errorf("the bearer token is %q, want {{token}} (newman's --env-var token=...)", got)
			}
			for _, ct := range c.Tests.ContractTests {
				for _, id := range ct.ExcludeForOperations {
					if _, ok := ops[id]; !ok {
						t.Errorf("contractTests: no operation %s", id)
					}
				}
				for _, id := range ct.OpenAPIOperationIDs {
					op, ok := ops[id]
					switch {
					case !ok:
						t.Errorf("contractTests: no operation %s", id)
					case ct.OpenAPIResponse != "" && op.op.Responses.Value(ct.OpenAPIResponse) == nil:
						t.Errorf("contractTests: %s has no %s answer", id, ct.OpenAPIResponse)
					}
				}
			}
			for _, o := range c.Overwrites {
				op, ok := ops[o.OpenAPIOperation]
				if !ok {
					t.Errorf("overwrites: no operation %s", o.OpenAPIOperation)
					continue
				}
				for _, q := range o.OverwriteRequestQueryParams {
					if !declaresQuery(op, q.Key) {
						t.Errorf("overwrites: %s declares no query parameter %s", o.OpenAPIOperation, q.Key)
					}
				}
			}
			for _, ref := range c.Globals.OrderOfOperations {
				if strings.HasSuffix(ref, "*") {
					if method, _, _ := strings.Cut(ref, "::"); !slices.Contains([]string{"GET", "POST", "PATCH", "DELETE"}, method) {
						t.Errorf("orderOfOperations: %s: no such method", ref)
					}
					continue
				}
				if _, ok := ops[ref]; !ok {
					t.Errorf("orderOfOperations: no operation %s", ref)
				}
			}
			if len(c.Globals.OrderOfFolders) == 0 {
				return
			}
			for key, op := range ops {
				if key != op.ref {
					continue // the same operation by its operationId
				}
				for _, tag := range op.op.Tags {
					if !slices.Contains(c.Globals.OrderOfFolders, tag) {
						t.Errorf("orderOfFolders leaves out %s (%s)", tag, op.ref)
					}
				}
			}
		})
	}
}

// TestEveryCollectionDeleteDeletesTheCreatedRecord: a collection DELETE
// without a filter is a 400, so the back office's configuration gives each
// one a filter, and that filter names the record the create of the same
// collection made from its plain example (what Portman sends), which the
// order runs first: the demo records the other requests name stay.
func TestEveryCollectionDeleteDeletesTheCreatedRecord(t *testing.T) {
	c := loadConfig(t, "backoffice")
	ops := documentOperations(t, openapi.Backoffice)
	filters := map[string]map[string]string{}
	for _, o := range c.Overwrites {
		for _, q := range o.OverwriteRequestQueryParams {
			if filters[o.OpenAPIOperation] == nil {
				filters[o.OpenAPIOperation] = map[string]string{}
			}
			filters[o.OpenAPIOperation][q.Key] = q.Value
		}
	}
	field := regexp.MustCompile(`^filter\[([A-Za-z]+)\]$`)
	deletes := 0
	for ref, op := range ops {
		if ref != op.ref || op.item.Delete != op.op || strings.Contains(op.path, "{") {
			continue
		}
		deletes++
		t.Run(ref, func(t *testing.T) {
			f := filters[ref]
			if len(f) == 0 {
				t.Fatalf("no filter: the request is a 400")
			}
			create, ok := ops["POST::"+op.path]
			if !ok {
				t.Fatalf("no create on %s to make the record it deletes", op.path)
			}
			example := plainExample(t, create.op)
			for key, value := range f {
				m := field.FindStringSubmatch(key)
				if m == nil {
					t.Errorf("%s is not a filter", key)
					continue
				}
				if got := fmt.Sprint(example[m[1]]); got != value {
					t.Errorf("%s=%s, but the create's example makes %s %q", key, value, m[1], got)
				}
			}
			order := c.Globals.OrderOfOperations
			if i, j := slices.Index(order, "POST::"+op.path), slices.Index(order, ref); i < 0 || j < i {
				t.Errorf("orderOfOperations: the create (%d) does not run before the delete (%d)", i, j)
			}
			if j, k := slices.Index(order, ref), slices.Index(order, "DELETE::"+op.path+"/{id}"); k >= 0 && k < j {
				t.Errorf("orderOfOperations: the record's DELETE runs before the collection's")
			}
		})
	}
	if deletes == 0 {
		t.Fatal("no collection DELETE in the back office's document")
	}
}

// declaresQuery says whether op declares the query parameter name.
func declaresQuery(op documentOperation, name string) bool {
	for _, p := range append(slices.Clone(op.item.Parameters), op.op.Parameters...) {
		if p.Value != nil && p.Value.In == "query" && p.Value.Name == name {
			return true
		}
	}
	return false
}

// plainExample is the example of op's application/json request body.
func plainExample(t *testing.T, op *openapi3.Operation) map[string]any {
	t.Helper()
	if op.RequestBody == nil || op.RequestBody.Value.Content.Get("application/json") == nil {
		t.Fatalf("%s has no plain request body", op.OperationID)
	}
	raw, err := json.Marshal(op.RequestBody.Value.Content.Get("application/json").Example)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: the plain example is not an object: %s", op.OperationID, raw)
	}
	return m
}
