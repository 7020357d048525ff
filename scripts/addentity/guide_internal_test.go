package addentity

import (
	"reflect"
	"strings"
	"testing"
)

// The guide's section is read block by block: files by the path after the
// language, sh blocks to run, other blocks and other sections passed over.
func TestSteps(t *testing.T) {
	md := strings.Join([]string{
		"## Before", "```go a.go", "package a", "```",
		"## Adding an entity", "text",
		"```go storage/x.go", "package storage", "```",
		"```console", "$ curl", "```",
		"```sh", "make generate", "make build", "```",
		"## After", "```sh", "rm -rf /", "```",
	}, "\n")
	got, err := steps(md, "## Adding an entity")
	if err != nil {
		t.Fatal(err)
	}
	want := []step{{File: "storage/x.go", Text: "package storage\n"}, {Text: "make generate\nmake build\n", Run: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("steps = %+v, want %+v", got, want)
	}
	for name, md := range map[string]string{
		"no section":     "## Other\n```sh\nmake\n```\n",
		"unclosed block": "## Adding an entity\n```sh\nmake\n",
	} {
		if _, err := steps(md, "## Adding an entity"); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
