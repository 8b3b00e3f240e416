package layers_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestBatchNormalizationShapesAndConfig(t *testing.T) {
	bn := layers.NewBatchNormalization()
	layertest.Run(t, bn, ops.Shape{4, 3, 3, 5}, ops.Shape{4, 3, 3, 5}, 20)
	if n := len(bn.TrainableWeights()); n != 2 {
		t.Errorf("%d trainable weights, want gamma and beta", n)
	}
	if n := len(bn.NonTrainableWeights()); n != 2 {
		t.Errorf("%d non-trainable weights, want the moving statistics", n)
	}
	cfg := bn.GetConfig()
	if cfg["momentum"] != 0.99 || cfg["epsilon"] != 1e-3 {
		t.Errorf("defaults: %v", cfg)
	}
	if err := layers.NewBatchNormalization(layers.WithMomentum(2)).Err(); err == nil {
		t.Error("momentum 2 accepted")
	}
}

// TestBatchNormalizationTraining checks the forward pass, the gradient and
// the moving statistics against a float64 reference of Keras' formulas.
func TestBatchNormalizationTraining(t *testing.T) {
	const n, c = 6, 3
	r := rand.New(rand.NewPCG(4, 4))
	x := make([]float32, n*c)
	for i := range x {
		x[i] = float32(r.NormFloat64()*2 + 1)
	}
	bn := layers.NewBatchNormalization(layers.WithMomentum(0.9))
	if _, err := layers.OutputShape(bn, []ops.Shape{{-1, c}}); err != nil {
		t.Fatal(err)
	}
	gamma := []float32{1.5, -0.5, 2}
	beta := []float32{0.1, 0.2, -0.3}
	bn.Gamma.Assign(gamma)
	bn.Beta.Assign(beta)
	// Reference.
	mean, variance := make([]float64, c), make([]float64, c)
	for j := 0; j < c; j++ {
		for i := 0; i < n; i++ {
			mean[j] += float64(x[i*c+j]) / n
		}
		for i := 0; i < n; i++ {
			d := float64(x[i*c+j]) - mean[j]
			variance[j] += d * d / n
		}
	}
	want := make([]float64, n*c)
	for i := 0; i < n; i++ {
		for j := 0; j < c; j++ {
			want[i*c+j] = (float64(x[i*c+j])-mean[j])/math.Sqrt(variance[j]+1e-3)*float64(gamma[j]) + float64(beta[j])
		}
	}
	// Run training mode once: output, d sum(y*w)/dx, moving statistics.
	tr := ops.NewTrace(true, 0, 1)
	xv := ops.NewVariable("x", ops.Shape{n, c}, x, true)
	y := bn.Call([]ops.Tensor{tr.Read(xv)}, true)
	w := make([]float32, n*c)
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	loss := ops.Sum(ops.Mul(y, tr.Constant(ops.Shape{n, c}, w)), false)
	grads, err := ops.Gradients(loss, []*ops.Variable{xv})
	if err != nil {
		t.Fatal(err)
	}
	p, err := engine.Compile(tr, []ops.Tensor{y, grads[0]})
	if err != nil {
		t.Fatal(err)
	}
	vals, err := p.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vals[0].Data {
		if math.Abs(float64(v)-want[i]) > 1e-4 {
			t.Fatalf("y[%d] = %v, want %v", i, v, want[i])
		}
	}
	// Gradient of batch norm: g*inv/n * (n*dy - sum(dy) - xhat*sum(dy*xhat)).
	for j := 0; j < c; j++ {
		inv := 1 / math.Sqrt(variance[j]+1e-3)
		var sdy, sdyx float64
		for i := 0; i < n; i++ {
			xhat := (float64(x[i*c+j]) - mean[j]) * inv
			sdy += float64(w[i*c+j])
			sdyx += float64(w[i*c+j]) * xhat
		}
		for i := 0; i < n; i++ {
			xhat := (float64(x[i*c+j]) - mean[j]) * inv
			g := float64(gamma[j]) * inv / n * (n*float64(w[i*c+j]) - sdy - xhat*sdyx)
			if got := float64(vals[1].Data[i*c+j]); math.Abs(got-g) > 1e-3*math.Max(1, math.Abs(g)) {
				t.Errorf("dx[%d,%d] = %v, want %v", i, j, got, g)
			}
		}
	}
	for j := 0; j < c; j++ {
		wm := 0.1 * mean[j]
		wv := 0.9 + 0.1*variance[j]
		if got := float64(bn.MovingMean.Data(0)[j]); math.Abs(got-wm) > 1e-5 {
			t.Errorf("moving_mean[%d] = %v, want %v", j, got, wm)
		}
		if got := float64(bn.MovingVariance.Data(0)[j]); math.Abs(got-wv) > 1e-5 {
			t.Errorf("moving_variance[%d] = %v, want %v", j, got, wv)
		}
	}
	// Inference uses the moving statistics.
	out := layertest.Forward(t, bn, false, ops.Value{Shape: ops.Shape{n, c}, Data: x})
	for i := 0; i < n; i++ {
		for j := 0; j < c; j++ {
			mm, mv := float64(bn.MovingMean.Data(0)[j]), float64(bn.MovingVariance.Data(0)[j])
			wnt := (float64(x[i*c+j])-mm)/math.Sqrt(mv+1e-3)*float64(gamma[j]) + float64(beta[j])
			if got := float64(out.Data[i*c+j]); math.Abs(got-wnt) > 1e-4 {
				t.Errorf("inference y[%d,%d] = %v, want %v", i, j, got, wnt)
			}
		}
	}
}
