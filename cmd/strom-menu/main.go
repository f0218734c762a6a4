// Command strom-menu is the research's menu in the terminal. strom alone on a
// terminal, strom menu and strom setup run it in their place, so that the
// commands an agent runs many times a session do not start the terminal forms'
// libraries (menu.Main).
package main

import (
	"os"

	"github.com/strom-research/strom/menu"
)

func main() { os.Exit(menu.Main(os.Args[1:])) }
