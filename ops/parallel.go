package ops

import (
	"runtime"

	"github.com/gokeras/gokeras/internal/par"
	"github.com/gokeras/gokeras/internal/vec"
)

// The ops' loops run on the persistent worker pool of internal/par (no
// goroutine is started per call).

// parallelFor splits [0, n) into contiguous chunks and runs body on them
// concurrently (a few chunks per CPU, claimed dynamically by the caller
// and the pool's workers). Small n runs inline.
func parallelFor(n int, body func(lo, hi int)) { par.For(n, body) }

// parallelChunks runs body over [0, n) in chunks of chunk items.
func parallelChunks(n, chunk int, body func(lo, hi int)) { par.Chunks(n, chunk, body) }

// parallelElems runs body over [0, n) elements, in parallel when n is
// large enough to pay for it.
func parallelElems(n int, body func(lo, hi int)) { par.Elems(n, body) }

// parallelRows runs body over [0, rows) rows of rowLen elements, in
// parallel when they hold enough elements to pay for it.
func parallelRows(rows, rowLen int, body func(lo, hi int)) { par.Rows(rows, rowLen, body) }

// parMinElems is the size below which elementwise loops run inline.
const parMinElems = par.MinElems

// imageSplit divides a batch of n images into blocks of at most nb images
// (nb chosen for the caches) to run in parallel, one block per core at a
// time, each block's GEMMs on its own core (serial): the data
// parallelism of replicas inside one op. Splitting every GEMM of a block
// over the cores instead paid nothing on the seed models' small GEMMs
// (docs/performance.md). Where the blocks would not share evenly over the
// CPUs, they are made smaller, so that their count is a multiple of the
// CPU count.
//
// Forward passes and input gradients compute each image on its own, and
// a GEMM's sums do not depend on how its rows are split, so their
// results are bitwise the same for any block size and CPU count.
type imageSplit struct {
	n, nb  int
	blocks int
	slots  int // goroutines that may run blocks (scratch sets needed)
}

func splitImages(n, nb int) imageSplit {
	nb = max(1, min(nb, n))
	blocks := ceilDiv(n, nb)
	if p := runtime.GOMAXPROCS(0); p > 1 && n > 1 {
		// as many blocks as a multiple of p, each no larger than nb
		per := ceilDiv(blocks, p) // blocks per core
		nb = ceilDiv(n, p*per)
		blocks = ceilDiv(n, nb)
	}
	return imageSplit{n: n, nb: nb, blocks: blocks, slots: par.Slots(blocks, 1)}
}

// run calls body for each block [b0, b1) of images; slot (< s.slots) names
// the goroutine running it, for its scratch. serial says that blocks run
// in parallel, so body's GEMMs should run on its own goroutine
// (gemmMode.gemm(serial)); a single block gets every core for its GEMMs.
func (s imageSplit) run(body func(slot, b0, b1 int, serial bool)) {
	if s.slots <= 1 {
		for b0 := 0; b0 < s.n; b0 += s.nb {
			body(0, b0, min(b0+s.nb, s.n), false)
		}
		return
	}
	par.SlotChunks(s.blocks, 1, s.slots, func(slot, lo, hi int) {
		for blk := lo; blk < hi; blk++ {
			b0 := blk * s.nb
			body(slot, b0, min(b0+s.nb, s.n), true)
		}
	})
}

// maxFilterParts bounds the parts of a batch whose filter gradients are
// summed separately (sumFilterParts).
const maxFilterParts = 4

// filterParts is how many parts of a batch of n images a filter gradient
// sums separately, in parallel, when its GEMMs have rows rows of depth
// over the whole batch: up to maxFilterParts while each part keeps
// filterBlockRows of depth, and 2 down to a depth of minPartRows (small
// maps: the GEMMs of a class over the whole batch are too small to split
// well over the cores). It depends on the geometry only, never on the
// CPU count, so results do not either.
func filterParts(n, rows int) int {
	parts := rows / filterBlockRows
	if parts < 2 && rows >= 2*minPartRows {
		parts = 2
	}
	return max(1, min(maxFilterParts, n, parts))
}

// minPartRows is the least GEMM depth of a filter-gradient part.
const minPartRows = 32

// sumFilterParts computes a filter gradient dw in parts of the batch of n
// images: body writes into dst the gradient of part part of parts, images
// [p0, p1) (dst is dw itself for the first part, scratch for the others)
// using perSlot floats of slot scratch, its GEMMs serial when serial; the
// parts run in parallel and are then added into dw in order.
func sumFilterParts(dw []float32, n, parts, perSlot int, arena *scratchArena, body func(dst, scratch []float32, part, parts, p0, p1 int, serial bool)) {
	if parts <= 1 {
		body(dw, arena.get(perSlot), 0, 1, 0, n, false)
		return
	}
	partImages := ceilDiv(n, parts)
	parts = ceilDiv(n, partImages) // none empty
	slots := par.Slots(parts, 1)
	// The parts' GEMMs run on their own goroutines when the parts fill
	// the cores, else split over the rest (either way the same sums).
	serial := slots > 1 && slots >= runtime.GOMAXPROCS(0)
	buf := arena.get(slots*perSlot + (parts-1)*len(dw))
	sums := buf[slots*perSlot:]
	par.SlotChunks(parts, 1, slots, func(slot, lo, hi int) {
		for part := lo; part < hi; part++ {
			dst := dw
			if part > 0 {
				dst = sums[(part-1)*len(dw):][:len(dw)]
			}
			body(dst, buf[slot*perSlot:][:perSlot], part, parts, part*partImages, min((part+1)*partImages, n), serial)
		}
	})
	parallelElems(len(dw), func(lo, hi int) {
		for part := 1; part < parts; part++ {
			vec.Add(dw[lo:hi], dw[lo:hi], sums[(part-1)*len(dw):][lo:hi])
		}
	})
}
