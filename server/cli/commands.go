package cli

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
)

// command is one command of entityapi that opens the database: its name
// (one word, or a group and a word: "keys rotate"), what follows the name on
// its command line, what it does, and the flags it has beside its settings.
// The table of commands is the only place a command is declared: the list of
// `entityapi help`, each command's --help and run's dispatch read it, so a
// command's help names its own flags and no other (TestCommandHelp).
type command struct {
	name     string
	synopsis string // after the name in its usage line: positional arguments, required flags
	summary  string
	// flags registers the flags of the command's own (beside its settings);
	// nil: it has none.
	flags func(fs *flag.FlagSet, f *adminFlags)
	// sealsKeys: it reads or writes the signing keys in the database, so it
	// has the key-encryption key settings (serve, and the keys commands).
	sealsKeys bool
}

// commands are the commands that open the database, in the order help lists
// them. `batch` (a client of a running server), `version` and `help` are run
// apart (run).
var commands = []*command{
	{name: "serve", summary: "run the HTTP service (migrates first)", sealsKeys: true},
	{name: "migrate", summary: "apply the database migrations and exit"},
	{name: "org create", synopsis: "NAME", summary: "add an organization"},
	{name: "user create", synopsis: "--org NAME --username U --email E --first-name F --last-name L [--role ROLE] [--password P]",
		summary: "add a user to an organization", flags: userFlags},
	{name: "client create", synopsis: "--app backoffice --user USERNAME | --app storefront --org NAME",
		summary: "add an API client and print its secret, once", flags: clientFlags},
	{name: "client disable", synopsis: "ID", summary: "disable an API client"},
	{name: "keys rotate", summary: "add a signing key; older keys verify until their tokens expire", sealsKeys: true},
	{name: "keys rewrap", summary: "seal the signing keys with the key-encryption key (plain ones, or sealed with the previous one)", sealsKeys: true},
}

// commandNamed is the command of that name, nil when there is none.
func commandNamed(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// group is the first word of a two-word command ("keys" of "keys rotate"),
// "" for a one-word one.
func (c *command) group() string {
	g, _, ok := strings.Cut(c.name, " ")
	if !ok {
		return ""
	}
	return g
}

// usageLine is the first line of the command's help.
func (c *command) usageLine() string {
	line := "usage: entityapi " + c.name
	if c.synopsis != "" {
		line += " " + c.synopsis
	}
	return line + " [flags]"
}

// batchCommands are the lines of the batch client (server/cli/batchclient)
// in the list of every command.
var batchCommands = [][2]string{
	{"batch submit", "send a batch file to a running server and follow it"},
	{"batch status ID", "print an operation of a running server"},
	{"batch errors ID", "print the errors of an operation"},
}

// usage lists every command: `entityapi help`, and what a command line
// entityapi does not know is answered with.
func usage() string {
	var b strings.Builder
	b.WriteString("usage: entityapi COMMAND [flags]\n")
	line := func(name, summary string) { fmt.Fprintf(&b, "  %-22s %s\n", name, summary) }
	for _, c := range commands {
		name := c.name
		if c.synopsis != "" && !strings.HasPrefix(c.synopsis, "-") {
			name += " " + c.synopsis
		}
		line(name, c.summary)
	}
	for _, l := range batchCommands {
		line(l[0], l[1])
	}
	line("version", "print the version, commit and Go version (also --version)")
	line("help [COMMAND]", "print this list, or a command's flags (also --help)")
	b.WriteString("entityapi COMMAND --help lists the command's flags and settings.")
	return b.String()
}

// groupUsage lists the commands of a group (`entityapi keys --help`).
func groupUsage(group string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: entityapi %s COMMAND [flags]\n", group)
	for _, c := range commands {
		if c.group() == group {
			name := c.name
			if c.synopsis != "" && !strings.HasPrefix(c.synopsis, "-") {
				name += " " + c.synopsis
			}
			fmt.Fprintf(&b, "  %-22s %s\n", name, c.summary)
		}
	}
	fmt.Fprintf(&b, "entityapi %s COMMAND --help lists the command's flags and settings.", group)
	return b.String()
}

// isGroup tells whether word is the first word of two-word commands.
func isGroup(word string) bool {
	return slices.ContainsFunc(commands, func(c *command) bool { return c.group() == word })
}

// isHelp tells whether an argument asks for help.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help"
}

// errGroupHelp: the command line is a group and a request for help
// (`entityapi keys --help`).
var errGroupHelp = errors.New("help of a group of commands")

// findCommand finds the command args start with, and returns the arguments
// that follow its name. A group alone or with an unknown word is an error
// that lists the group's commands; errGroupHelp when the word asks for help.
func findCommand(args []string) (*command, []string, error) {
	if c := commandNamed(args[0]); c != nil {
		return c, args[1:], nil
	}
	group := args[0]
	if !isGroup(group) {
		return nil, nil, fmt.Errorf("unknown command %q\n%s", group, usage())
	}
	if len(args) == 1 {
		return nil, nil, fmt.Errorf("%q needs a command\n%s", group, groupUsage(group))
	}
	if c := commandNamed(group + " " + args[1]); c != nil {
		return c, args[2:], nil
	}
	if isHelp(args[1]) {
		return nil, nil, errGroupHelp
	}
	return nil, nil, fmt.Errorf("unknown command %q\n%s", group+" "+args[1], groupUsage(group))
}
