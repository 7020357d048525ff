package flagargs

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestParse: flags are read wherever they stand among the positional
// arguments, "--" ends the flags, and -h is flag.ErrHelp.
func TestParse(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		wantDir   string
		wantArgs  []string
		wantError error
	}{
		{name: "flags first", args: []string{"--dir", "d", "a", "b"}, wantDir: "d", wantArgs: []string{"a", "b"}},
		{name: "flags last", args: []string{"a", "b", "--dir", "d"}, wantDir: "d", wantArgs: []string{"a", "b"}},
		{name: "flags between", args: []string{"a", "--dir=d", "b"}, wantDir: "d", wantArgs: []string{"a", "b"}},
		{name: "no positional", args: []string{"--dir", "d"}, wantDir: "d"},
		{name: "dashes end the flags", args: []string{"a", "--", "--dir"}, wantArgs: []string{"a", "--dir"}},
		{name: "help", args: []string{"a", "-h"}, wantError: flag.ErrHelp},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			dir := fs.String("dir", "", "a directory")
			got, err := Parse(fs, tt.args)
			if !errors.Is(err, tt.wantError) {
				t.Fatalf("error %v, want %v", err, tt.wantError)
			}
			if err != nil {
				return
			}
			if *dir != tt.wantDir || !slices.Equal(got, tt.wantArgs) {
				t.Errorf("dir %q, positional %q; want %q, %q", *dir, got, tt.wantDir, tt.wantArgs)
			}
		})
	}
}

// TestErrorsNameTheFlagWithTwoDashes: a mistake names the flag as the help
// does (--page-size), never as the flag package does (-page-size), and
// nothing is printed on the flag set's output.
func TestErrorsNameTheFlagWithTwoDashes(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "flag provided but not defined: --bogus"},
		{[]string{"-bogus"}, "flag provided but not defined: --bogus"},
		{[]string{"--page-size"}, "flag needs an argument: --page-size"},
		{[]string{"--page-size", "ten"}, `invalid value "ten" for flag --page-size: parse error`},
		{[]string{"--page-size", `a" for flag -x`}, `invalid value "a\" for flag -x" for flag --page-size: parse error`},
		{[]string{"--sync=maybe"}, `invalid boolean value "maybe" for --sync: parse error`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			var printed bytes.Buffer
			fs.SetOutput(&printed)
			fs.Int("page-size", 100, "errors per page")
			fs.Bool("sync", false, "at once")
			_, err := Parse(fs, tt.args)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %s", err, tt.want)
			}
			if printed.Len() != 0 {
				t.Errorf("printed %q", printed.String())
			}
		})
	}
}

// TestWriteFlags: flags with two dashes, their defaults when worth saying,
// and none of those skipped.
func TestWriteFlags(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.Int("page-size", 100, "errors per page")
	fs.Bool("sync", false, "at once")
	fs.String("url", "", "where")
	var out bytes.Buffer
	WriteFlags(&out, fs, func(name string) bool { return name == "url" })
	want := "  --page-size\n      errors per page (default: 100)\n  --sync\n      at once\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
