//go:build cuda

package gpuexec

import (
	"fmt"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/cuda/kernels"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/cu"
)

// The ops that run on our own kernels (internal/cuda/kernels).

func init() {
	for _, k := range kernels.UnaryKinds() {
		register(k, buildUnary)
	}
	for _, k := range []string{"Add", "Sub", "Mul", "Div", "Maximum", "GreaterEqual"} {
		register(k, buildBroadcastBinary)
	}
	register("ReluGrad", buildEqualBinary)
	register("AddRelu", buildEqualBinary)
	register("AddN", buildAddN)
	register("BiasAdd", buildBias)
	register("BiasAddRelu", buildBias)
	register("BroadcastTo", buildBroadcastTo)
	register("SumTo", buildSumTo)
	register("BiasAddGrad", buildSumTo)
	register("PooledChannelSum", buildPooledChannelSum)
	register("Concat", buildConcat)
	register("Slice", buildSlice)
	register("Pad", buildPad)
	register("Reverse", buildReverse)
	register("Gather", buildGather)
	register("GatherGrad", buildGather)
	register("SparseSoftmaxCrossEntropyWithLogits", buildLoss)
	register("SparseSoftmaxCrossEntropyGrad", buildLoss)
	register("SoftmaxCrossEntropyWithLogits", buildLoss)
	register("SigmoidCrossEntropyWithLogits", buildLoss)
	register("Reshape", buildCopy)             // a Reshape that is an output or hook input: a copy
	register("CastToBFloat16Exact", buildCopy) // a view but where it is an output or hook input
}

func intAttr(st *engine.PlanStep, name string) (int, bool) {
	v, ok := attrField(st.Op.Attrs(), name)
	if !ok {
		return 0, false
	}
	i, ok := v.(int)
	return i, ok
}

func buildUnary(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	if !x.kernelsOK || st.Op == nil || len(st.Ins) != 1 {
		return nil, false, nil
	}
	var c, d float32
	if v, ok := attrField(st.Op.Attrs(), "C"); ok {
		c, _ = v.(float32)
	}
	if v, ok := attrField(st.Op.Attrs(), "D"); ok {
		d, _ = v.(float32)
	}
	kind, n := st.Kind, shapes[st.Out].Size()
	return func(out cu.DevicePtr, in []cu.DevicePtr) error {
		return kernels.Unary(x.Rep.Compute, kind, out, in[0], n, c, d)
	}, true, nil
}

func buildBroadcastBinary(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	if !x.kernelsOK || len(st.Ins) != 2 {
		return nil, false, nil
	}
	kind := st.Kind
	as, bs, os := shapes[st.Ins[0]], shapes[st.Ins[1]], shapes[st.Out]
	return func(out cu.DevicePtr, in []cu.DevicePtr) error {
		return kernels.BinaryBroadcast(x.Rep.Compute, kind, out, in[0], in[1], as, bs, os)
	}, true, nil
}

func buildEqualBinary(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	n := shapes[st.Out].Size()
	if !x.kernelsOK || len(st.Ins) != 2 || shapes[st.Ins[0]].Size() != n || shapes[st.Ins[1]].Size() != n {
		return nil, false, nil
	}
	kind := st.Kind
	return func(out cu.DevicePtr, in []cu.DevicePtr) error {
		return kernels.Binary(x.Rep.Compute, kind, out, in[0], in[1], n)
	}, true, nil
}

// buildAddN: gorgonia's addition of two gradient terms of equal size.
func buildAddN(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	n := shapes[st.Out].Size()
	if !x.kernelsOK || len(st.Ins) != 2 {
		return nil, false, nil
	}
	return func(out cu.DevicePtr, in []cu.DevicePtr) error {
		return kernels.Add(x.Rep.Compute, out, in[0], in[1], n)
	}, true, nil
}

func buildBias(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	if !x.kernelsOK || len(st.Ins) != 2 {
		return nil, false, nil
	}
	c := shapes[st.Ins[1]].Size()
	if c < 1 {
		return nil, false, nil
	}
	rows := shapes[st.Out].Size() / c
	relu := st.Kind == "BiasAddRelu"
	return func(out cu.DevicePtr, in []cu.DevicePtr) error {
		if relu {
			return kernels.BiasAddRelu(x.Rep.Compute, out, in[0], in[1], rows, c)
		}
		return kernels.BiasAdd(x.Rep.Compute, out, in[0], in[1], rows, c)
	}, true, nil
}

func buildBroadcastTo(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	if !x.kernelsOK || len(st.Ins) != 1 {
		return nil, false, nil
	}
	xs, os := shapes[st.Ins[0]], shapes[st.Out]
	return func(out cu.DevicePtr, in []cu.DevicePtr) error {
		return kernels.BroadcastTo(x.Rep.Compute, out, in[0], xs, os)
	}, true, nil
}

// buildSumTo: SumTo, and BiasAddGrad (a SumTo onto the last axis).
func buildSumTo(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	if !x.kernelsOK || len(st.Ins) != 1 {
		return nil, false, nil
	}
	xs, os := shapes[st.Ins[0]], shapes[st.Out]
	if st.Kind == "BiasAddGrad" {
		if len(xs) == 0 {
			return nil, false, nil
		}
		keep := make(ops.Shape, len(xs))
		for i := range keep {
			keep[i] = 1
		}
		keep[len(xs)-1] = xs[len(xs)-1]
		os = keep
	}
	bytes, err := kernels.SumToWorkBytes(xs, os)
	if err != nil {
		return nil, false, nil
	}
	work, err := x.scratch(bytes)
	if err != nil {
		return nil, false, err
	}
	return func(out cu.DevicePtr, in []cu.DevicePtr) error {
		return kernels.SumTo(x.Rep.Compute, out, in[0], work, xs, os)
	}, true, nil
}

func buildPooledChannelSum(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	if !x.kernelsOK || len(st.Ins) != 2 {
		return nil, false, nil
	}
	c := shapes[st.Out].Size()
	if c < 1 {
		return nil, false, nil
	}
	rows := shapes[st.Ins[0]].Size() / c
	work, err := x.scratch(kernels.PooledChannelSumWorkBytes(rows, c))
	if err != nil {
		return nil, false, err
	}
	return func(out cu.DevicePtr, in []cu.DevicePtr) error {
		return kernels.PooledChannelSum(x.Rep.Compute, out, in[0], in[1], work, rows, c)
	}, true, nil
}

func buildConcat(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	axis, ok := intAttr(st, "Axis")
	if !x.kernelsOK || !ok {
		return nil, false, nil
	}
	ss := make([][]int, len(st.Ins))
	for i, b := range st.Ins {
		ss[i] = shapes[b]
	}
	return func(out cu.DevicePtr, in []cu.DevicePtr) error {
		return kernels.Concat(x.Rep.Compute, out, in, ss, axis)
	}, true, nil
}

func buildSlice(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	b, ok1 := attrField(st.Op.Attrs(), "Begin")
	z, ok2 := attrField(st.Op.Attrs(), "Size")
	if !x.kernelsOK || !ok1 || !ok2 {
		return nil, false, nil
	}
	begin, _ := b.([]int)
	size, _ := z.([]int)
	xs := shapes[st.Ins[0]]
	return func(out cu.DevicePtr, in []cu.DevicePtr) error {
		return kernels.Slice(x.Rep.Compute, out, in[0], xs, begin, size)
	}, true, nil
}

func buildPad(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	p, ok := attrField(st.Op.Attrs(), "Paddings")
	pads, ok2 := p.([][2]int)
	if !x.kernelsOK || !ok || !ok2 {
		return nil, false, nil
	}
	xs := shapes[st.Ins[0]]
	return func(out cu.DevicePtr, in []cu.DevicePtr) error {
		return kernels.Pad(x.Rep.Compute, out, in[0], xs, pads)
	}, true, nil
}

func buildReverse(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	axis, ok := intAttr(st, "Axis")
	if !x.kernelsOK || !ok {
		return nil, false, nil
	}
	xs := shapes[st.Ins[0]]
	return func(out cu.DevicePtr, in []cu.DevicePtr) error {
		return kernels.Reverse(x.Rep.Compute, out, in[0], xs, axis)
	}, true, nil
}

// buildGather: Gather (params, ids) and GatherGrad (ids, dy).
func buildGather(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	rows, ok1 := intAttr(st, "Rows")
	cols, ok2 := intAttr(st, "Cols")
	if !x.kernelsOK || !ok1 || !ok2 || len(st.Ins) != 2 {
		return nil, false, nil
	}
	status, err := x.status(st.Kind)
	if err != nil {
		return nil, false, err
	}
	if st.Kind == "Gather" {
		nIDs := shapes[st.Ins[1]].Size()
		return func(out cu.DevicePtr, in []cu.DevicePtr) error {
			return kernels.Gather(x.Rep.Compute, out, in[0], in[1], status, nIDs, rows, cols)
		}, true, nil
	}
	nIDs := shapes[st.Ins[0]].Size()
	return func(out cu.DevicePtr, in []cu.DevicePtr) error {
		return kernels.GatherGrad(x.Rep.Compute, out, in[0], in[1], status, nIDs, rows, cols)
	}, true, nil
}

// buildLoss: the cross-entropy ops (labels, logits[, dy]).
func buildLoss(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	if !x.kernelsOK || len(st.Ins) < 2 {
		return nil, false, nil
	}
	ls := shapes[st.Ins[1]]
	if len(ls) == 0 {
		return nil, false, nil
	}
	n := ls[len(ls)-1]
	rows := ls.Size() / max(n, 1)
	s := x.Rep.Compute
	switch st.Kind {
	case "SparseSoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyGrad":
		status, err := x.status(st.Kind)
		if err != nil {
			return nil, false, err
		}
		if st.Kind == "SparseSoftmaxCrossEntropyGrad" {
			if len(st.Ins) != 3 {
				return nil, false, nil
			}
			return func(out cu.DevicePtr, in []cu.DevicePtr) error {
				return kernels.SparseSoftmaxCrossEntropyGrad(s, out, in[0], in[1], in[2], status, rows, n)
			}, true, nil
		}
		return func(out cu.DevicePtr, in []cu.DevicePtr) error {
			return kernels.SparseSoftmaxCrossEntropy(s, out, in[0], in[1], status, rows, n)
		}, true, nil
	case "SoftmaxCrossEntropyWithLogits":
		return func(out cu.DevicePtr, in []cu.DevicePtr) error {
			return kernels.SoftmaxCrossEntropy(s, out, in[0], in[1], rows, n)
		}, true, nil
	case "SigmoidCrossEntropyWithLogits":
		total := ls.Size()
		return func(out cu.DevicePtr, in []cu.DevicePtr) error {
			return kernels.SigmoidCrossEntropy(s, out, in[0], in[1], total)
		}, true, nil
	}
	return nil, false, fmt.Errorf("no loss kernel for %s", st.Kind)
}

// buildCopy: a Reshape step (one that is an output or a hook input, so
// not a view) copies its input.
func buildCopy(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	if len(st.Ins) != 1 {
		return nil, false, nil
	}
	n := shapes[st.Out].Size()
	return func(out cu.DevicePtr, in []cu.DevicePtr) error { return x.Rep.CopyDevice(out, in[0], n) }, true, nil
}
