// Command genprofiles writes harness/agents/profiles_gen.go from profiles.json (run
// by go generate ./harness/agents, from the agents folder): every shipped profile
// as Go data, so that a lookup decodes no JSON but a person's override.
// TestShippedProfiles fails when the file is not what profiles.json says.
package main

import (
	"fmt"
	"go/format"
	"os"

	"github.com/strom-research/strom/harness/agents"
)

func main() { os.Exit(run()) }

func run() int {
	data, err := os.ReadFile("profiles.json")
	var src []byte
	if err == nil {
		src, err = agents.ShippedSource(data)
	}
	if err == nil {
		src, err = format.Source(src)
	}
	if err == nil {
		err = os.WriteFile("profiles_gen.go", src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genprofiles:", err)
		return 1
	}
	return 0
}
