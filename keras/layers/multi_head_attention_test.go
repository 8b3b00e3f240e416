package layers_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// MultiHeadAttention's weights: query and key kernels (d, h, k) with
// biases (h, k), the value kernel (e, h, v) with bias (h, v), the output
// kernel (h, v, out) with bias (out,).
func TestMultiHeadAttentionLayer(t *testing.T) {
	params := func(dq, dk, dv, h, k, v, out int) int {
		return dq*h*k + h*k + dk*h*k + h*k + dv*h*v + h*v + h*v*out + out
	}
	layertest.RunN(t, layers.NewMultiHeadAttention(2, 3), []ops.Shape{{2, 4, 6}, {2, 5, 3}}, ops.Shape{2, 4, 6}, params(6, 3, 3, 2, 3, 3, 6))
	layertest.RunN(t, layers.NewMultiHeadAttention(3, 2, layers.WithValueDim(4), layers.WithOutputShape(5)),
		[]ops.Shape{{2, 4, 6}, {2, 5, 3}, {2, 5, 7}}, ops.Shape{2, 4, 5}, params(6, 7, 3, 3, 2, 4, 5))
	layertest.RunN(t, layers.NewMultiHeadAttention(2, 2, layers.WithUseBias(false), layers.WithAttentionDropout(0.2)),
		[]ops.Shape{{2, 3, 4}, {2, 3, 4}}, ops.Shape{2, 3, 4}, 4*2*2*3+2*2*4)
	layertest.RunN(t, layers.NewMultiHeadAttention(2, 2, layers.WithAttentionAxes(2)),
		[]ops.Shape{{2, 3, 4, 5}, {2, 3, 6, 5}}, ops.Shape{2, 3, 4, 5}, params(5, 5, 5, 2, 2, 2, 5))
}

// mhaReference computes multi-head attention of rank-3 inputs by loops in
// float64 from the layer's weights: project, scale, mask (allowed[b][i][j]),
// softmax, weight the values, project back.
func mhaReference(q, v []float64, b, tq, tv, d int, l *layers.MultiHeadAttention, allowed func(b, i, j int) bool) []float64 {
	h, k := l.NumHeads(), l.KeyDim()
	val := func(w *ops.Variable) []float64 {
		f := w.Numpy()
		out := make([]float64, len(f))
		for i, x := range f {
			out[i] = float64(x)
		}
		return out
	}
	wq, bq, wk, bk := val(l.QueryKernel), val(l.QueryBias), val(l.KeyKernel), val(l.KeyBias)
	wv, bv, wo, bo := val(l.ValueKernel), val(l.ValueBias), val(l.OutputKernel), val(l.OutputBias)
	proj := func(x []float64, t int, w, bias []float64, dim int) []float64 { // (b, t, h, dim)
		out := make([]float64, b*t*h*dim)
		for n := 0; n < b*t; n++ {
			for j := 0; j < h*dim; j++ {
				s := bias[j]
				for c := 0; c < d; c++ {
					s += x[n*d+c] * w[c*h*dim+j]
				}
				out[n*h*dim+j] = s
			}
		}
		return out
	}
	pq, pk, pv := proj(q, tq, wq, bq, k), proj(v, tv, wk, bk, k), proj(v, tv, wv, bv, k)
	y := make([]float64, b*tq*d)
	for bb := 0; bb < b; bb++ {
		for i := 0; i < tq; i++ {
			heads := make([]float64, h*k)
			for hh := 0; hh < h; hh++ {
				logits := make([]float64, tv)
				mx := math.Inf(-1)
				for j := 0; j < tv; j++ {
					var s float64
					for c := 0; c < k; c++ {
						s += pq[((bb*tq+i)*h+hh)*k+c] / math.Sqrt(float64(k)) * pk[((bb*tv+j)*h+hh)*k+c]
					}
					logits[j] = s
					if allowed(bb, i, j) {
						mx = math.Max(mx, s)
					}
				}
				var z float64
				for j := range logits {
					if allowed(bb, i, j) {
						logits[j] = math.Exp(logits[j] - mx)
						z += logits[j]
					} else {
						logits[j] = 0
					}
				}
				for j := range logits {
					if z > 0 {
						logits[j] /= z
					}
					for c := 0; c < k; c++ {
						heads[hh*k+c] += logits[j] * pv[((bb*tv+j)*h+hh)*k+c]
					}
				}
			}
			for o := 0; o < d; o++ {
				s := bo[o]
				for j := 0; j < h*k; j++ {
					s += heads[j] * wo[j*d+o]
				}
				y[(bb*tq+i)*d+o] = s
			}
		}
	}
	return y
}

// The layer equals the loop reference with no mask, with a causal mask,
// with an attention mask and with both, on cross-attention inputs.
func TestMultiHeadAttentionReference(t *testing.T) {
	const b, tq, tv, d = 2, 4, 5, 6
	r := rand.New(rand.NewPCG(3, 4))
	gen := func(n int) ([]float32, []float64) {
		f32, f64 := make([]float32, n), make([]float64, n)
		for i := range f32 {
			f32[i] = float32(r.NormFloat64())
			f64[i] = float64(f32[i])
		}
		return f32, f64
	}
	q32, q64 := gen(b * tq * d)
	v32, v64 := gen(b * tv * d)
	am := make([]float32, b*tq*tv)
	for i := range am {
		if i%tv == 0 || r.Float32() < 0.6 {
			am[i] = 1
		}
	}
	for _, c := range []struct {
		name           string
		causal, masked bool
	}{{"plain", false, false}, {"causal", true, false}, {"mask", false, true}, {"both", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			l := layers.NewMultiHeadAttention(3, 2, layers.WithBiasInitializer(layers.RandomUniform(-1, 1)), layers.WithSeed(9))
			if _, err := layers.OutputShape(l, []ops.Shape{{-1, tq, d}, {-1, tv, d}}); err != nil {
				t.Fatal(err)
			}
			tr := ops.NewTrace(false, 0, 1)
			a := layers.AttentionArgs{UseCausalMask: c.causal}
			if c.masked {
				a.AttentionMask = tr.Constant(ops.Shape{b, tq, tv}, am)
			}
			y, _ := l.Attend(tr.Constant(ops.Shape{b, tq, d}, q32), tr.Constant(ops.Shape{b, tv, d}, v32), a)
			got := run(t, tr, y)
			want := mhaReference(q64, v64, b, tq, tv, d, l, func(bb, i, j int) bool {
				return (!c.causal || j <= i) && (!c.masked || am[(bb*tq+i)*tv+j] == 1)
			})
			for i := range want {
				if math.Abs(float64(got[i])-want[i]) > 1e-5*math.Max(1, math.Abs(want[i])) {
					t.Fatalf("y[%d] = %v, reference %v", i, got[i], want[i])
				}
			}
		})
	}
}

// Bad arguments and inputs give errors naming the layer, never panics.
func TestMultiHeadAttentionErrors(t *testing.T) {
	for _, c := range []struct {
		l    layers.Layer
		want string
	}{
		{layers.NewMultiHeadAttention(0, 2), "num_heads"},
		{layers.NewMultiHeadAttention(2, -1), "key_dim"},
		{layers.NewMultiHeadAttention(2, 2, layers.WithAttentionDropout(1)), "dropout"},
		{layers.NewMultiHeadAttention(2, 2, layers.WithOutputShape(0)), "output_shape"},
		{layers.NewMultiHeadAttention(2, 2, layers.WithScoreMode("dot")), "score_mode"},
	} {
		wantErr(t, c.l.Err(), c.want)
	}
	for _, c := range []struct {
		shapes []ops.Shape
		want   string
	}{
		{[]ops.Shape{{-1, 4}, {-1, 4}}, "rank"},
		{[]ops.Shape{{-1, 3, 4}}, "query and value"},
		{[]ops.Shape{{-1, 3, 4}, {-1, 5, 4}, {-1, 6, 4}}, "other than the last"},
	} {
		_, err := layers.OutputShape(layers.NewMultiHeadAttention(2, 2), c.shapes)
		wantErr(t, err, "MultiHeadAttention", c.want)
	}
	_, err := layers.OutputShape(layers.NewMultiHeadAttention(2, 2, layers.WithAttentionAxes(3)), []ops.Shape{{-1, 3, 4}, {-1, 3, 4}})
	wantErr(t, err, "attention_axes")
	// An attention mask of the wrong shape.
	l := layers.NewMultiHeadAttention(2, 2)
	if _, err := layers.OutputShape(l, []ops.Shape{{-1, 3, 4}, {-1, 5, 4}}); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if _, ok := recover().(*ops.Error); !ok {
				t.Error("a (2, 3, 4) mask for (2, 3, 5) scores: no *ops.Error")
			}
		}()
		tr := ops.NewTrace(false, 0, 1)
		l.Attend(tr.Input("q", ops.Shape{2, 3, 4}), tr.Input("v", ops.Shape{2, 5, 4}), layers.AttentionArgs{AttentionMask: tr.Input("m", ops.Shape{2, 3, 4})})
	}()
}

// In training the attention dropout changes the output; in inference the
// layer is deterministic.
func TestMultiHeadAttentionDropout(t *testing.T) {
	l := layers.NewMultiHeadAttention(2, 4, layers.WithAttentionDropout(0.5), layers.WithSeed(1))
	if _, err := layers.OutputShape(l, []ops.Shape{{-1, 6, 4}, {-1, 6, 4}}); err != nil {
		t.Fatal(err)
	}
	x := make([]float32, 2*6*4)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)))
	}
	out := func(training bool) []float32 {
		tr := ops.NewTrace(training, 0, 1)
		xt := tr.Constant(ops.Shape{2, 6, 4}, x)
		return run(t, tr, l.Call([]ops.Tensor{xt, xt}, training))
	}
	a, b, c := out(false), out(false), out(true)
	same, diff := true, false
	for i := range a {
		same = same && a[i] == b[i]
		diff = diff || a[i] != c[i]
	}
	if !same || !diff {
		t.Errorf("inference repeatable %v, training differs %v", same, diff)
	}
}
