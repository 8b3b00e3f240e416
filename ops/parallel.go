package ops

import "github.com/gokeras/gokeras/internal/par"

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
