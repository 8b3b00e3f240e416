package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// Attention has no weights, one scalar with use_scale, one more with
// score_mode "concat"; the output has the query's steps and the value's
// features.
func TestAttentionLayer(t *testing.T) {
	in := []ops.Shape{{2, 3, 4}, {2, 5, 6}, {2, 5, 4}}
	layertest.RunN(t, layers.NewAttention(), in, ops.Shape{2, 3, 6}, 0)
	layertest.RunN(t, layers.NewAttention(layers.WithUseScale(true)), []ops.Shape{{2, 3, 4}, {2, 5, 4}}, ops.Shape{2, 3, 4}, 1)
	layertest.RunN(t, layers.NewAttention(layers.WithUseScale(true), layers.WithScoreMode("concat")), in, ops.Shape{2, 3, 6}, 2)
	layertest.RunN(t, layers.NewAttention(layers.WithAttentionDropout(0.3)), in, ops.Shape{2, 3, 6}, 0)
}

// Attention's dot scores with a value mask and a query mask, against a
// loop: softmax over the unmasked value steps, zero rows at masked query
// steps.
func TestAttentionReference(t *testing.T) {
	const b, tq, tv, d = 2, 3, 4, 2
	q := []float32{0.1, -0.4, 0.7, 0.2, -0.3, 0.5, 0.9, 0.1, -0.2, -0.8, 0.4, 0.3}
	v := []float32{0.5, 0.1, -0.2, 0.3, 0.8, -0.6, 0.0, 0.4, 0.2, 0.2, -0.5, 0.9, 0.3, -0.1, 0.6, 0.7}
	qm := []float32{1, 1, 0, 1, 0, 1}
	vm := []float32{1, 0, 1, 1, 0, 1, 1, 0}
	tr := ops.NewTrace(false, 0, 1)
	qt, vt := tr.Constant(ops.Shape{b, tq, d}, q), tr.Constant(ops.Shape{b, tv, d}, v)
	layers.SetMask(qt, tr.Constant(ops.Shape{b, tq}, qm))
	layers.SetMask(vt, tr.Constant(ops.Shape{b, tv}, vm))
	l := layers.NewAttention()
	if _, err := layers.OutputShape(l, []ops.Shape{{-1, tq, d}, {-1, tv, d}}); err != nil {
		t.Fatal(err)
	}
	y := l.Call([]ops.Tensor{qt, vt}, false)
	if layers.Mask(y).IsNone() {
		t.Error("the output does not carry the query's mask")
	}
	got := run(t, tr, y)
	for bb := 0; bb < b; bb++ {
		for i := 0; i < tq; i++ {
			w := make([]float64, tv)
			var z float64
			for j := 0; j < tv; j++ {
				if vm[bb*tv+j] == 0 {
					continue
				}
				var s float64
				for c := 0; c < d; c++ {
					s += float64(q[(bb*tq+i)*d+c]) * float64(v[(bb*tv+j)*d+c])
				}
				w[j] = math.Exp(s)
				z += w[j]
			}
			for c := 0; c < d; c++ {
				var want float64
				for j := 0; j < tv; j++ {
					want += w[j] / z * float64(v[(bb*tv+j)*d+c])
				}
				want *= float64(qm[bb*tq+i])
				if g := got[(bb*tq+i)*d+c]; math.Abs(float64(g)-want) > 1e-6 {
					t.Errorf("y[%d,%d,%d] = %v, want %v", bb, i, c, g, want)
				}
			}
		}
	}
}

// AdditiveAttention's scale has the query's feature count; without
// use_scale it has no weights.
func TestAdditiveAttentionLayer(t *testing.T) {
	in := []ops.Shape{{2, 3, 4}, {2, 5, 4}}
	layertest.RunN(t, layers.NewAdditiveAttention(), in, ops.Shape{2, 3, 4}, 4)
	layertest.RunN(t, layers.NewAdditiveAttention(layers.WithUseScale(false)), in, ops.Shape{2, 3, 4}, 0)
}

// Bad arguments and inputs give errors naming the layer.
func TestAttentionErrors(t *testing.T) {
	wantErr(t, layers.NewAttention(layers.WithScoreMode("cosine")).Err(), "score_mode")
	wantErr(t, layers.NewAttention(layers.WithAttentionDropout(-0.1)).Err(), "dropout")
	wantErr(t, layers.NewAdditiveAttention(layers.WithScoreMode("dot")).Err(), "score_mode")
	_, err := layers.OutputShape(layers.NewAttention(), []ops.Shape{{-1, 3, 4}})
	wantErr(t, err, "Attention", "[query, value]")
	_, err = layers.OutputShape(layers.NewAttention(), []ops.Shape{{-1, 3, 4}, {-1, 5, 3}})
	wantErr(t, err, "Attention", "dim")
}
