package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// tools are the pinned Portman and newman of scripts/package.json.
type tools struct {
	portmanBin, newmanBin string
}

// findTools finds Portman and newman in scripts/node_modules (the program
// runs from the repository's root, as `make contract` runs it).
func findTools() (tools, error) {
	bin, err := filepath.Abs(filepath.Join("scripts", "node_modules", ".bin"))
	if err != nil {
		return tools{}, err
	}
	t := tools{portmanBin: filepath.Join(bin, "portman"), newmanBin: filepath.Join(bin, "newman")}
	for _, p := range []string{t.portmanBin, t.newmanBin} {
		if _, err := os.Stat(p); err != nil {
			return tools{}, fmt.Errorf("%s is missing: run `make contract` (or `npm ci` in scripts/) from the repository's root", p)
		}
	}
	return t, nil
}

// portman writes the collection of contract tests of the document at doc
// for the server at baseURL. It runs in dir, where Portman leaves its
// working files; its output goes to <name>.portman.log there.
func (t tools) portman(ctx context.Context, dir, name, doc, baseURL, config, collection string) error {
	return runLogged(ctx, dir, filepath.Join(dir, name+".portman.log"), t.portmanBin,
		"--local", doc, "--baseUrl", baseURL, "--portmanConfigFile", config, "--output", collection,
		"--includeTests", "--logAssignVariables=false")
}

// newman runs the collection with the token as its variable `token`, writing
// its JSON report to report and its console output to <name>.newman.log. A
// run with failed tests exits 1; the report says which, so only a run that
// wrote no report is an error here.
func (t tools) newman(ctx context.Context, dir, name, collection, token, report string) error {
	err := runLogged(ctx, dir, filepath.Join(dir, name+".newman.log"), t.newmanBin,
		"run", collection, "--env-var", "token="+token, "--reporters", "cli,json",
		"--reporter-json-export", report, "--color", "off", "--timeout-request", "60000")
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		if _, serr := os.Stat(report); serr == nil {
			return nil
		}
	}
	return err
}

// runLogged runs bin with args in dir, its output in the file log; on an
// error it shows the log's end.
func runLogged(ctx context.Context, dir, log, bin string, args ...string) error {
	f, err := os.Create(log)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w\n%s", filepath.Base(bin), err, tail(log, 4000))
	}
	return nil
}

// tail is the last n bytes of the file at path, for an error message.
func tail(path string, n int) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	if len(raw) > n {
		raw = raw[len(raw)-n:]
	}
	return string(raw)
}
