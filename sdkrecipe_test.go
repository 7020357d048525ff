package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goRecipe finds the Go program of docs/sdk.md's client recipe: the here-document the
// recipe writes to main.go.
var goRecipe = regexp.MustCompile("(?ms)^cat >main\\.go <<'GO'\n(.*?)^GO$")

// The package path of the client the recipe generates in its own module.
const recipeClient = `"example.com/partner/entityapi"`

// TestGoRecipeCompiles (issue 31): the Go client recipe of docs/sdk.md is a partner's
// module that generates its client from the served back-office document into a package
// of its own and imports it. `make readme-check` runs it against a server (it needs the
// Go module proxy); this test compiles the same program offline, with the committed
// back-office SDK in place of the generated package: both come from the same public
// document with the same oapi-codegen version and outputs (types and client), so a
// recipe that stops compiling, such as one whose request documents no longer fit the
// named types, fails `make test` before it fails the README check.
func TestGoRecipeCompiles(t *testing.T) {
	m := goRecipe.FindStringSubmatch(readText(t, "docs/sdk.md"))
	if m == nil {
		t.Fatal("docs/sdk.md has no Go recipe (cat >main.go <<'GO' ... GO)")
	}
	program := m[1]
	if !strings.Contains(program, recipeClient) {
		t.Fatalf("the Go recipe does not import its generated client %s", recipeClient)
	}
	program = strings.Replace(program, recipeClient,
		`entityapi "github.com/entityapi/entityapi/gen/sdk/go/backoffice"`, 1)
	file := filepath.Join(t.TempDir(), "main.go")
	if err := os.WriteFile(file, []byte(program), 0o600); err != nil {
		t.Fatal(err)
	}
	// go vet type-checks the program as the recipe's `go vet ./...` does.
	out, err := exec.Command("go", "vet", file).CombinedOutput()
	if err != nil {
		t.Fatalf("the Go recipe of docs/sdk.md does not compile against the SDK: %v\n%s", err, out)
	}
}
