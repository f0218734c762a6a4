// Command strom-app serves the app's research overview in a browser. strom app
// runs it in its own place, so that the commands an agent runs many times a
// session do not start the web server's libraries (app.Main).
package main

import (
	"os"

	"github.com/strom-research/strom/app"
)

func main() { os.Exit(app.Main(os.Args[1:], os.Stdout, os.Stderr, os.Getenv)) }
