//go:build race

package racetest

// Enabled: this binary is built with -race.
const Enabled = true
