#!/usr/bin/env bash
# Print the packages that `go test -race` has something to check in: the README's test command runs
#
#   go test -race $(tools/race_packages.sh)
#
# The race detector reports two goroutines touching the same memory, one of them writing, without ordering between
# them. A package's tests can show such a race only in code that runs on more than one goroutine, which is:
#   1. code of a package that starts goroutines or shares memory between them itself: a `go` statement, channels,
#      select, sync or sync/atomic, in its package or test files (the executor, the kernels' parallel loops in
#      internal/par, distribute's replicas and all-reduce, the dataset prefetchers, the parameter-server RPCs...);
#   2. a package's own functions that a strategy runs once per replica on goroutines of its own (strategy.Run of a
#      step written in that package, tests with -replicas 2 or logical CPUs), or that it times concurrently.
# A package with neither (losses, utils, the HDF5 reader, most examples) runs its own code on one goroutine: its
# tests under -race can only re-check, with other shapes, the concurrent code of the packages above, whose own
# tests already run under -race. The rule is computed from the source each time, so a package that starts using
# goroutines is race-tested from then on without editing this list.
#
#   tools/race_packages.sh [-v] [PACKAGES...]   -v: also print, on stderr, each package left out
set -euo pipefail
cd "$(dirname "$0")/.."
verbose=false
if [ "${1:-}" = -v ]; then verbose=true; shift; fi
PKGS=("$@")
[ ${#PKGS[@]} -eq 0 ] && PKGS=(./...)

concurrent='(^|[^[:alnum:]_.])go (func|[[:alpha:]_][[:alnum:]_.]*\()|\<sync\.|\<atomic\.|\<chan\>|\<select \{|<-'
replicas='SetLogicalCPUs|strategy\.Run\(|"-replicas", "[2-9]"|Replicas: *[2-9]'
while read -r pkg dir files; do
  if [ -n "$files" ] && (cd "$dir" && grep -qE "$concurrent|$replicas" $files); then
    echo "$pkg"
  elif $verbose; then
    echo "race_packages: left out $pkg" >&2
  fi
done < <(go list -f '{{.ImportPath}} {{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{range .CgoFiles}} {{.}}{{end}}{{range .TestGoFiles}} {{.}}{{end}}{{range .XTestGoFiles}} {{.}}{{end}}' "${PKGS[@]}")
