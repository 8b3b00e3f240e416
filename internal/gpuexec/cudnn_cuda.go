//go:build cuda

package gpuexec

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/cuda/kernels"
	"github.com/gokeras/gokeras/internal/cudnn"
	"github.com/gokeras/gokeras/internal/logging"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/cu"
)

// The ops that run on cuDNN (internal/cudnn): convolution and its
// gradients, pooling, softmax.

func init() {
	register("Conv2D", buildConv)
	register("Conv2DBias", buildConv)
	register("Conv2DBiasRelu", buildConv)
	register("Conv2DBackpropInput", buildConv)
	register("Conv2DBackpropFilter", buildConv)
	register("MaxPool2D", buildPool)
	register("AvgPool2D", buildPool)
	register("MaxPool2DGrad", buildMaxPoolGrad)
	register("Softmax", buildSoftmax)
	register("LogSoftmax", buildSoftmax)
}

func (x *Exec) dnn() (*cudnn.Handle, error) {
	if h, ok := x.ext["cudnn"].(*cudnn.Handle); ok {
		return h, nil
	}
	h, err := cudnn.NewHandle(x.Rep.Compute)
	if err != nil {
		return nil, err
	}
	x.ext["cudnn"] = h
	return h, nil
}

var convAttrRE = regexp.MustCompile(`Strides:\[(\d+) (\d+)\] Dilations:\[(\d+) (\d+)\] Padding:(\w+)(?: Precision:(\w*))?`)

// convAttrs returns a convolution op's settings: Conv2D carries
// ops.Conv2DAttrs; its gradient ops carry them printed.
func convAttrs(st *engine.PlanStep) (ops.Conv2DAttrs, bool) {
	if a, ok := st.Op.Attrs().(ops.Conv2DAttrs); ok {
		return a, true
	}
	s, ok := st.Op.Attrs().(string)
	if !ok {
		return ops.Conv2DAttrs{}, false
	}
	m := convAttrRE.FindStringSubmatch(s)
	if m == nil {
		return ops.Conv2DAttrs{}, false
	}
	v := make([]int, 4)
	for i := range v {
		v[i], _ = strconv.Atoi(m[i+1])
	}
	return ops.Conv2DAttrs{Strides: [2]int{v[0], v[1]}, Dilations: [2]int{v[2], v[3]}, Padding: m[5], Precision: m[6]}, true
}

func buildConv(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	a, ok := convAttrs(st)
	if !ok || len(st.Ins) < 2 {
		return nil, false, nil
	}
	var xs, ws ops.Shape
	switch st.Kind {
	case "Conv2D", "Conv2DBias", "Conv2DBiasRelu": // (x, w[, b])
		xs, ws = shapes[st.Ins[0]], shapes[st.Ins[1]]
	case "Conv2DBackpropInput": // (w, dy[, y]) -> dx
		xs, ws = shapes[st.Out], shapes[st.Ins[0]]
	case "Conv2DBackpropFilter": // (x, dy, y) -> dw
		xs, ws = shapes[st.Ins[0]], shapes[st.Out]
	}
	if len(xs) != 4 || len(ws) != 4 {
		return nil, false, nil
	}
	bf16, err := bf16GEMM(st.Kind, a.Precision)
	if err != nil {
		return nil, false, err
	}
	if bf16 && !x.kernelsOK {
		return nil, false, nil // the operands' rounding needs our kernels
	}
	h, err := x.dnn()
	if err != nil {
		return nil, false, err
	}
	plan, err := h.Conv2D(cudnn.Conv2DParams{N: xs[0], H: xs[1], W: xs[2], C: xs[3], KH: ws[0], KW: ws[1], K: ws[3],
		Strides: a.Strides, Dilations: a.Dilations, Padding: a.Padding, Deterministic: true})
	if errors.Is(err, cudnn.ErrNoAlgorithm) {
		// cuDNN has no exact-FP32 (or deterministic) algorithm for this
		// layout: the CPU kernel runs it (and its family, sameFamily).
		logging.Warnf("gpuexec: %s %v: no cuDNN algorithm fits, it runs on the CPU (%v)", st.Kind, shapesOf(shapes, st.Ins), err)
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	ptr, err := x.scratch(plan.WorkspaceSize())
	if err != nil {
		return nil, false, err
	}
	ws2 := cudnn.Workspace{Ptr: ptr, Size: plan.WorkspaceSize()}
	// Every convolution kind's GEMM operands are its first two inputs:
	// (x, w), (w, dy) or (x, dy).
	var rd *rounder
	if bf16 {
		if rd, err = x.newRounder(st, shapes, 0, 1); err != nil {
			return nil, false, err
		}
	}
	l, ok := convLaunch(x, st, shapes, plan, ws2)
	if !ok || rd == nil {
		return l, ok, nil
	}
	return func(out cu.DevicePtr, in []cu.DevicePtr) error {
		r, err := rd.apply(x, in)
		if err != nil {
			return err
		}
		return l(out, r)
	}, true, nil
}

// bf16GEMM reports whether an op's GEMM precision is bfloat16: operands
// rounded to bfloat16, products summed in FP32 (ops/gemm.go), which the
// GPU builders honour by rounding copies of the operands before the
// exact-FP32 cuBLAS or cuDNN call.
func bf16GEMM(kind, precision string) (bool, error) {
	switch precision {
	case "", "float32":
		return false, nil
	case ops.PrecisionBFloat16:
		return true, nil
	}
	return false, fmt.Errorf("%s: GEMM precision %q has no GPU kernel (\"\", \"float32\" or %q)", kind, precision, ops.PrecisionBFloat16)
}

// rounder rounds chosen inputs of a step to bfloat16 into scratch copies
// on the compute stream.
type rounder struct {
	idx, n []int
	buf    []cu.DevicePtr
	ins    []cu.DevicePtr
}

// newRounder prepares the copies of inputs which of step st (scratch of
// the program being prepared).
func (x *Exec) newRounder(st *engine.PlanStep, shapes []ops.Shape, which ...int) (*rounder, error) {
	r := &rounder{}
	for _, i := range which {
		n := shapes[st.Ins[i]].Size()
		d, err := x.scratch(4 * n)
		if err != nil {
			return nil, err
		}
		r.idx, r.n, r.buf = append(r.idx, i), append(r.n, n), append(r.buf, d)
	}
	return r, nil
}

// apply enqueues the roundings and returns the inputs with the rounded
// copies in place of the originals.
func (r *rounder) apply(x *Exec, in []cu.DevicePtr) ([]cu.DevicePtr, error) {
	r.ins = append(r.ins[:0], in...)
	for j, i := range r.idx {
		if err := kernels.RoundBFloat16(x.Rep.Compute, r.buf[j], in[i], r.n[j]); err != nil {
			return nil, err
		}
		r.ins[i] = r.buf[j]
	}
	return r.ins, nil
}

// convLaunch is the launch of a convolution kind on its cuDNN plan.
func convLaunch(x *Exec, st *engine.PlanStep, shapes []ops.Shape, plan *cudnn.Conv2D, ws2 cudnn.Workspace) (launchFn, bool) {
	ws := shapes[st.Ins[1]]
	switch st.Kind {
	case "Conv2D":
		return func(out cu.DevicePtr, in []cu.DevicePtr) error { return plan.Forward(in[0], in[1], out, ws2) }, true
	case "Conv2DBias", "Conv2DBiasRelu":
		// the CPU's fused convolution and bias (ops/conv_bias.go): the
		// convolution, then the bias (and ReLU) kernel in place
		if !x.kernelsOK || len(st.Ins) != 3 {
			return nil, false
		}
		c := ws[3]
		rows := shapes[st.Out].Size() / c
		relu := st.Kind == "Conv2DBiasRelu"
		return func(out cu.DevicePtr, in []cu.DevicePtr) error {
			if err := plan.Forward(in[0], in[1], out, ws2); err != nil {
				return err
			}
			if relu {
				return kernels.BiasAddRelu(x.Rep.Compute, out, out, in[2], rows, c)
			}
			return kernels.BiasAdd(x.Rep.Compute, out, out, in[2], rows, c)
		}, true
	case "Conv2DBackpropInput":
		return func(out cu.DevicePtr, in []cu.DevicePtr) error { return plan.BackwardData(in[0], in[1], out, ws2) }, true
	default:
		return func(out cu.DevicePtr, in []cu.DevicePtr) error { return plan.BackwardFilter(in[0], in[1], out, ws2) }, true
	}
}

func poolParams(xs ops.Shape, a ops.Pool2DAttrs, avg bool) cudnn.Pool2DParams {
	return cudnn.Pool2DParams{N: xs[0], H: xs[1], W: xs[2], C: xs[3], Window: a.Pool, Strides: a.Strides, Padding: a.Padding, Average: avg, Deterministic: true}
}

func buildPool(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	a, ok := st.Op.Attrs().(ops.Pool2DAttrs)
	xs := shapes[st.Ins[0]]
	if !ok || len(xs) != 4 {
		return nil, false, nil
	}
	h, err := x.dnn()
	if err != nil {
		return nil, false, err
	}
	plan, err := h.Pool2D(poolParams(xs, a, st.Kind == "AvgPool2D"))
	if err != nil {
		return nil, false, err
	}
	ptr, err := x.scratch(plan.WorkspaceSize())
	if err != nil {
		return nil, false, err
	}
	ws := cudnn.Workspace{Ptr: ptr, Size: plan.WorkspaceSize()}
	return func(out cu.DevicePtr, in []cu.DevicePtr) error { return plan.Forward(in[0], out, ws) }, true, nil
}

// buildMaxPoolGrad: the op's inputs are (dy, y); cuDNN also needs the
// forward input x, found as the input of the MaxPool2D step that wrote y
// (device buffers are never reused within a program, so it is intact).
// The masked variant (max pooling of a ReLU) first masks dy by y > 0.
func buildMaxPoolGrad(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	pa, ok1 := attrField(st.Op.Attrs(), "Pool2DAttrs")
	mk, ok2 := attrField(st.Op.Attrs(), "Masked")
	if !ok1 || !ok2 || len(st.Ins) != 2 || x.preparing == nil {
		return nil, false, nil
	}
	a, _ := pa.(ops.Pool2DAttrs)
	masked, _ := mk.(bool)
	pr := x.preparing
	xBuf := -1
	for _, s := range pr.pl.Steps {
		if s.Kind == "MaxPool2D" && s.Out == st.Ins[1] && len(s.Ins) == 1 {
			xBuf = s.Ins[0]
		}
	}
	xs := shapes[st.Out]
	if xBuf < 0 || !shapes[xBuf].Equal(xs) || len(xs) != 4 || (masked && !x.kernelsOK) {
		return nil, false, nil
	}
	h, err := x.dnn()
	if err != nil {
		return nil, false, err
	}
	plan, err := h.Pool2D(poolParams(xs, a, false))
	if err != nil {
		return nil, false, err
	}
	ptr, err := x.scratch(plan.WorkspaceSize())
	if err != nil {
		return nil, false, err
	}
	ws := cudnn.Workspace{Ptr: ptr, Size: plan.WorkspaceSize()}
	n := shapes[st.Ins[0]].Size()
	var dyMasked cu.DevicePtr
	if masked {
		if dyMasked, err = x.scratch(4 * n); err != nil {
			return nil, false, err
		}
	}
	return func(out cu.DevicePtr, in []cu.DevicePtr) error {
		dy, y := in[0], in[1]
		if masked {
			if err := kernels.ReluGrad(x.Rep.Compute, dyMasked, y, dy, n); err != nil {
				return err
			}
			dy = dyMasked
		}
		return plan.Backward(pr.dev[xBuf], y, dy, out, ws)
	}, true, nil
}

func buildSoftmax(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	s := shapes[st.Out]
	if len(s) == 0 || s[len(s)-1] < 1 {
		return nil, false, nil
	}
	c := s[len(s)-1]
	h, err := x.dnn()
	if err != nil {
		return nil, false, err
	}
	plan, err := h.Softmax(cudnn.SoftmaxParams{Rows: s.Size() / c, Classes: c, Log: st.Kind == "LogSoftmax"})
	if err != nil {
		return nil, false, err
	}
	return func(out cu.DevicePtr, in []cu.DevicePtr) error { return plan.Forward(in[0], out) }, true, nil
}

// sameFamily moves to the CPU every step of a family one of whose steps
// runs there (see families).
func sameFamily(pr *prog, fallback func(kind string)) {
	kinds := make([]string, len(pr.pl.Steps))
	native := make([]bool, len(pr.pl.Steps))
	for i, s := range pr.pl.Steps {
		kinds[i], native[i] = s.Kind, pr.launch[i] != nil
	}
	for _, i := range toHost(kinds, native) {
		pr.launch[i] = nil
		fallback(kinds[i])
	}
}
