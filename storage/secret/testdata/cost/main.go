// Command cost prints the bcrypt cost of a hash made by package secret in an
// ordinary binary (not a test binary), for TestBinaryHashesAtDefaultCost.
package main

import (
	"fmt"
	"os"

	"golang.org/x/crypto/bcrypt"

	"github.com/entityapi/entityapi/storage/secret"
)

func main() {
	hash, err := secret.Hash("a password")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cost, err := bcrypt.Cost([]byte(hash))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(secret.Cost(), cost)
}
