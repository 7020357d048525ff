package main

import (
	"os"
	"regexp"
	"testing"
)

// mdReference finds the Markdown files a text names (docs/decisions.md §11, docs/x.md).
var mdReference = regexp.MustCompile(`[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b`)

// TestREADMEReferences: the README is read on a fresh clone, so every
// document it cites is in the repository (a citation of a file elsewhere
// sends the reader nowhere).
func TestREADMEReferences(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range mdReference.FindAllString(string(readme), -1) {
		if _, err := os.Stat(name); err != nil {
			t.Errorf("README.md cites %s, which is not in the repository", name)
		}
	}
}
