package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func rnd(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = r.Float32()*2 - 1
		if i%7 == 3 {
			x[i] = 0
		}
	}
	return x
}

var lengths = []int{0, 1, 5, 8, 15, 16, 17, 31, 32, 33, 64, 100, 257}

// TestElementwise checks every kernel against its definition for lengths
// around the vector width, with dst a separate slice and dst aliasing the
// first source.
func TestElementwise(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	relu := func(v float32) float32 {
		if v < 0 {
			return 0
		}
		return v
	}
	type kern struct {
		name string
		run  func(dst []float32, s [][]float32)
		ref  func(i int, s [][]float32) float32
		srcs int
	}
	ks := []kern{
		{"Relu", func(d []float32, s [][]float32) { Relu(d, s[0]) }, func(i int, s [][]float32) float32 { return relu(s[0][i]) }, 1},
		{"ReluGrad", func(d []float32, s [][]float32) { ReluGrad(d, s[0], s[1]) }, func(i int, s [][]float32) float32 {
			if s[0][i] > 0 {
				return s[1][i]
			}
			return 0
		}, 2},
		{"Add", func(d []float32, s [][]float32) { Add(d, s[0], s[1]) }, func(i int, s [][]float32) float32 { return s[0][i] + s[1][i] }, 2},
		{"AddRelu", func(d []float32, s [][]float32) { AddRelu(d, s[0], s[1]) }, func(i int, s [][]float32) float32 { return relu(s[0][i] + s[1][i]) }, 2},
		{"Sub", func(d []float32, s [][]float32) { Sub(d, s[0], s[1]) }, func(i int, s [][]float32) float32 { return s[0][i] - s[1][i] }, 2},
		{"Mul", func(d []float32, s [][]float32) { Mul(d, s[0], s[1]) }, func(i int, s [][]float32) float32 { return s[0][i] * s[1][i] }, 2},
		{"Max", func(d []float32, s [][]float32) { Max(d, s[0], s[1]) }, func(i int, s [][]float32) float32 { return max(s[0][i], s[1][i]) }, 2},
		{"Scale", func(d []float32, s [][]float32) { Scale(d, s[0], -1.5) }, func(i int, s [][]float32) float32 { return -1.5 * s[0][i] }, 1},
		{"AddScalar", func(d []float32, s [][]float32) { AddScalar(d, s[0], 0.25) }, func(i int, s [][]float32) float32 { return s[0][i] + 0.25 }, 1},
		{"Square", func(d []float32, s [][]float32) { Square(d, s[0]) }, func(i int, s [][]float32) float32 { return s[0][i] * s[0][i] }, 1},
		{"ScaleShift", func(d []float32, s [][]float32) { ScaleShift(d, s[0], s[1], s[2]) }, func(i int, s [][]float32) float32 { return s[0][i]*s[1][i] + s[2][i] }, 3},
		{"ScaleShiftRelu", func(d []float32, s [][]float32) { ScaleShiftRelu(d, s[0], s[1], s[2]) }, func(i int, s [][]float32) float32 { return relu(s[0][i]*s[1][i] + s[2][i]) }, 3},
		{"DualAffine", func(d []float32, s [][]float32) { DualAffine(d, s[0], s[1], s[2], s[3], s[4]) }, func(i int, s [][]float32) float32 {
			return s[0][i]*s[1][i] + s[2][i]*s[3][i] + s[4][i]
		}, 5},
	}
	for _, k := range ks {
		for _, n := range lengths {
			for _, alias := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%d/alias=%v", k.name, n, alias), func(t *testing.T) {
					s := make([][]float32, k.srcs)
					for i := range s {
						s[i] = rnd(r, n)
					}
					want := make([]float32, n)
					for i := range want {
						want[i] = k.ref(i, s)
					}
					d := make([]float32, n)
					if alias {
						d = s[0]
					}
					k.run(d, s)
					for i := range want {
						if math.Abs(float64(d[i]-want[i])) > 1e-6 {
							t.Fatalf("[%d] = %v, want %v", i, d[i], want[i])
						}
					}
				})
			}
		}
	}
}

func TestAxpy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range lengths {
		x, d := rnd(r, n), rnd(r, n)
		want := make([]float32, n)
		for i := range want {
			want[i] = d[i] + 0.5*x[i]
		}
		Axpy(d, x, 0.5)
		for i := range want {
			if math.Abs(float64(d[i]-want[i])) > 1e-6 {
				t.Fatalf("n=%d [%d] = %v, want %v", n, i, d[i], want[i])
			}
		}
	}
}

func TestAccumulations(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range []int{1, 3, 8, 12, 16, 33, 64} {
		rows := 7
		x, dy, mean := rnd(r, rows*c), rnd(r, rows*c), rnd(r, c)
		s, q, a0, a1, a := make([]float64, c), make([]float64, c), make([]float64, c), make([]float64, c), make([]float64, c)
		ws, wq, w0, w1 := make([]float64, c), make([]float64, c), make([]float64, c), make([]float64, c)
		for i := range c {
			s[i], ws[i] = 1, 1 // accumulate onto existing values
		}
		for rr := 0; rr < rows; rr++ {
			for j := 0; j < c; j++ {
				v, g := float64(x[rr*c+j]), float64(dy[rr*c+j])
				ws[j] += v
				wq[j] += v * v
				w0[j] += g
				w1[j] += g * float64(x[rr*c+j]-mean[j])
			}
		}
		AccRowsSq(s, q, x)
		AccCentered(a0, a1, x, dy, mean)
		AccRows(a, x)
		for j := 0; j < c; j++ {
			for _, p := range [][2]float64{{s[j], ws[j]}, {q[j], wq[j]}, {a0[j], w0[j]}, {a1[j], w1[j]}, {a[j] + 1, ws[j]}} {
				if math.Abs(p[0]-p[1]) > 1e-9 {
					t.Fatalf("c=%d j=%d: got %v want %v", c, j, p[0], p[1])
				}
			}
		}
	}
	if got := Sum64([]float32{1, 2, 3, 4, 5}); got != 15 {
		t.Fatalf("Sum64 = %v", got)
	}
}

func BenchmarkKernels(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{4096, 262144, 1 << 20} {
		x, y, d := rnd(r, n), rnd(r, n), make([]float32, n)
		b.Run(fmt.Sprint("Relu/", n), func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				Relu(d, x)
			}
		})
		b.Run(fmt.Sprint("ReluGrad/", n), func(b *testing.B) {
			b.SetBytes(int64(12 * n))
			for b.Loop() {
				ReluGrad(d, x, y)
			}
		})
		b.Run(fmt.Sprint("Add/", n), func(b *testing.B) {
			b.SetBytes(int64(12 * n))
			for b.Loop() {
				Add(d, x, y)
			}
		})
		s, q := make([]float64, 64), make([]float64, 64)
		b.Run(fmt.Sprint("AccRowsSq64/", n), func(b *testing.B) {
			b.SetBytes(int64(4 * n))
			for b.Loop() {
				AccRowsSq(s, q, x)
			}
		})
	}
}

func TestMaxArg(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range lengths {
		taps := [][]float32{rnd(r, n), rnd(r, n), rnd(r, n)}
		if n > 0 {
			taps[1][0] = taps[0][0] // a tie keeps the first
		}
		ov, am := make([]float32, n), make([]int32, n)
		SetArg(ov, am, taps[0], 1000)
		MaxArg(ov, am, taps[1], 2000)
		MaxArg(ov, am, taps[2], 3000)
		for j := 0; j < n; j++ {
			best, arg := taps[0][j], 1000+j
			for k, tp := range taps[1:] {
				if tp[j] > best {
					best, arg = tp[j], (k+2)*1000+j
				}
			}
			if ov[j] != best || int(am[j]) != arg {
				t.Fatalf("n=%d j=%d: got (%v, %d), want (%v, %d)", n, j, ov[j], am[j], best, arg)
			}
		}
	}
}

// TestAdamBitwise checks the vector Adam step against the scalar loop
// bit for bit.
func TestAdamBitwise(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range lengths {
		w, g, m, v := rnd(r, n), rnd(r, n), rnd(r, n), rnd(r, n)
		for i := range v {
			v[i] = v[i] * v[i]
		}
		w2, m2, v2 := append([]float32(nil), w...), append([]float32(nil), m...), append([]float32(nil), v...)
		const alpha, c1, c2, eps = 0.00123, 0.1, 0.001, 1e-7
		for j, x := range g {
			m2[j] += (x - m2[j]) * c1
			v2[j] += (x*x - v2[j]) * c2
			w2[j] -= m2[j] * alpha / (float32(math.Sqrt(float64(v2[j]))) + eps)
		}
		Adam(w, g, m, v, alpha, c1, c2, eps)
		for j := range w {
			if w[j] != w2[j] || m[j] != m2[j] || v[j] != v2[j] {
				t.Fatalf("n=%d [%d]: w %v/%v m %v/%v v %v/%v", n, j, w[j], w2[j], m[j], m2[j], v[j], v2[j])
			}
		}
	}
}

func BenchmarkAdam(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	n := 2796490 // the ResNet seed's trainable parameters
	w, g, m, v := rnd(r, n), rnd(r, n), rnd(r, n), rnd(r, n)
	for i := range v {
		v[i] *= v[i]
	}
	b.Run("vec", func(b *testing.B) {
		for b.Loop() {
			Adam(w, g, m, v, 1e-3, 0.1, 0.001, 1e-7)
		}
	})
	b.Run("scalar", func(b *testing.B) {
		for b.Loop() {
			for j, x := range g {
				m[j] += (x - m[j]) * 0.1
				v[j] += (x*x - v[j]) * 0.001
				w[j] -= m[j] * 1e-3 / (float32(math.Sqrt(float64(v[j]))) + 1e-7)
			}
		}
	})
}

func TestTranspose(t *testing.T) {
	r0 := rand.New(rand.NewPCG(11, 12))
	for _, rc := range [][2]int{{1, 1}, {3, 5}, {8, 8}, {16, 24}, {17, 9}, {64, 1024}, {33, 70}} {
		r, c := rc[0], rc[1]
		src, dst := rnd(r0, r*c), make([]float32, r*c)
		mid := (r / 2) &^ 7
		Transpose(dst, src, r, c, 0, mid)
		Transpose(dst, src, r, c, mid, r)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				if dst[j*r+i] != src[i*c+j] {
					t.Fatalf("%dx%d: [%d,%d] = %v, want %v", r, c, j, i, dst[j*r+i], src[i*c+j])
				}
			}
		}
	}
}
