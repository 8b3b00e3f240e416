package engine

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gokeras/gokeras/ops"
)

// Per-op timing, off by default: EnableOpStats(true) makes every replay
// time each step and accumulate the wall time per op kind, read by OpStats;
// EnableOpStatsByShape(true) splits each kind by its operands' shapes (which
// of a model's sixteen convolutions costs what). It is a measuring aid
// (docs/performance.md), not a profiler: a kind's time includes waiting for
// the GEMM and elementwise worker pools.

var (
	opStatsOn     atomic.Bool
	opStatsShapes atomic.Bool
	opStatsMu     sync.Mutex
	opStats       = map[opStatKey]*OpStat{}
)

type opStatKey struct{ kind, shapes string }

// OpStat is the accumulated wall time of one op kind, or of one kind at
// one set of operand shapes.
type OpStat struct {
	Kind string
	// Shapes is "in, in -> out" (each shape as 64x16x16x64, a scalar as
	// ()) when gathered by EnableOpStatsByShape, else empty. A hook (an
	// optimizer's update) has inputs only.
	Shapes string
	Calls  int
	Time   time.Duration
}

// EnableOpStats turns per-op timing on or off and clears what was gathered.
func EnableOpStats(on bool) { enableOpStats(on, false) }

// EnableOpStatsByShape is EnableOpStats with each kind's time split by the
// shapes of its operands.
func EnableOpStatsByShape(on bool) { enableOpStats(on, on) }

func enableOpStats(on, byShape bool) {
	opStatsMu.Lock()
	opStats = map[opStatKey]*OpStat{}
	opStatsMu.Unlock()
	opStatsShapes.Store(byShape)
	opStatsOn.Store(on)
}

// OpStats returns the accumulated time per op kind (and shapes), largest
// first.
func OpStats() []OpStat {
	opStatsMu.Lock()
	defer opStatsMu.Unlock()
	out := make([]OpStat, 0, len(opStats))
	for _, s := range opStats {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b OpStat) int {
		if a.Time != b.Time {
			return cmp.Compare(b.Time, a.Time)
		}
		return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.Shapes, b.Shapes))
	})
	return out
}

func recordOp(kind, shapes string, d time.Duration) {
	opStatsMu.Lock()
	k := opStatKey{kind, shapes}
	s := opStats[k]
	if s == nil {
		s = &OpStat{Kind: kind, Shapes: shapes}
		opStats[k] = s
	}
	s.Calls++
	s.Time += d
	opStatsMu.Unlock()
}

// shapesOf formats the shapes of buffers ins and, unless out < 0, out:
// "64x32x32x3, 3x3x3x64 -> 64x32x32x64".
func (p *Program) shapesOf(ins []int, out int) string {
	var b strings.Builder
	for i, in := range ins {
		if i > 0 {
			b.WriteString(", ")
		}
		writeShape(&b, p.shapes[in])
	}
	if out >= 0 {
		b.WriteString(" -> ")
		writeShape(&b, p.shapes[out])
	}
	return b.String()
}

func writeShape(b *strings.Builder, s ops.Shape) {
	if len(s) == 0 {
		b.WriteString("()")
		return
	}
	for i, d := range s {
		if i > 0 {
			b.WriteByte('x')
		}
		b.WriteString(strconv.Itoa(d))
	}
}
