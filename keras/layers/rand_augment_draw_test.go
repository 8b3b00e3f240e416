package layers

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// TestRandAugmentDraws: over 600 eager draws of a batch of 5, each index
// is uniform over the eleven augmentations (about 1/11 each), and the
// sublayers' numbers lie in Keras' ranges for factor (0.1, 0.4) on (0,
// 255): shears ±[0.1, 0.4], shifts [0.1, 0.4] times the height and
// width, angles [36, 144] degrees (checked through the matrix's cosine
// and sine), brightness deltas [0.1, 0.4] times 255, degeneration and
// sharpness [0.1, 0.4], contrast [0.9, 1.4], posterization shifts 8 -
// {1, 2} (bits below int(8*0.4) = 3), solarization additions and
// thresholds [0.1, 102].
func TestRandAugmentDraws(t *testing.T) {
	l := NewRandAugment(RandAugmentSettings{Factor: &[2]float64{0.1, 0.4}}, WithSeed(3))
	if err := l.Build([]ops.Shape{{5, 6, 7, 3}}); err != nil {
		t.Fatal(err)
	}
	x := make([]float32, 5*6*7*3)
	counts := make([]int, len(randAugmentOps))
	const draws = 600
	in := func(name string, v, lo, hi float64) {
		if !(v >= lo-1e-4 && v <= hi+1e-4) {
			t.Fatalf("%s: %v outside [%v, %v]", name, v, lo, hi)
		}
	}
	for range draws {
		tr := ops.NewEagerTrace(true, 1)
		idx, tf := l.draw(tr.Constant(ops.Shape{5, 6, 7, 3}, x))
		for _, k := range idx.Float32s() {
			if k != float32(int(k)) || k < 0 || int(k) >= len(counts) {
				t.Fatalf("index %v", k)
			}
			counts[int(k)]++
		}
		for _, v := range tf["random_shear"][0].Float32s() {
			in("shear", math.Abs(float64(v)), 0.1, 0.4)
		}
		tv := tf["random_translation"][0].Float32s()
		for i := 0; i < len(tv); i += 2 {
			in("dx", float64(tv[i]), 0.7, 2.8)
			in("dy", float64(tv[i+1]), 0.6, 2.4)
		}
		m := tf["random_rotation"][0].Float32s()
		for i := 0; i < len(m); i += 8 {
			deg := math.Atan2(float64(m[i+3]), float64(m[i])) * 180 / math.Pi
			in("angle", deg, 36, 144)
		}
		for _, v := range tf["random_brightness"][0].Float32s() {
			in("brightness", float64(v), 25.5, 102)
		}
		for _, name := range []string{"random_color_degeneration", "random_sharpness"} {
			for _, v := range tf[name][0].Float32s() {
				in(name, float64(v), 0.1, 0.4)
			}
		}
		for _, v := range tf["random_contrast"][0].Float32s() {
			in("contrast", float64(v), 0.9, 1.4)
		}
		for _, v := range tf["random_posterization"][0].Float32s() {
			if v != 6 && v != 7 {
				t.Fatalf("posterization shift %v, want 8 - 1 or 8 - 2", v)
			}
		}
		for _, tt := range tf["solarization"] {
			for _, v := range tt.Float32s() {
				in("solarization", float64(v), 0.1, 102)
			}
		}
	}
	n := draws * 2
	for k, c := range counts {
		if math.Abs(float64(c)-float64(n)/11) > 4*math.Sqrt(float64(n)/11*(10.0/11)) {
			t.Errorf("%s picked %d times of %d, want about %d", randAugmentOps[k], c, n, n/11)
		}
	}
}
