package distribute_test

import (
	"fmt"
	"testing"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// BenchmarkPSStep is one worker step's traffic on loopback, one server:
// the push of the variable's gradient, answered with the fresh value
// (SGD applied on the server), which the next step uses without pulling
// it again (only the first step pulls).
func BenchmarkPSStep(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 17, 1 << 20} {
		b.Run(fmt.Sprintf("floats=%d", n), func(b *testing.B) {
			c := startInProcess(b, 1, 1)
			init := make([]float32, n)
			v := ops.NewVariable("w", ops.Shape{n}, init, true)
			wv := ops.NewVariable("w", ops.Shape{n}, init, true)
			if err := c.chief.Track(v); err != nil {
				b.Fatal(err)
			}
			w := c.workers[0]
			if err := w.Track(wv); err != nil {
				b.Fatal(err)
			}
			opt := optimizers.NewSGD()
			g := [][]float32{make([]float32, n)}
			b.SetBytes(int64(2 * 4 * n)) // push, fresh values
			b.ResetTimer()
			for range b.N {
				if err := w.RunReplicas(func(rc ops.ReplicaContext) error {
					return opt.Apply(rc, g, []*ops.Variable{wv})
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var _ = distribute.FixedShardsPartitioner
