//go:build !cuda

package main

import (
	"fmt"
	"os"
)

// main: without the cuda build tag there is nothing to check.
func main() {
	fmt.Println("preflight: FAIL built without -tags cuda (tools/gpu/build.sh build ./tools/gpu/preflight OUT)")
	os.Exit(1)
}
