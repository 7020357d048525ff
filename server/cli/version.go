package cli

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version and commit are stamped by `make build` (-ldflags
// -X github.com/entityapi/entityapi/server/cli.version=... and .commit=...,
// from git describe and git rev-parse); other builds leave them empty and
// versionText says what the Go toolchain recorded.
var version, commit string

// versionUsage is the help of `entityapi version`.
const versionUsage = "usage: entityapi version\n  print the version, commit and Go version (also entityapi --version)"

// printVersion runs `entityapi version args...`: the version, or its help;
// it takes no other argument.
func printVersion(args []string, stdout io.Writer) error {
	switch {
	case len(args) == 0:
		_, err := fmt.Fprintln(stdout, versionText(version, commit, buildInfo()))
		return err
	case len(args) == 1 && isHelp(args[0]):
		_, err := fmt.Fprintln(stdout, versionUsage)
		return err
	}
	return errors.New(versionUsage)
}

// versionText is what `entityapi version` prints: the version, the commit and
// the Go version. Without stamps it takes the module version and vcs.revision
// of the build information (`go build` in a checkout records them; `go run`
// and -buildvcs=false do not), else "devel" and "unknown".
func versionText(version, commit string, info *debug.BuildInfo) string {
	modified := ""
	if info != nil {
		if version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && commit == "":
				commit = s.Value
			case s.Key == "vcs.modified" && s.Value == "true":
				modified = ", modified"
			}
		}
	}
	if version == "" {
		version = "devel"
	}
	if commit == "" {
		commit, modified = "unknown", ""
	}
	return fmt.Sprintf("entityapi %s (commit %s%s, %s %s/%s)", version, commit, modified, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// buildInfo is the build information of this binary, nil when there is none.
func buildInfo() *debug.BuildInfo {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return info
}
