//go:build cuda

package cudnn

// Every plan against the float64 references of reference_test.go (which
// ops_test.go checks against package ops in the default build), on the
// GPU. Inputs come from fixed seeds; outputs are pre-filled with NaN, so an
// element a call leaves unwritten fails the comparison.

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"gorgonia.org/cu"
)

// gpu locks the test's goroutine to its OS thread, makes device 0's
// primary context current and returns a handle on the default stream.
// It skips the test when there is no GPU.
func gpu(t *testing.T) *Handle {
	t.Helper()
	n, err := cu.NumDevices()
	if err != nil || n == 0 {
		if os.Getenv("GOKERAS_REQUIRE_GPU") == "1" {
			t.Fatalf("no CUDA device (%v), and GOKERAS_REQUIRE_GPU=1 makes that a failure", err)
		}
		t.Skipf("no CUDA device (%v); GOKERAS_REQUIRE_GPU=1 makes this a failure", err)
	}
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	ctx, err := cu.Device(0).RetainPrimaryCtx()
	if err != nil {
		t.Fatalf("RetainPrimaryCtx: %v", err)
	}
	if err := cu.SetCurrentContext(ctx); err != nil {
		t.Fatalf("SetCurrentContext: %v", err)
	}
	h, err := NewHandle(cu.Stream{})
	if err != nil {
		t.Fatalf("NewHandle: %v", err)
	}
	t.Cleanup(func() {
		if err := h.Destroy(); err != nil {
			t.Errorf("Destroy: %v", err)
		}
	})
	return h
}

// dev allocates device memory for the test, freed at its end.
type dev struct{ t *testing.T }

func (d dev) alloc(bytes int) cu.DevicePtr {
	d.t.Helper()
	if bytes == 0 {
		return 0
	}
	p, err := cu.MemAlloc(int64(bytes))
	if err != nil {
		d.t.Fatalf("MemAlloc(%d): %v", bytes, err)
	}
	d.t.Cleanup(func() { cu.MemFree(p) })
	return p
}

// nan allocates n float32s set to NaN.
func (d dev) nan(n int) cu.DevicePtr {
	d.t.Helper()
	p := d.alloc(4 * n)
	if err := cu.MemsetD32(p, 0x7fc00000, int64(n)); err != nil {
		d.t.Fatalf("MemsetD32: %v", err)
	}
	return p
}

func (d dev) up(v []float32) cu.DevicePtr {
	d.t.Helper()
	p := d.alloc(4 * len(v))
	if err := cu.MemcpyHtoD(p, unsafe.Pointer(&v[0]), int64(4*len(v))); err != nil {
		d.t.Fatalf("MemcpyHtoD: %v", err)
	}
	return p
}

func (d dev) down(p cu.DevicePtr, n int) []float32 {
	d.t.Helper()
	if err := cu.Synchronize(); err != nil {
		d.t.Fatalf("Synchronize: %v", err)
	}
	v := make([]float32, n)
	if err := cu.MemcpyDtoH(unsafe.Pointer(&v[0]), p, int64(4*n)); err != nil {
		d.t.Fatalf("MemcpyDtoH: %v", err)
	}
	return v
}

func (d dev) ws(size int) Workspace { return Workspace{Ptr: d.alloc(size), Size: size} }

func TestVersion(t *testing.T) {
	gpu(t)
	v, err := Version()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cuDNN %d.%d.%d", v/10000, v/100%100, v%100)
}

func TestConv2D(t *testing.T) {
	h := gpu(t)
	d := dev{t}
	r := rand.New(rand.NewPCG(11, 12))
	for _, p := range convCases {
		for _, det := range []bool{false, true} {
			p.Deterministic = det
			c, err := h.Conv2D(p)
			if err != nil {
				t.Fatalf("%+v: %v", p, err)
			}
			if again, _ := h.Conv2D(p); again != c {
				t.Errorf("%s: plan not cached", c)
			}
			o := c.OutShape()
			nx, nw, ny := p.N*p.H*p.W*p.C, p.KH*p.KW*p.C*p.K, o[0]*o[1]*o[2]*o[3]
			x, w, dy := randData(r, nx, -1, 1), randData(r, nw, -1, 1), randData(r, ny, -1, 1)
			xd, wd, dyd := d.up(x), d.up(w), d.up(dy)
			yd, dxd, dwd := d.nan(ny), d.nan(nx), d.nan(nw)
			ws := d.ws(c.WorkspaceSize())
			fa, da, wa := c.Algorithms()
			name := c.String()
			t.Logf("%s: algorithms %d/%d/%d, workspace %d, explicit padding %v", name, fa, da, wa, c.WorkspaceSize(), c.Explicit())
			if err := c.Forward(xd, wd, yd, ws); err != nil {
				t.Fatal(err)
			}
			if err := c.BackwardData(wd, dyd, dxd, ws); err != nil {
				t.Fatal(err)
			}
			if err := c.BackwardFilter(xd, dyd, dwd, ws); err != nil {
				t.Fatal(err)
			}
			checkClose(t, name+" forward", d.down(yd, ny), refConv(t, p, x, w), 1e-5)
			checkClose(t, name+" input gradient", d.down(dxd, nx), refConvData(t, p, w, dy), 1e-5)
			checkClose(t, name+" filter gradient", d.down(dwd, nw), refConvFilter(t, p, x, dy), 1e-5)
			if det {
				continue
			}
			// Measured algorithms give the same results.
			if err := c.Tune(xd, wd, yd, dyd, dxd, ws); err != nil {
				t.Fatalf("Tune: %v", err)
			}
			fa, da, wa = c.Algorithms()
			t.Logf("%s: tuned algorithms %d/%d/%d", name, fa, da, wa)
			for _, err := range []error{c.Forward(xd, wd, yd, ws), c.BackwardData(wd, dyd, dxd, ws), c.BackwardFilter(xd, dyd, dwd, ws)} {
				if err != nil {
					t.Fatal(err)
				}
			}
			checkClose(t, name+" tuned forward", d.down(yd, ny), refConv(t, p, x, w), 1e-5)
			checkClose(t, name+" tuned input gradient", d.down(dxd, nx), refConvData(t, p, w, dy), 1e-5)
			checkClose(t, name+" tuned filter gradient", d.down(dwd, nw), refConvFilter(t, p, x, dy), 1e-5)
		}
	}
}

// bf16 rounds v to bfloat16 (nearest even) and returns its bits and value.
func bf16(v float32) (uint16, float32) {
	b := math.Float32bits(v)
	b += 0x7fff + (b>>16)&1
	b &^= 0xffff
	return uint16(b >> 16), math.Float32frombits(b)
}

func TestConv2DBFloat16(t *testing.T) {
	h := gpu(t)
	d := dev{t}
	r := rand.New(rand.NewPCG(13, 14))
	p := Conv2DParams{N: 2, H: 9, W: 8, C: 16, KH: 3, KW: 3, K: 16, Strides: [2]int{2, 2}, Padding: "same", DataType: BFloat16}
	c, err := h.Conv2D(p)
	if err != nil {
		t.Fatal(err)
	}
	o := c.OutShape()
	conv := func(n int) ([]uint16, []float32) {
		bits, vals := make([]uint16, n), make([]float32, n)
		for i := range bits {
			bits[i], vals[i] = bf16(r.Float32()*2 - 1)
		}
		return bits, vals
	}
	xb, x := conv(p.N * p.H * p.W * p.C)
	wb, w := conv(p.KH * p.KW * p.C * p.K)
	ny := o[0] * o[1] * o[2] * o[3]
	up16 := func(v []uint16) cu.DevicePtr {
		ptr := d.alloc(2 * len(v))
		if err := cu.MemcpyHtoD(ptr, unsafe.Pointer(&v[0]), int64(2*len(v))); err != nil {
			t.Fatal(err)
		}
		return ptr
	}
	xd, wd, yd := up16(xb), up16(wb), d.alloc(2*ny)
	if err := c.Forward(xd, wd, yd, d.ws(c.WorkspaceSize())); err != nil {
		t.Fatal(err)
	}
	if err := cu.Synchronize(); err != nil {
		t.Fatal(err)
	}
	yb := make([]uint16, ny)
	if err := cu.MemcpyDtoH(unsafe.Pointer(&yb[0]), yd, int64(2*ny)); err != nil {
		t.Fatal(err)
	}
	y := make([]float32, ny)
	for i, b := range yb {
		y[i] = math.Float32frombits(uint32(b) << 16)
	}
	checkClose(t, c.String(), y, refConv(t, p, x, w), 1e-2)
}

func TestPool2D(t *testing.T) {
	h := gpu(t)
	d := dev{t}
	r := rand.New(rand.NewPCG(15, 16))
	cases := withAverage(poolCases)
	for _, p := range poolCases[:3] {
		p.Deterministic = true
		cases = append(cases, p)
	}
	for _, p := range cases {
		c, err := h.Pool2D(p)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		o := c.OutShape()
		nx, ny := p.N*p.H*p.W*p.C, o[0]*o[1]*o[2]*o[3]
		x, dy := randData(r, nx, -1, 1), randData(r, ny, -1, 1)
		xd, dyd, yd, dxd := d.up(x), d.up(dy), d.nan(ny), d.nan(nx)
		ws := d.ws(c.WorkspaceSize())
		if err := c.Forward(xd, yd, ws); err != nil {
			t.Fatal(err)
		}
		if err := c.Backward(xd, yd, dyd, dxd, ws); err != nil {
			t.Fatal(err)
		}
		want, _ := refPool(t, p, x)
		checkClose(t, c.String()+" forward", d.down(yd, ny), want, 1e-6)
		checkClose(t, c.String()+" gradient", d.down(dxd, nx), refPoolGrad(t, p, x, dy), 1e-5)
	}
}

func TestBatchNorm(t *testing.T) {
	h := gpu(t)
	d := dev{t}
	r := rand.New(rand.NewPCG(17, 18))
	const eps, momentum = 1e-3, 0.99
	for _, p := range normCases {
		b, err := h.BatchNorm(p)
		if err != nil {
			t.Fatal(err)
		}
		n, c := p.N*p.H*p.W*p.C, p.C
		x, dy := randData(r, n, -2, 3), randData(r, n, -1, 1)
		gamma, beta := randData(r, c, 0.5, 1.5), randData(r, c, -1, 1)
		xd, dyd, gd, bd := d.up(x), d.up(dy), d.up(gamma), d.up(beta)
		yd, md, vd, smd, sid := d.nan(n), d.nan(c), d.nan(c), d.nan(c), d.nan(c)
		if err := b.ForwardTraining(xd, gd, bd, yd, md, vd, smd, sid, eps); err != nil {
			t.Fatal(err)
		}
		mean, variance := refMoments(x, c)
		checkClose(t, b.String()+" batch mean", d.down(md, c), mean, 1e-5)
		checkClose(t, b.String()+" batch variance (biased)", d.down(vd, c), variance, 1e-5)
		checkClose(t, b.String()+" training forward", d.down(yd, n), refBatchNorm(x, gamma, beta, mean, variance, eps), 1e-5)
		if p.N*p.H*p.W > 1 {
			inv := make([]float64, c)
			for j := range inv {
				inv[j] = 1 / math.Sqrt(variance[j]+eps)
			}
			checkClose(t, b.String()+" saved inverse std", d.down(sid, c), inv, 1e-5)
		}

		dxd, dgd, dbd := d.nan(n), d.nan(c), d.nan(c)
		if err := b.Backward(xd, dyd, gd, smd, sid, dxd, dgd, dbd, eps); err != nil {
			t.Fatal(err)
		}
		dx, dgamma, dbeta := refBatchNormGrad(x, dy, gamma, eps)
		checkClose(t, b.String()+" dx", d.down(dxd, n), dx, 1e-5)
		checkClose(t, b.String()+" dgamma", d.down(dgd, c), dgamma, 1e-5)
		checkClose(t, b.String()+" dbeta", d.down(dbd, c), dbeta, 1e-5)

		// Moving statistics, Keras' rule.
		mv, vv := randData(r, c, -1, 1), randData(r, c, 0.5, 2)
		mvd, vvd := d.up(mv), d.up(vv)
		if err := b.UpdateMoving(mvd, md, momentum); err != nil {
			t.Fatal(err)
		}
		if err := b.UpdateMoving(vvd, vd, momentum); err != nil {
			t.Fatal(err)
		}
		wantM, wantV := make([]float64, c), make([]float64, c)
		for j := range wantM {
			wantM[j] = float64(mv[j])*momentum + mean[j]*(1-momentum)
			wantV[j] = float64(vv[j])*momentum + variance[j]*(1-momentum)
		}
		checkClose(t, b.String()+" moving mean", d.down(mvd, c), wantM, 1e-5)
		checkClose(t, b.String()+" moving variance", d.down(vvd, c), wantV, 1e-5)

		// Inference with the (updated) moving statistics.
		mv, vv = d.down(mvd, c), d.down(vvd, c)
		yid := d.nan(n)
		if err := b.ForwardInference(xd, gd, bd, mvd, vvd, yid, eps); err != nil {
			t.Fatal(err)
		}
		checkClose(t, b.String()+" inference", d.down(yid, n), refBatchNorm(x, gamma, beta, f64s(mv), f64s(vv), eps), 1e-5)
	}
}

func f64s(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func TestSoftmax(t *testing.T) {
	h := gpu(t)
	d := dev{t}
	r := rand.New(rand.NewPCG(19, 20))
	for _, p := range softmaxCases {
		for _, log := range []bool{false, true} {
			p.Log = log
			s, err := h.Softmax(p)
			if err != nil {
				t.Fatal(err)
			}
			n := p.Rows * p.Classes
			x, dy := randData(r, n, -4, 4), randData(r, n, -1, 1)
			// Large logits: the accurate algorithm subtracts the maximum.
			x[0] += 80
			xd, dyd, yd, dxd := d.up(x), d.up(dy), d.nan(n), d.nan(n)
			if err := s.Forward(xd, yd); err != nil {
				t.Fatal(err)
			}
			y := d.down(yd, n)
			checkClose(t, s.String()+" forward", y, refSoftmax(x, p.Classes, log), 1e-5)
			if err := s.Backward(yd, dyd, dxd); err != nil {
				t.Fatal(err)
			}
			checkClose(t, s.String()+" gradient", d.down(dxd, n), refSoftmaxGrad(y, dy, p.Classes, log), 1e-5)
		}
	}
}

func TestActivationAndBias(t *testing.T) {
	h := gpu(t)
	d := dev{t}
	r := rand.New(rand.NewPCG(21, 22))
	const n = 1000
	x, dy := randData(r, n, -2, 2), randData(r, n, -1, 1)
	for _, m := range []ActivationMode{Relu, Sigmoid, Tanh} {
		a, err := h.Activation(ActivationParams{Mode: m, Size: n})
		if err != nil {
			t.Fatal(err)
		}
		xd, dyd, yd, dxd := d.up(x), d.up(dy), d.nan(n), d.nan(n)
		if err := a.Forward(xd, yd); err != nil {
			t.Fatal(err)
		}
		if err := a.Backward(xd, yd, dyd, dxd); err != nil {
			t.Fatal(err)
		}
		wy, wdx := make([]float64, n), make([]float64, n)
		for i, v := range x {
			v := float64(v)
			switch m {
			case Relu:
				wy[i] = max(v, 0)
				if v > 0 {
					wdx[i] = float64(dy[i])
				}
			case Sigmoid:
				s := 1 / (1 + math.Exp(-v))
				wy[i], wdx[i] = s, float64(dy[i])*s*(1-s)
			case Tanh:
				th := math.Tanh(v)
				wy[i], wdx[i] = th, float64(dy[i])*(1-th*th)
			}
		}
		checkClose(t, a.String()+" forward", d.down(yd, n), wy, 1e-5)
		checkClose(t, a.String()+" gradient", d.down(dxd, n), wdx, 1e-5)
	}

	p := BiasParams{N: 3, H: 5, W: 4, C: 7}
	b, err := h.Bias(p)
	if err != nil {
		t.Fatal(err)
	}
	m := p.N * p.H * p.W * p.C
	y, bias, g := randData(r, m, -1, 1), randData(r, p.C, -1, 1), randData(r, m, -1, 1)
	yd, bd, gd, dbd := d.up(y), d.up(bias), d.up(g), d.nan(p.C)
	if err := b.Add(bd, yd); err != nil {
		t.Fatal(err)
	}
	if err := b.Grad(gd, dbd); err != nil {
		t.Fatal(err)
	}
	wy, wdb := make([]float64, m), make([]float64, p.C)
	for i := range y {
		wy[i] = float64(y[i]) + float64(bias[i%p.C])
		wdb[i%p.C] += float64(g[i])
	}
	checkClose(t, b.String()+" add", d.down(yd, m), wy, 1e-6)
	checkClose(t, b.String()+" gradient", d.down(dbd, p.C), wdb, 1e-5)
}

func TestPlanErrors(t *testing.T) {
	h := gpu(t)
	for _, p := range []Conv2DParams{
		{N: 1, H: 4, W: 4, C: 1, KH: 5, KW: 5, K: 1},                  // window larger than input
		{N: 1, H: 4, W: 4, C: 1, KH: 3, KW: 3, K: 1, Padding: "full"}, // unknown padding
		{N: 1, H: 4, W: 4, C: 1, KH: 3, KW: 3, K: 0},                  // no filters
		{N: 1, H: 4, W: 4, C: 1, KH: 3, KW: 3, K: 1, DataType: 42},    // unknown type
	} {
		_, err := h.Conv2D(p)
		if err == nil || !strings.HasPrefix(err.Error(), "cudnn: Conv2D") {
			t.Errorf("%+v: error %v", p, err)
		}
	}
	if _, err := h.Pool2D(Pool2DParams{N: 1, H: 2, W: 2, C: 1, Window: [2]int{3, 3}}); err == nil {
		t.Error("pool window larger than the input: no error")
	}
	c, err := h.Conv2D(Conv2DParams{N: 1, H: 8, W: 8, C: 2, KH: 3, KW: 3, K: 2, Strides: [2]int{2, 2}, Padding: "same"})
	if err != nil {
		t.Fatal(err)
	}
	err = c.Forward(1, 1, 1, Workspace{})
	if c.WorkspaceSize() > 0 && (err == nil || !strings.Contains(err.Error(), "workspace")) {
		t.Errorf("missing workspace: %v", err)
	}
	var ce *Error
	if err := check("cudnnTest", 2000, "detail"); !errors.As(err, &ce) || ce.Status != StatusBadParam || ce.Msg == "" {
		t.Errorf("check(2000) = %v", err)
	} else {
		t.Logf("error text: %v", err)
	}
}
