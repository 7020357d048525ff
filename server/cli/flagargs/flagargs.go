// Package flagargs lets the flags of a command follow its positional
// arguments (`entityapi org create Acme --data-dir ./data`,
// `entityapi batch status 7 --url ...`), which the flag package alone stops
// at. Both the settings of the database commands (server/cli) and the batch
// client (server/cli/batchclient) read their command lines with it; it is a
// leaf of the standard library, so the batch client needs nothing of the
// commands that open a database.
package flagargs

import "flag"

// Parse parses args with fs, flags and positional arguments in any order,
// and returns the positional arguments in their order. Its errors are
// fs.Parse's (flag.ErrHelp for -h and --help).
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
