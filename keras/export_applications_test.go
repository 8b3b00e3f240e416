package keras_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/applications"
)

// The keras/applications models among the onnxruntime cases of
// TestExportONNXForOnnxruntime (export_test.go).
func init() {
	keras.AddExportCase("applications_efficientnet_b0", exportEfficientNetB0, []int{2, 32, 32, 3})
}

// exportEfficientNetB0 is gokeras' EfficientNetB0 at full width and depth
// (16 blocks, 4 million parameters) on 32x32 images (Keras' least), 10
// classes (logits), its Normalization given a mean and variance per channel as
// adapt would (the other weights are drawn by the case).
func exportEfficientNetB0(t *testing.T) *keras.Model {
	m, err := applications.EfficientNetB0(applications.WithWeights(""), applications.WithInputShape(32, 32, 3), applications.WithClasses(10),
		applications.WithClassifierActivation("")) // logits, which show differences a softmax would shrink
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(30, 17))
	set := 0
	for _, v := range m.Weights() {
		n := v.Name()
		if !strings.HasPrefix(n, "normalization") || !strings.HasSuffix(n, "/mean") && !strings.HasSuffix(n, "/variance") {
			continue
		}
		data := make([]float32, v.Shape().Size())
		for i := range data {
			if strings.HasSuffix(n, "/mean") {
				data[i] = float32(0.4 + 0.1*r.Float64())
			} else {
				data[i] = float32(0.04 + 0.03*r.Float64())
			}
		}
		if err := v.Assign(data); err != nil {
			t.Fatal(err)
		}
		set++
	}
	if set != 2 {
		t.Fatalf("set %d Normalization weights, want the mean and the variance", set)
	}
	return m
}
