package storage_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOnlyOpenChoosesADialect: of storage's own files, only open.go (Open,
// which chooses the dialect by the URL's scheme) imports an implementation
// of storage/dialect or a database's driver; every other file asks the
// dialect's interface and its Features.
// importcheck sees packages, not files, hence this test.
func TestOnlyOpenChoosesADialect(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	specific := []string{"/storage/dialect/sqlite", "/storage/dialect/postgres", "github.com/jackc/", "modernc.org/",
		"github.com/riverqueue/river/riverdriver/", "github.com/uptrace/bun/dialect/"}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "open.go" {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, s := range specific {
				if strings.Contains(path, s) {
					t.Errorf("%s imports %s: only open.go may choose a database", name, path)
				}
			}
		}
	}
}
