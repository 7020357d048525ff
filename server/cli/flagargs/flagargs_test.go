package flagargs

import (
	"errors"
	"flag"
	"io"
	"slices"
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
