// Command breaking is the contract gate of `make verify`: it compares each
// application's bundled public document (openapi/bundled/<app>.yaml) with its last
// released version (openapi/released/<app>.yaml) using oasdiff's
// backward-compatibility checker, and fails on a breaking change (a change at
// level ERR) unless the bundled document's info.version has a greater MAJOR number
// than the released copy's. A new major is accepted only when the released copy is
// updated in the same change, so a document whose major is ahead of its released
// copy also fails, with the command that copies it (`make release-docs`).
//
// Usage: go run ./scripts/breaking [-released openapi/released] [-bundled openapi/bundled] [app ...]
// (apps default to backoffice and storefront).
package main

import (
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/oasdiff/oasdiff/checker"
	"github.com/oasdiff/oasdiff/diff"
	"github.com/oasdiff/oasdiff/load"
)

func main() {
	released := flag.String("released", "openapi/released", "folder of the last released documents")
	bundled := flag.String("bundled", "openapi/bundled", "folder of the bundled documents")
	flag.Parse()
	apps := flag.Args()
	if len(apps) == 0 {
		apps = []string{"backoffice", "storefront"}
	}
	failed := false
	for _, app := range apps {
		ok, err := gate(os.Stdout, app, filepath.Join(*released, app+".yaml"), filepath.Join(*bundled, app+".yaml"))
		if err != nil {
			fmt.Fprintf(os.Stderr, "breaking: %s: %v\n", app, err)
			os.Exit(2)
		}
		failed = failed || !ok
	}
	if failed {
		os.Exit(1)
	}
}

// gate checks one application's bundled document against its released copy,
// writes what it found to w and reports whether the gate passes.
func gate(w io.Writer, app, releasedPath, bundledPath string) (bool, error) {
	base, err := os.ReadFile(releasedPath)
	if os.IsNotExist(err) {
		fmt.Fprintf(w, "%s: no released copy %s: copy %s there (make release-docs) and commit it\n", app, releasedPath, bundledPath)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	revision, err := os.ReadFile(bundledPath)
	if err != nil {
		return false, err
	}
	changes, baseVersion, revisionVersion, err := compare(base, releasedPath, revision, bundledPath)
	if err != nil {
		return false, err
	}
	breaking, warnings := split(changes)
	l := checker.NewDefaultLocalizer()
	for _, c := range warnings {
		fmt.Fprintf(w, "%s: WARN %s\n", app, describe(c, l))
	}
	for _, c := range breaking {
		fmt.Fprintf(w, "%s: ERR  %s\n", app, describe(c, l))
	}
	v := judge(baseVersion, revisionVersion, len(breaking))
	fmt.Fprintf(w, "%s: released %s, bundled %s: %s\n", app, baseVersion, revisionVersion, v.message(releasedPath, bundledPath))
	return v == pass, nil
}

// compare loads both documents and returns the backward-compatibility changes of
// level WARN and above from base (the released copy) to revision (the bundled
// document), and the two info.version values.
func compare(base []byte, baseName string, revision []byte, revisionName string) (checker.Changes, string, string, error) {
	s1, err := loadSpec(base, baseName)
	if err != nil {
		return nil, "", "", fmt.Errorf("%s: %w", baseName, err)
	}
	s2, err := loadSpec(revision, revisionName)
	if err != nil {
		return nil, "", "", fmt.Errorf("%s: %w", revisionName, err)
	}
	d, sources, err := diff.GetWithOperationsSourcesMap(diff.NewConfig(), s1, s2)
	if err != nil {
		return nil, "", "", err
	}
	changes := checker.CheckBackwardCompatibility(checker.NewConfig(checker.GetAllChecks()), d, sources)
	return changes, s1.Version, s2.Version, nil
}

// loadSpec loads one document with a loader of its own (loaders cache by path),
// keeping origins so the changes name a line of the file.
func loadSpec(data []byte, name string) (*load.SpecInfo, error) {
	loader := openapi3.NewLoader()
	loader.IncludeOrigin = true
	s, err := load.NewSpecInfoFromData(loader, data, name)
	if err != nil {
		return nil, err
	}
	// NewSpecInfoFromData takes the path from the URL; keep the file name as given.
	s.Url = (&url.URL{Path: name}).Path
	return s, nil
}

// describe writes one change on a line: the operation, the change, the rule id
// and where it is (the bundled document, or the released copy for what was removed).
func describe(c checker.Change, l checker.Localizer) string {
	var b strings.Builder
	if c.GetOperation() != "" {
		fmt.Fprintf(&b, "%s %s: ", c.GetOperation(), c.GetPath())
	}
	fmt.Fprintf(&b, "%s [%s]", c.GetUncolorizedText(l), c.GetId())
	for _, s := range []*checker.Source{c.GetRevisionSource(), c.GetBaseSource()} {
		if s != nil && s.File != "" && s.Line > 0 {
			fmt.Fprintf(&b, " (%s:%d)", s.File, s.Line)
			break
		}
	}
	if comment := c.GetComment(l); comment != "" {
		b.WriteString(" " + comment)
	}
	return b.String()
}

// split separates the breaking changes (level ERR) from the warnings.
func split(changes checker.Changes) (breaking, warnings checker.Changes) {
	for _, c := range changes {
		if c.GetLevel() >= checker.ERR {
			breaking = append(breaking, c)
		} else {
			warnings = append(warnings, c)
		}
	}
	return breaking, warnings
}

type verdict int

const (
	pass           verdict = iota
	breakingChange         // breaking changes within the same major version
	releaseNeeded          // a new major whose released copy was not updated
	badVersion             // info.version is not MAJOR.MINOR.PATCH, or went back a major
)

// judge applies the rule: a breaking change needs a new major version, and a new
// major version needs the released copy updated in the same change.
func judge(baseVersion, revisionVersion string, breaking int) verdict {
	baseMajor, ok1 := major(baseVersion)
	revisionMajor, ok2 := major(revisionVersion)
	switch {
	case !ok1 || !ok2 || revisionMajor < baseMajor:
		return badVersion
	case revisionMajor > baseMajor:
		return releaseNeeded
	case breaking > 0:
		return breakingChange
	}
	return pass
}

func (v verdict) message(releasedPath, bundledPath string) string {
	switch v {
	case breakingChange:
		return "breaking changes (ERR above) against the released copy: make them compatible, or give info.version a new major number and copy " +
			bundledPath + " into " + filepath.Dir(releasedPath) + "/ (make release-docs) in the same change"
	case releaseNeeded:
		return "a new major version, which allows the breaking changes above: copy " + bundledPath + " into " + filepath.Dir(releasedPath) + "/ (make release-docs) and commit it with this change"
	case badVersion:
		return "info.version must be MAJOR.MINOR.PATCH and its major must not go below the released copy's"
	}
	return "no breaking change"
}

var semver = regexp.MustCompile(`^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:[-+].*)?$`)

// major returns the MAJOR number of a semantic version.
func major(version string) (int, bool) {
	m := semver.FindStringSubmatch(version)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}
