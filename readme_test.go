package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README is a user's first screen; the reference lives in docs/.
const readmeMaxLines = 600

var (
	// mdReference finds the Markdown files a text names (docs/decisions.md §11, docs/x.md).
	mdReference = regexp.MustCompile(`[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b`)
	// mdLink finds the targets of Markdown links to Markdown files, with their anchors:
	// [text](docs/batch.md#the-request), [text](#development).
	mdLink = regexp.MustCompile(`\]\(([^)\s#]*\.md)?(#[^)\s]*)?\)`)
	// mdWholeLink finds whole Markdown links, their text included.
	mdWholeLink = regexp.MustCompile(`\[[^\]]*\]\([^)]*\)`)
	// mdHeading finds the headings a link's anchor can name.
	mdHeading = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
	// fence finds fenced blocks, whose headings are not headings.
	fence = regexp.MustCompile("(?ms)^```.*?^```$")
)

// TestREADMEReferences: the README is read on a fresh clone, so every
// document it cites is in the repository (a citation of a file elsewhere
// sends the reader nowhere), and every link lands on a heading.
func TestREADMEReferences(t *testing.T) {
	checkReferences(t, "README.md")
}

// TestDocsReferences: the same for every page of docs/, whose links are
// relative to docs/ and whose other citations name files from the
// repository's root.
func TestDocsReferences(t *testing.T) {
	for _, page := range docsPages(t) {
		checkReferences(t, page)
	}
}

// TestDocsLinkedFromREADME: a page of docs/ that the README does not link is
// a page nobody finds.
func TestDocsLinkedFromREADME(t *testing.T) {
	readme := readText(t, "README.md")
	linked := map[string]bool{}
	for _, m := range mdLink.FindAllStringSubmatch(readme, -1) {
		linked[filepath.Clean(m[1])] = true
	}
	for _, page := range docsPages(t) {
		if !linked[page] {
			t.Errorf("README.md does not link %s", page)
		}
	}
}

// TestREADMELength: the README stays a first screen and a map, not a reference.
func TestREADMELength(t *testing.T) {
	if n := strings.Count(readText(t, "README.md"), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, at most %d: move reference material to a page of docs/", n, readmeMaxLines)
	}
}

// checkReferences checks the Markdown files and headings a page names. Link
// targets resolve from the page's directory, as a reader's browser resolves
// them; other mentions (`ARCHITECTURE.md`) name files from the repository's root.
func checkReferences(t *testing.T, page string) {
	t.Helper()
	text := readText(t, page)
	dir := filepath.Dir(page)
	for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
		target, anchor := page, strings.TrimPrefix(m[2], "#")
		if m[1] != "" {
			target = filepath.Join(dir, m[1])
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s links %s, which is not in the repository", page, m[1])
				continue
			}
		}
		if anchor != "" && !anchors(t, target)[anchor] {
			t.Errorf("%s links %s#%s, a heading %s does not have", page, m[1], anchor, target)
		}
	}
	for _, name := range mdReference.FindAllString(mdWholeLink.ReplaceAllString(text, ""), -1) {
		if _, err := os.Stat(name); err != nil {
			t.Errorf("%s cites %s, which is not in the repository", page, name)
		}
	}
}

// anchors are the link anchors of a page's headings, as GitHub makes them:
// lower case, punctuation dropped, spaces as hyphens.
func anchors(t *testing.T, page string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, m := range mdHeading.FindAllStringSubmatch(fence.ReplaceAllString(readText(t, page), ""), -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
				b.WriteRune(r)
			}
		}
		out[b.String()] = true
	}
	return out
}

// docsPages are the Markdown pages of docs/.
func docsPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("docs/ has no pages")
	}
	return pages
}

func readText(t *testing.T, name string) string {
	t.Helper()
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
