package layers_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// poolRef is naive NHWC pooling in float64: max, or the mean over the
// window's cells inside the input (TensorFlow's "same" average).
func poolRef(x []float32, xs ops.Shape, pool, stride [2]int, padding string, isMax bool) ([]float64, ops.Shape) {
	n, h, w, c := xs[0], xs[1], xs[2], xs[3]
	var oh, ow, pt, pl int
	if padding == "same" {
		oh, pt = samePad(h, pool[0], stride[0], 1)
		ow, pl = samePad(w, pool[1], stride[1], 1)
	} else {
		oh, ow = (h-pool[0])/stride[0]+1, (w-pool[1])/stride[1]+1
	}
	out := make([]float64, 0, n*oh*ow*c)
	for b := 0; b < n; b++ {
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				for ch := 0; ch < c; ch++ {
					m, s, cnt := math.Inf(-1), 0.0, 0
					for ky := 0; ky < pool[0]; ky++ {
						for kx := 0; kx < pool[1]; kx++ {
							iy, ix := oy*stride[0]-pt+ky, ox*stride[1]-pl+kx
							if iy < 0 || iy >= h || ix < 0 || ix >= w {
								continue
							}
							v := float64(x[((b*h+iy)*w+ix)*c+ch])
							m, s, cnt = math.Max(m, v), s+v, cnt+1
						}
					}
					if isMax {
						out = append(out, m)
					} else {
						out = append(out, s/float64(cnt))
					}
				}
			}
		}
	}
	return out, ops.Shape{n, oh, ow, c}
}

func TestPoolingConformance(t *testing.T) {
	layertest.Run(t, layers.NewMaxPooling2D(), ops.Shape{2, 6, 6, 3}, ops.Shape{2, 3, 3, 3}, 0)
	layertest.Run(t, layers.NewMaxPooling2D(layers.WithPoolSize(3), layers.WithStrides(1), layers.WithPadding("same")), ops.Shape{1, 5, 4, 2}, ops.Shape{1, 5, 4, 2}, 0)
	layertest.Run(t, layers.NewAveragePooling2D(), ops.Shape{2, 5, 5, 2}, ops.Shape{2, 2, 2, 2}, 0)
	layertest.Run(t, layers.NewAveragePooling2D(layers.WithPadding("same")), ops.Shape{2, 5, 5, 2}, ops.Shape{2, 3, 3, 2}, 0)
	layertest.Run(t, layers.NewAveragePooling2D(layers.WithPoolSize(2, 3), layers.WithStrides(1, 2)), ops.Shape{1, 4, 7, 1}, ops.Shape{1, 3, 3, 1}, 0)
}

func TestPoolingHandComputed(t *testing.T) {
	x4 := ops.Value{Shape: ops.Shape{1, 4, 4, 1}, Data: seq(16, 1, 1)}
	x3 := ops.Value{Shape: ops.Shape{1, 3, 3, 1}, Data: seq(9, 1, 1)}
	neg := ops.Value{Shape: ops.Shape{1, 3, 3, 1}, Data: seq(9, -1, -1)}
	for _, c := range []struct {
		what string
		l    layers.Layer
		x    ops.Value
		want []float64
	}{
		{"max valid", layers.NewMaxPooling2D(), x4, []float64{6, 8, 14, 16}},
		{"avg valid", layers.NewAveragePooling2D(), x4, []float64{3.5, 5.5, 11.5, 13.5}},
		// 3x3 with 2x2 windows, stride 2, "same": one row and column of
		// padding after, which average pooling does not count.
		{"max same", layers.NewMaxPooling2D(layers.WithPadding("same")), x3, []float64{5, 6, 8, 9}},
		{"avg same", layers.NewAveragePooling2D(layers.WithPadding("same")), x3, []float64{3, 4.5, 7.5, 9}},
		// Padding never wins a max, even over negative values.
		{"max same negative", layers.NewMaxPooling2D(layers.WithPadding("same")), neg, []float64{-1, -3, -7, -9}},
		// Valid drops the last row and column of a 3x3 image.
		{"max valid odd", layers.NewMaxPooling2D(), x3, []float64{5}},
		{"max 3x3 stride 1", layers.NewMaxPooling2D(layers.WithPoolSize(3), layers.WithStrides(1)), x4, []float64{11, 12, 15, 16}},
	} {
		y := layertest.Forward(t, c.l, false, c.x)
		layertest.AllClose(t, c.what, y.Data, c.want, 1e-6)
	}
}

func TestPoolingAgainstReference(t *testing.T) {
	in := ops.Shape{2, 7, 6, 3}
	x := make([]float32, in.Size())
	for i := range x {
		x[i] = float32(math.Sin(float64(i) * 1.3))
	}
	for _, c := range []struct {
		pool, stride []int
		padding      string
	}{
		{nil, nil, "valid"},
		{nil, nil, "same"},
		{[]int{3}, nil, "valid"},
		{[]int{3}, nil, "same"},
		{[]int{3}, []int{2}, "same"},
		{[]int{2, 3}, []int{1, 2}, "valid"},
		{[]int{3, 2}, []int{2, 1}, "same"},
		{[]int{4}, []int{3}, "same"},
	} {
		for _, isMax := range []bool{true, false} {
			opts := []layers.Option{layers.WithPadding(c.padding)}
			if c.pool != nil {
				opts = append(opts, layers.WithPoolSize(c.pool...))
			}
			if c.stride != nil {
				opts = append(opts, layers.WithStrides(c.stride...))
			}
			var l layers.Layer = layers.NewAveragePooling2D(opts...)
			if isMax {
				l = layers.NewMaxPooling2D(opts...)
			}
			cfg := l.GetConfig()
			pool, stride := [2]int{2, 2}, [2]int{}
			fmt.Sscan(fmt.Sprint(cfg["pool_size"])[1:], &pool[0], &pool[1])
			fmt.Sscan(fmt.Sprint(cfg["strides"])[1:], &stride[0], &stride[1])
			what := fmt.Sprintf("%s pool %v strides %v %s", l.ClassName(), pool, stride, c.padding)
			if c.stride == nil && stride != pool {
				t.Errorf("%s: strides default to %v, want the pool size", what, stride)
			}
			want, ws := poolRef(x, in, pool, stride, c.padding, isMax)
			y := layertest.Forward(t, l, false, ops.Value{Shape: in, Data: x})
			if !y.Shape.Equal(ws) {
				t.Errorf("%s: shape %v, want %v", what, y.Shape, ws)
				continue
			}
			layertest.AllClose(t, what, y.Data, want, 1e-6)
		}
	}
}

func TestPoolingConfig(t *testing.T) {
	cfg := layers.NewMaxPooling2D(layers.WithPoolSize(3, 2)).GetConfig()
	if fmt.Sprintf("%v %v %v", cfg["pool_size"], cfg["strides"], cfg["padding"]) != "[3 2] [3 2] valid" {
		t.Errorf("config %v", cfg)
	}
	cfg = layers.NewAveragePooling2D(layers.WithStrides(1), layers.WithPadding("same")).GetConfig()
	if fmt.Sprintf("%v %v %v", cfg["pool_size"], cfg["strides"], cfg["padding"]) != "[2 2] [1 1] same" {
		t.Errorf("config %v", cfg)
	}
}

func TestPoolingTooSmall(t *testing.T) {
	_, err := layers.OutputShape(layers.NewMaxPooling2D(layers.WithPoolSize(3), layers.WithName("mp")), []ops.Shape{{-1, 2, 2, 1}})
	wantErr(t, err, "MaxPooling2D", "mp", "(None, 2, 2, 1)")
}

func TestPoolingGradients(t *testing.T) {
	grad := func(l layers.Layer, x []float32, s ops.Shape) []float32 {
		if _, err := layers.OutputShape(l, []ops.Shape{{-1, s[1], s[2], s[3]}}); err != nil {
			t.Fatal(err)
		}
		xv := ops.NewVariable("x", s, x, true)
		tr := ops.NewTrace(false, 0, 0)
		y := l.Call([]ops.Tensor{tr.Read(xv)}, false)
		g, err := ops.Gradients(ops.Sum(y, false), []*ops.Variable{xv})
		if err != nil {
			t.Fatal(err)
		}
		p, err := engine.Compile(tr, []ops.Tensor{y, g[0]})
		if err != nil {
			t.Fatal(err)
		}
		outs, err := p.Run(engine.Single{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return outs[1].Data
	}
	s4 := ops.Shape{1, 4, 4, 1}
	// Max: 1 at each window's maximum (6, 8, 14, 16 at indexes 5, 7, 13, 15).
	layertest.AllClose(t, "max pool gradient", grad(layers.NewMaxPooling2D(), seq(16, 1, 1), s4),
		[]float64{0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1}, 0)
	// Average, 3x3 windows with stride 1 on 4x4: each input gets 1/9 per window it is in.
	want := []float64{1, 2, 2, 1, 2, 4, 4, 2, 2, 4, 4, 2, 1, 2, 2, 1}
	for i := range want {
		want[i] /= 9
	}
	layertest.AllClose(t, "avg pool gradient", grad(layers.NewAveragePooling2D(layers.WithPoolSize(3), layers.WithStrides(1)), seq(16, 1, 1), s4), want, 1e-6)
	// Average "same" on 3x3 with 2x2 windows: windows of 4, 2, 2 and 1 cells.
	layertest.AllClose(t, "avg pool same gradient", grad(layers.NewAveragePooling2D(layers.WithPadding("same")), seq(9, 1, 1), ops.Shape{1, 3, 3, 1}),
		[]float64{0.25, 0.25, 0.5, 0.25, 0.25, 0.5, 0.5, 0.5, 1}, 1e-7)
}
