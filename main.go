// Command entityapi serves the business entities of a back-office application as a
// JSON:API web interface (see README.md). Everything it runs is in package
// server/cli: this is the process's edge, its arguments, standard streams and
// exit code.
package main

import (
	"context"
	"os"

	"github.com/entityapi/entityapi/server/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
