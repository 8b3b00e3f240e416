// Package racetest tells tests whether they run under the race detector
// (go test -race), and skips the ones that check no concurrent code.
//
// The README's test command races the packages tools/race_packages.sh
// lists: those with concurrent code. Inside them, some tests exercise code
// that runs on one goroutine only (a parser's bound on a hostile file, an
// allocation budget, a training recipe): the race detector cannot find a
// race there, and makes them 5-20x slower. They call Skip, and keep running
// in the plain go test ./... run.
package racetest
