//go:build tools

package tools
import (
 _ "github.com/go-git/go-git/v5"
 _ "github.com/santhosh-tekuri/jsonschema/v5"
 _ "github.com/creack/pty"
 _ "github.com/peterbourgon/ff/v3/ffcli"
 _ "github.com/rogpeppe/go-internal/testscript"
 _ "github.com/google/go-cmp/cmp"
 _ "golang.org/x/term"
 _ "golang.org/x/sys/unix"
)
