package engine_test

import (
	"strings"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// TestCompileRefusesUnpayableBuffers: a program whose buffers are more than
// the process can take (a RepeatVector of 2^40 rows, as a hostile .keras
// once gave) or whose shape's size overflows an int is an error from
// Compile, not a makeslice panic or a fatal out of memory.
func TestCompileRefusesUnpayableBuffers(t *testing.T) {
	for _, c := range []struct {
		rows int
		want string
	}{
		{1 << 40, "this process can still allocate"},
		{3037000500 * 3037000500 / 3 * 2, "more values than an int can count"},
	} {
		tr := ops.NewTrace(false, 0, 0)
		x := tr.Input("x", ops.Shape{2, 3})
		y := ops.BroadcastTo(ops.Reshape(x, ops.Shape{2, 1, 3}), ops.Shape{2, c.rows, 3})
		_, err := engine.Compile(tr, []ops.Tensor{y})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("rows %d: Compile error %v; want %q", c.rows, err, c.want)
		}
	}
}
