package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRandomGaussianBlurConformance(t *testing.T) {
	layertest.Run(t, layers.NewRandomGaussianBlur(layers.RandomGaussianBlurSettings{}), ops.Shape{2, 5, 6, 3}, ops.Shape{2, 5, 6, 3}, 0)
	layertest.Run(t, layers.NewRandomGaussianBlur(layers.RandomGaussianBlurSettings{KernelSize: [2]int{5, 5}}), ops.Shape{5, 6, 2}, ops.Shape{5, 6, 2}, 0)
}

// TestRandomGaussianBlurTraining: blurring an impulse gives the kernel: a
// normalized separable Gaussian whose deviations (read from the ratio of
// a tap to the center, exp(-1/(2 sigma^2))) lie in the sigma range, the
// same for every image of a batch and drawn anew for the next batch; an
// image is blurred with probability (f0+f1)/2; every image is clipped to
// the value range, blurred or not. In inference it is the identity.
func TestRandomGaussianBlurTraining(t *testing.T) {
	const n, h, w = 800, 7, 7
	s := ops.Shape{n, h, w, 1}
	x := make([]float32, s.Size())
	for b := range n {
		x[(b*h+3)*w+3] = 1
	}
	in := ops.Value{Shape: s, Data: x}
	set := layers.RandomGaussianBlurSettings{Factor: &[2]float64{0, 0.5}, KernelSize: [2]int{5, 5}, Sigma: &[2]float64{0.6, 1.4}, ValueRange: &[2]float64{0, 1}}
	if y := layertest.Forward(t, layers.NewRandomGaussianBlur(set), false, in); !equal32(y.Data, x) {
		t.Error("inference changed the input")
	}
	l := layers.NewRandomGaussianBlur(set, layers.WithSeed(4))
	var sigmas [][2]float64
	for range 2 {
		y := layertest.Forward(t, l, true, in)
		blurred := 0
		var batch [2]float64
		for b := range n {
			img := y.Data[b*h*w : (b+1)*h*w]
			if img[3*w+3] == 1 {
				continue
			}
			blurred++
			var sum float64
			for _, v := range img {
				sum += float64(v)
			}
			if math.Abs(sum-1) > 1e-5 {
				t.Fatalf("image %d: the kernel sums to %v", b, sum)
			}
			c := float64(img[3*w+3])
			sx := math.Sqrt(-0.5 / math.Log(float64(img[3*w+4])/c))
			sy := math.Sqrt(-0.5 / math.Log(float64(img[4*w+3])/c))
			if !(sx >= 0.6-1e-4 && sx <= 1.4+1e-4 && sy >= 0.6-1e-4 && sy <= 1.4+1e-4) {
				t.Fatalf("image %d: sigmas %v, %v outside [0.6, 1.4]", b, sx, sy)
			}
			if batch != [2]float64{} && (math.Abs(sx-batch[0]) > 1e-4 || math.Abs(sy-batch[1]) > 1e-4) {
				t.Fatalf("image %d: sigmas %v, %v; another image of the batch had %v", b, sx, sy, batch)
			}
			batch = [2]float64{sx, sy}
			if math.Abs(float64(img[2*w+3])-float64(img[4*w+3])) > 1e-7 || math.Abs(float64(img[3*w+2])-float64(img[3*w+4])) > 1e-7 {
				t.Fatalf("image %d: the kernel is not symmetric", b)
			}
		}
		if !near(blurred, n, 0.25) {
			t.Errorf("%d of %d images blurred, want about 25%%", blurred, n)
		}
		sigmas = append(sigmas, batch)
	}
	if sigmas[0] == sigmas[1] {
		t.Errorf("two batches drew the same sigmas %v", sigmas[0])
	}
	// Factor 0 blurs nothing, but the images are still clipped.
	y := layertest.Forward(t, layers.NewRandomGaussianBlur(layers.RandomGaussianBlurSettings{Factor: &[2]float64{0, 0}}), true,
		ops.Value{Shape: ops.Shape{1, 1, 2, 1}, Data: []float32{300, -4}})
	layertest.AllClose(t, "clipped", y.Data, []float64{255, 0}, 0)
}

func TestRandomGaussianBlurErrors(t *testing.T) {
	wantErr(t, layers.NewRandomGaussianBlur(layers.RandomGaussianBlurSettings{KernelSize: [2]int{4, 4}}, layers.WithName("bl")).Err(), "RandomGaussianBlur", "bl", "kernel_size")
	wantErr(t, layers.NewRandomGaussianBlur(layers.RandomGaussianBlurSettings{KernelSize: [2]int{-3, 3}}).Err(), "kernel_size")
	wantErr(t, layers.NewRandomGaussianBlur(layers.RandomGaussianBlurSettings{Sigma: &[2]float64{-2, -1}}).Err(), "sigma")
	wantErr(t, layers.NewRandomGaussianBlur(layers.RandomGaussianBlurSettings{Factor: &[2]float64{2, 3}}).Err(), "factor")
	wantErr(t, layers.NewRandomGaussianBlur(layers.RandomGaussianBlurSettings{}).Build([]ops.Shape{{-1, 4, 4, -1}}), "channels")
}
