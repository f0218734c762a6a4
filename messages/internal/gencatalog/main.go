// Command gencatalog writes messages/catalog_gen.go from messages/catalog/*.toml
// (run by go generate ./messages, from the messages folder): strom starts with its
// messages as Go data and parses no TOML at run time.
package main

import (
	"fmt"
	"os"

	"github.com/strom-research/strom/messages/internal/catalogsrc"
)

// languages are the catalogs, English first, as messages.Languages lists them.
var languages = []string{"en", "de", "cs"}

func main() { os.Exit(run()) }

func run() int {
	src, err := catalogsrc.Go(os.DirFS("catalog"), languages)
	if err == nil {
		err = os.WriteFile("catalog_gen.go", src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencatalog:", err)
		return 1
	}
	return 0
}
