// Command strom-app serves the app's research overview in a browser. strom app
// runs it in its own place, so that the commands an agent runs many times a
// session do not start the web server's libraries (app.Main).
package main

import (
	"os"

	"github.com/strom-research/strom/app"
)

// version is set with -ldflags "-X main.version=…", as strom's is.
var version = ""

func main() { os.Exit(app.Main(version, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)) }
