package cli

import (
	"bytes"
	"context"
	"os/exec"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server/cli/batchclient"
)

// TestHelpAndVersion: the usual ways of asking a command what it is and
// what it does answer on standard output, exit 0.
func TestHelpAndVersion(t *testing.T) {
	commands := []string{"serve", "migrate", "org create", "user create", "client create", "client disable", "keys rotate", "batch submit", "version"}
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, commands},
		{[]string{"-h"}, commands},
		{[]string{"help"}, commands},
		{[]string{"--version"}, []string{"entityapi ", "commit ", runtime.Version()}},
		{[]string{"version"}, []string{"entityapi ", "commit ", runtime.Version()}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if err := run(context.Background(), tt.args, &stdout, &stderr); err != nil {
				t.Fatalf("error %v (exit code %d)", err, batchclient.ExitCode(err))
			}
			for _, want := range tt.want {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("standard output lacks %q:\n%s", want, stdout.String())
				}
			}
			if stderr.Len() != 0 {
				t.Errorf("standard error: %q", stderr.String())
			}
		})
	}
	// Anything else is still an unknown command, exit 1.
	err := run(context.Background(), []string{"--verison"}, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), `unknown command "--verison"`) || batchclient.ExitCode(err) != 1 {
		t.Errorf("--verison: %v", err)
	}
}

// TestVersionText: what is printed from the stamps of `make build`, and from
// the build information of other builds.
func TestVersionText(t *testing.T) {
	goVersion := runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	vcs := func(settings ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/entityapi/entityapi", Version: "(devel)"}}
		for i := 0; i+1 < len(settings); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return info
	}
	for _, tt := range []struct {
		name            string
		version, commit string
		info            *debug.BuildInfo
		want            string
	}{
		{"make build", "v1.2.0-3-gabc1234", "abc1234def", vcs("vcs.revision", "abc1234def"),
			"entityapi v1.2.0-3-gabc1234 (commit abc1234def, " + goVersion + ")"},
		{"go build in a checkout", "", "", vcs("vcs.revision", "0123456789abcdef", "vcs.modified", "true"),
			"entityapi devel (commit 0123456789abcdef, modified, " + goVersion + ")"},
		{"go run or -buildvcs=false", "", "", vcs("-buildmode", "exe"),
			"entityapi devel (commit unknown, " + goVersion + ")"},
		{"go install of a version", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.0.1"}},
			"entityapi v1.0.1 (commit unknown, " + goVersion + ")"},
		{"no build information", "", "", nil,
			"entityapi devel (commit unknown, " + goVersion + ")"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionText(tt.version, tt.commit, tt.info); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// versionPackage is the import path the linker's -X flags name the
// variables by: this package's.
var versionPackage = reflect.TypeFor[config]().PkgPath()

// TestMakeBuildStamps: `make build` sets the variables versionText reads
// (a misspelt -X name is silently ignored by the linker).
func TestMakeBuildStamps(t *testing.T) {
	mk := needCommand(t, "make", "the test reads `make -n build`")
	out, err := exec.Command(mk, "-C", "../..", "-n", "build", "VERSION=v9.9.9", "COMMIT=c0ffee").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n build: %v\n%s", err, out)
	}
	for _, want := range []string{"-X " + versionPackage + ".version=v9.9.9", "-X " + versionPackage + ".commit=c0ffee"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("make build does not pass %q:\n%s", want, out)
		}
	}
	_ = version + commit // the variables the flags name
}

// TestMainExitCode: Main prints a failed command's error as one line on
// stderr, "entityapi: " first, and answers the exit code; a command that
// succeeds prints no such line and answers 0.
func TestMainExitCode(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Main(context.Background(), []string{"version"}, &stdout, &stderr); code != 0 || stderr.Len() != 0 ||
		!strings.HasPrefix(stdout.String(), "entityapi ") {
		t.Errorf("version: exit code %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	code := Main(context.Background(), []string{"frobnicate"}, &stdout, &stderr)
	if code != batchclient.ExitRefused || !strings.HasPrefix(stderr.String(), `entityapi: unknown command "frobnicate"`) || stdout.Len() != 0 {
		t.Errorf("an unknown command: exit code %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}
