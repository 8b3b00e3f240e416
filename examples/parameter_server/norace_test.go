//go:build !race

package main

// raceBuild is true under -race, where the cluster tests take too long.
const raceBuild = false
