package layers_test

import (
	"fmt"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRandomPerspectiveConformance(t *testing.T) {
	layertest.Run(t, layers.NewRandomPerspective(layers.RandomPerspectiveSettings{}), ops.Shape{2, 5, 6, 2}, ops.Shape{2, 5, 6, 2}, 0)
	layertest.Run(t, layers.NewRandomPerspective(layers.RandomPerspectiveSettings{Interpolation: "nearest"}), ops.Shape{5, 6, 1}, ops.Shape{5, 6, 1}, 0)
}

// TestRandomPerspectiveTraining: an image is warped with probability
// (f0+f1)/2; the corner (0, 0) does not move (its end point is 0 + 0*f),
// so output (0, 0) reads input (0, 0); each other corner moves by at most
// scale/2 of its coordinates, so output pixels near the corners read
// input near them; scale 0 warps nothing. In inference it is the
// identity.
func TestRandomPerspectiveTraining(t *testing.T) {
	const n, h, w = 2000, 9, 11
	in := coordImages(n, h, w)
	scale := 0.4
	set := layers.RandomPerspectiveSettings{Factor: &[2]float64{0.2, 0.8}, Scale: &scale, FillValue: -100, Interpolation: "nearest"}
	if y := layertest.Forward(t, layers.NewRandomPerspective(set), false, in); !equal32(y.Data, in.Data) {
		t.Error("inference changed the input")
	}
	y := layertest.Forward(t, layers.NewRandomPerspective(set, layers.WithSeed(3)), true, in)
	warped, distinct := 0, map[string]bool{}
	for b := range n {
		img, orig := y.Data[b*h*w*2:(b+1)*h*w*2], in.Data[b*h*w*2:(b+1)*h*w*2]
		if img[0] != 0 || img[1] != 0 {
			t.Fatalf("image %d: output (0, 0) reads (%v, %v)", b, img[0], img[1])
		}
		if !equal32(img, orig) {
			warped++
			// The bottom-right output corner (nearest interpolation) reads
			// near the corner (the end corner moved by at most a fifth of
			// its coordinates), or the fill where it moved inwards.
			i := ((h-1)*w + w - 1) * 2
			if img[i] != -100 && (img[i] < float32(w-1)*0.7 || img[i+1] < float32(h-1)*0.7) {
				t.Fatalf("image %d: output corner reads (%v, %v)", b, img[i], img[i+1])
			}
			distinct[fmt.Sprint(img)] = true
		}
	}
	if !near(warped, n, 0.5) {
		t.Errorf("%d of %d images warped, want about half", warped, n)
	}
	if len(distinct) < warped/2 {
		t.Errorf("%d distinct warps of %d", len(distinct), warped)
	}
	zero := 0.0
	set.Scale, set.Factor = &zero, &[2]float64{1, 1}
	if y := layertest.Forward(t, layers.NewRandomPerspective(set), true, in); !equal32(y.Data, in.Data) {
		t.Error("scale 0 warped the images")
	}
}

func TestRandomPerspectiveErrors(t *testing.T) {
	big := 1.5
	wantErr(t, layers.NewRandomPerspective(layers.RandomPerspectiveSettings{Scale: &big}, layers.WithName("pe")).Err(), "RandomPerspective", "pe", "scale")
	wantErr(t, layers.NewRandomPerspective(layers.RandomPerspectiveSettings{Factor: &[2]float64{-1, -0.5}}).Err(), "factor")
	wantErr(t, layers.NewRandomPerspective(layers.RandomPerspectiveSettings{Interpolation: "area"}).Err(), "RandomPerspective", "area")
}
