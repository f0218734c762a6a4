package main

import (
	"flag"
	"io"
)

type flagT = flag.Flag

func readAll(r io.Reader) ([]byte, error) {
	if r == nil {
		return nil, nil
	}
	return io.ReadAll(r)
}
