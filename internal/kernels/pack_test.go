package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPackGather checks every assembly gather routine against the pure-Go
// packing loops, for ragged panels and both transposes.
func TestPackGather(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	pure := func(f func()) {
		saved, savedLanes := gatherPack, gatherLanes
		gatherPack, gatherLanes = nil, 0
		defer func() { gatherPack, gatherLanes = saved, savedLanes }()
		f()
	}
	for _, g := range availableGathers {
		saved, savedLanes := gatherPack, gatherLanes
		gatherPack, gatherLanes = g.fn, g.lanes
		for _, mr := range []int{4, 6, 14} {
			for _, sh := range [][4]int{{1, 1, 0, 0}, {13, 9, 2, 3}, {30, 17, 5, 1}, {29, 40, 0, 7}} {
				mc, kc, i0, p0 := sh[0], sh[1], sh[2], sh[3]
				for _, trans := range []bool{false, true} {
					rows, cols := i0+mc, p0+kc
					if trans {
						rows, cols = cols, rows
					}
					ld := cols + 3
					src := randSlice(r, rows*ld)
					n := ceilDiv(mc, mr) * mr * kc
					got, want := randSlice(r, n), randSlice(r, n)
					packA(trans, src, ld, i0, p0, mc, kc, mr, got)
					pure(func() { packA(trans, src, ld, i0, p0, mc, kc, mr, want) })
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("%s packA trans=%v mr=%d %v: mismatch", g.name, trans, mr, sh)
					}
					// The same shapes as B blocks: kc x mc with nr = 2*mr+4.
					nr := 2*mr + 4
					n = ceilDiv(mc, nr) * nr * kc
					got, want = randSlice(r, n), randSlice(r, n)
					brows, bcols := p0+kc, i0+mc
					if trans {
						brows, bcols = bcols, brows
					}
					ldb := bcols + 2
					bsrc := randSlice(r, brows*ldb)
					packB(trans, bsrc, ldb, p0, i0, kc, mc, nr, got)
					pure(func() { packB(trans, bsrc, ldb, p0, i0, kc, mc, nr, want) })
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("%s packB trans=%v nr=%d %v: mismatch", g.name, trans, nr, sh)
					}
				}
			}
		}
		gatherPack, gatherLanes = saved, savedLanes
	}
}
