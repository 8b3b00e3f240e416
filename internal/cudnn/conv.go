//go:build cuda

package cudnn

/*
#include "cudnn_decl.h"
*/
import "C"

import (
	"fmt"

	"gorgonia.org/cu"
)

// Conv2D is a convolution plan: descriptors, the three algorithms chosen
// once for its shapes, and the workspace layout.
type Conv2D struct {
	h    *Handle
	p    Conv2DParams
	g    window2D
	name string

	x, y  tensor // x: the input cuDNN sees (the padded buffer if explicit)
	pad   padder // explicit padding
	wHWIO tensor // the caller's filter as a strided 4-D view (K, C, KH, KW)
	wKRSC tensor // the same elements, KRSC-packed
	w     filter
	conv  C.gkConv
	sc    scalars

	fwdAlgo, bwdDataAlgo, bwdFilterAlgo int
	algoBytes                           int
	offAlgo, offW, offX                 int
	size                                int
}

// Conv2D returns the plan for p, building it (and choosing its algorithms
// by cuDNN's heuristics) on first use.
func (h *Handle) Conv2D(p Conv2DParams) (*Conv2D, error) {
	if c, ok := h.convs[p]; ok {
		return c, nil
	}
	c, err := newConv2D(h, p)
	if err != nil {
		return nil, err
	}
	if h.convs == nil {
		h.convs = map[Conv2DParams]*Conv2D{}
	}
	h.convs[p] = c
	return c, nil
}

func newConv2D(h *Handle, p Conv2DParams) (c *Conv2D, err error) {
	if err := checkDataType(p.DataType); err != nil {
		return nil, fmt.Errorf("cudnn: Conv2D: %w", err)
	}
	if p.KH < 1 || p.KW < 1 || p.K < 1 {
		return nil, fmt.Errorf("cudnn: Conv2D: filter %dx%dx%dx%d must be positive", p.KH, p.KW, p.C, p.K)
	}
	g, err := p.window()
	if err != nil {
		return nil, fmt.Errorf("cudnn: Conv2D: input %dx%dx%dx%d, filter %dx%dx%dx%d: %v", p.N, p.H, p.W, p.C, p.KH, p.KW, p.C, p.K, err)
	}
	c = &Conv2D{h: h, p: p, g: g, sc: newScalars()}
	c.name = fmt.Sprintf("Conv2D %s, filter %dx%dx%dx%d, %s", g, p.KH, p.KW, p.C, p.K, p.DataType)
	defer func() {
		if err != nil {
			c.destroy()
		}
	}()
	if err := g.check(); err != nil {
		return nil, fmt.Errorf("cudnn: %s: %v", c.name, err)
	}
	dt := p.DataType
	ih, iw, padH, padW := g.cudnnInput()
	if c.x, err = nhwc(dt, p.N, ih, iw, p.C); err != nil {
		return nil, err
	}
	if g.explicit {
		if c.pad, err = newPadder(g, dt); err != nil {
			return nil, err
		}
	}
	if c.y, err = nhwc(dt, p.N, g.h.out, g.w.out, p.K); err != nil {
		return nil, err
	}
	// HWIO element (r, s, c, k) sits at ((r*KW+s)*C+c)*K+k.
	if c.wHWIO, err = newStrided(dt, p.K, p.C, p.KH, p.KW, 1, p.K, p.KW*p.C*p.K, p.C*p.K); err != nil {
		return nil, err
	}
	if c.wKRSC, err = newTensor(dt, NHWC, p.K, p.C, p.KH, p.KW); err != nil {
		return nil, err
	}
	if c.w, err = newFilterKRSC(dt, p.K, p.C, p.KH, p.KW); err != nil {
		return nil, err
	}
	if err := check("cudnnCreateConvolutionDescriptor", C.cudnnCreateConvolutionDescriptor(&c.conv), c.name); err != nil {
		return nil, err
	}
	compute := Float
	if dt == Double {
		compute = Double
	}
	if err := check("cudnnSetConvolution2dDescriptor", C.cudnnSetConvolution2dDescriptor(c.conv,
		C.int(padH), C.int(padW), C.int(g.h.stride), C.int(g.w.stride), C.int(g.h.dil), C.int(g.w.dil),
		modeCrossCorrelation, C.int(compute)), c.name); err != nil {
		return nil, err
	}
	if err := check("cudnnSetConvolutionMathType", C.cudnnSetConvolutionMathType(c.conv, C.int(p.math())), c.name); err != nil {
		return nil, err
	}
	var n, k, oh, ow C.int
	if err := check("cudnnGetConvolution2dForwardOutputDim", C.cudnnGetConvolution2dForwardOutputDim(c.conv, c.x.d, c.w.d,
		&n, &k, &oh, &ow), c.name); err != nil {
		return nil, err
	}
	if int(n) != p.N || int(k) != p.K || int(oh) != g.h.out || int(ow) != g.w.out {
		return nil, fmt.Errorf("cudnn: %s: cuDNN's output is %dx%dx%dx%d", c.name, n, oh, ow, k)
	}
	if err := c.chooseAlgos(); err != nil {
		return nil, err
	}
	c.layout()
	return c, nil
}

// pick returns the first usable result: cuDNN lists them best first.
// With FMA math (exact float32) a result using exactly FMA math is
// preferred, then one using the default math; tensor-core results are
// never taken.
func pick(perf []C.gkAlgoPerf, limit int, determ bool, math MathType) (algo, bytes int, ok bool) {
	for pass := 0; pass < 2; pass++ {
		for _, r := range perf {
			if r.status != 0 || int(r.memory) > limit || (determ && r.determinism != deterministic) {
				continue
			}
			if m := MathType(r.mathType); math == FMAMath && m != FMAMath && (pass == 0 || m != DefaultMath) {
				continue
			}
			return int(r.algo), int(r.memory), true
		}
		if math != FMAMath {
			break
		}
	}
	return 0, 0, false
}

// chooseAlgos asks cuDNN's heuristics (the _v7 queries, which run
// nothing) for the three algorithms.
func (c *Conv2D) chooseAlgos() error {
	h, lim, det := c.h.h, c.p.limit(), c.p.Deterministic
	var got C.int
	perf := make([]C.gkAlgoPerf, fwdAlgoCount)
	if err := check("cudnnGetConvolutionForwardAlgorithm_v7", C.cudnnGetConvolutionForwardAlgorithm_v7(h,
		c.x.d, c.w.d, c.conv, c.y.d, C.int(len(perf)), &got, &perf[0]), c.name); err != nil {
		return err
	}
	var ok bool
	var fb, db, wb int
	if c.fwdAlgo, fb, ok = pick(perf[:got], lim, false, c.p.math()); !ok {
		return fmt.Errorf("%w: %s: no forward algorithm within %d bytes of workspace (math type %d)", ErrNoAlgorithm, c.name, lim, c.p.math())
	}
	perf = make([]C.gkAlgoPerf, bwdDataAlgoCount)
	if err := check("cudnnGetConvolutionBackwardDataAlgorithm_v7", C.cudnnGetConvolutionBackwardDataAlgorithm_v7(h,
		c.w.d, c.y.d, c.conv, c.x.d, C.int(len(perf)), &got, &perf[0]), c.name); err != nil {
		return err
	}
	if c.bwdDataAlgo, db, ok = pick(perf[:got], lim, det, c.p.math()); !ok {
		return fmt.Errorf("%w: %s: no backward-data algorithm within %d bytes (deterministic %v, math type %d)", ErrNoAlgorithm, c.name, lim, det, c.p.math())
	}
	perf = make([]C.gkAlgoPerf, bwdFilterAlgoCount)
	if err := check("cudnnGetConvolutionBackwardFilterAlgorithm_v7", C.cudnnGetConvolutionBackwardFilterAlgorithm_v7(h,
		c.x.d, c.y.d, c.conv, c.w.d, C.int(len(perf)), &got, &perf[0]), c.name); err != nil {
		return err
	}
	if c.bwdFilterAlgo, wb, ok = pick(perf[:got], lim, det, c.p.math()); !ok {
		return fmt.Errorf("%w: %s: no backward-filter algorithm within %d bytes (deterministic %v, math type %d)", ErrNoAlgorithm, c.name, lim, det, c.p.math())
	}
	// The heuristics' memory figures are estimates: ask for the exact ones.
	var sz C.size_t
	if err := check("cudnnGetConvolutionForwardWorkspaceSize", C.cudnnGetConvolutionForwardWorkspaceSize(h,
		c.x.d, c.w.d, c.conv, c.y.d, C.int(c.fwdAlgo), &sz), c.name); err != nil {
		return err
	}
	fb = max(fb, int(sz))
	if err := check("cudnnGetConvolutionBackwardDataWorkspaceSize", C.cudnnGetConvolutionBackwardDataWorkspaceSize(h,
		c.w.d, c.y.d, c.conv, c.x.d, C.int(c.bwdDataAlgo), &sz), c.name); err != nil {
		return err
	}
	db = max(db, int(sz))
	if err := check("cudnnGetConvolutionBackwardFilterWorkspaceSize", C.cudnnGetConvolutionBackwardFilterWorkspaceSize(h,
		c.x.d, c.y.d, c.conv, c.w.d, C.int(c.bwdFilterAlgo), &sz), c.name); err != nil {
		return err
	}
	wb = max(wb, int(sz))
	c.algoBytes = max(fb, db, wb)
	return nil
}

// layout places the algorithms' scratch, the KRSC filter and the padded
// input in one workspace.
func (c *Conv2D) layout() {
	p, es := c.p, c.p.DataType.Size()
	var l layout
	c.offAlgo = l.add(c.algoBytes)
	c.offW = l.add(p.KH * p.KW * p.C * p.K * es)
	c.offX = -1
	if c.g.explicit {
		c.offX = l.add(c.pad.bytes)
	}
	c.size = l.size
}

// OutShape returns the NHWC output shape.
func (c *Conv2D) OutShape() [4]int { return [4]int{c.p.N, c.g.h.out, c.g.w.out, c.p.K} }

// WorkspaceSize returns the bytes of scratch each call needs.
func (c *Conv2D) WorkspaceSize() int { return c.size }

// Algorithms returns the chosen forward, backward-data and backward-filter
// algorithms (cuDNN's enum values).
func (c *Conv2D) Algorithms() (fwd, bwdData, bwdFilter int) {
	return c.fwdAlgo, c.bwdDataAlgo, c.bwdFilterAlgo
}

// Explicit reports whether the plan pads the input itself (TensorFlow
// "same" padding that is asymmetric).
func (c *Conv2D) Explicit() bool { return c.g.explicit }

func (c *Conv2D) String() string { return c.name }

// filterToKRSC copies the HWIO filter w into the workspace as KRSC.
func (c *Conv2D) filterToKRSC(w cu.DevicePtr, ws Workspace) error {
	dt := c.p.DataType
	return check("cudnnTransformTensor", C.cudnnTransformTensor(c.h.h, c.sc.at(0, dt, 1), c.wHWIO.d, ptr(w),
		c.sc.at(1, dt, 0), c.wKRSC.d, ws.at(c.offW)), c.name+", filter HWIO to KRSC")
}

// padInput writes x into the workspace's padded buffer, zeros around it.
func (c *Conv2D) padInput(x cu.DevicePtr, ws Workspace) error {
	return c.pad.fill(c.h, c.sc, c.p.DataType, x, ws.at(c.offX), 0, c.name)
}

// Forward computes y = conv(x, w) (y is overwritten).
func (c *Conv2D) Forward(x, w, y cu.DevicePtr, ws Workspace) error {
	if err := ws.need(c.name, c.size); err != nil {
		return err
	}
	if err := c.filterToKRSC(w, ws); err != nil {
		return err
	}
	xp := ptr(x)
	if c.g.explicit {
		if err := c.padInput(x, ws); err != nil {
			return err
		}
		xp = ws.at(c.offX)
	}
	dt := c.p.DataType
	return check("cudnnConvolutionForward", C.cudnnConvolutionForward(c.h.h, c.sc.at(0, dt, 1), c.x.d, xp,
		c.w.d, ws.at(c.offW), c.conv, C.int(c.fwdAlgo), ws.at(c.offAlgo), C.size_t(c.algoBytes),
		c.sc.at(1, dt, 0), c.y.d, ptr(y)), fmt.Sprintf("%s, algorithm %d", c.name, c.fwdAlgo))
}

// BackwardData computes dx, the gradient with respect to the input, from
// the filter w and the output gradient dy (dx is overwritten).
func (c *Conv2D) BackwardData(w, dy, dx cu.DevicePtr, ws Workspace) error {
	if err := ws.need(c.name, c.size); err != nil {
		return err
	}
	if err := c.filterToKRSC(w, ws); err != nil {
		return err
	}
	dt := c.p.DataType
	dxp := ptr(dx)
	if c.g.explicit {
		dxp = ws.at(c.offX)
	}
	if err := check("cudnnConvolutionBackwardData", C.cudnnConvolutionBackwardData(c.h.h, c.sc.at(0, dt, 1),
		c.w.d, ws.at(c.offW), c.y.d, ptr(dy), c.conv, C.int(c.bwdDataAlgo), ws.at(c.offAlgo), C.size_t(c.algoBytes),
		c.sc.at(1, dt, 0), c.x.d, dxp), fmt.Sprintf("%s, algorithm %d", c.name, c.bwdDataAlgo)); err != nil {
		return err
	}
	if !c.g.explicit {
		return nil
	}
	// The gradient of the padding is dropped: copy out the interior.
	return c.pad.extract(c.h, c.sc, dt, ws.at(c.offX), dx, c.name)
}

// BackwardFilter computes dw (HWIO), the gradient with respect to the
// filter, from the input x and the output gradient dy (dw is overwritten).
func (c *Conv2D) BackwardFilter(x, dy, dw cu.DevicePtr, ws Workspace) error {
	if err := ws.need(c.name, c.size); err != nil {
		return err
	}
	xp := ptr(x)
	if c.g.explicit {
		if err := c.padInput(x, ws); err != nil {
			return err
		}
		xp = ws.at(c.offX)
	}
	dt := c.p.DataType
	if err := check("cudnnConvolutionBackwardFilter", C.cudnnConvolutionBackwardFilter(c.h.h, c.sc.at(0, dt, 1),
		c.x.d, xp, c.y.d, ptr(dy), c.conv, C.int(c.bwdFilterAlgo), ws.at(c.offAlgo), C.size_t(c.algoBytes),
		c.sc.at(1, dt, 0), c.w.d, ws.at(c.offW)), fmt.Sprintf("%s, algorithm %d", c.name, c.bwdFilterAlgo)); err != nil {
		return err
	}
	return check("cudnnTransformTensor", C.cudnnTransformTensor(c.h.h, c.sc.at(0, dt, 1), c.wKRSC.d, ws.at(c.offW),
		c.sc.at(1, dt, 0), c.wHWIO.d, ptr(dw)), c.name+", filter gradient KRSC to HWIO")
}

// Tune measures the algorithms that fit the plan's workspace on the
// caller's buffers (cudnnFind*AlgorithmEx) and keeps the fastest of each
// direction. It overwrites y and dx; x, w and dy are read. The workspace
// size does not change, so algorithms needing more are not tried.
func (c *Conv2D) Tune(x, w, y, dy, dx cu.DevicePtr, ws Workspace) error {
	if err := ws.need(c.name, c.size); err != nil {
		return err
	}
	if err := c.filterToKRSC(w, ws); err != nil {
		return err
	}
	xp := ptr(x)
	if c.g.explicit {
		if err := c.padInput(x, ws); err != nil {
			return err
		}
		xp = ws.at(c.offX)
	}
	h, wsAlgo, n := c.h.h, ws.at(c.offAlgo), C.size_t(c.algoBytes)
	var got C.int
	perf := make([]C.gkAlgoPerf, fwdAlgoCount)
	if err := check("cudnnFindConvolutionForwardAlgorithmEx", C.cudnnFindConvolutionForwardAlgorithmEx(h, c.x.d, xp,
		c.w.d, ws.at(c.offW), c.conv, c.y.d, ptr(y), C.int(len(perf)), &got, &perf[0], wsAlgo, n), c.name); err != nil {
		return err
	}
	if a, _, ok := pick(perf[:got], c.algoBytes, false, c.p.math()); ok {
		c.fwdAlgo = a
	}
	// Backward data writes the padded gradient over the padded input,
	// so the filter search, which reads the padded input, goes first.
	perf = make([]C.gkAlgoPerf, bwdFilterAlgoCount)
	dwKRSC := ws.at(c.offW) // the KRSC filter is rebuilt below
	if err := check("cudnnFindConvolutionBackwardFilterAlgorithmEx", C.cudnnFindConvolutionBackwardFilterAlgorithmEx(h,
		c.x.d, xp, c.y.d, ptr(dy), c.conv, c.w.d, dwKRSC, C.int(len(perf)), &got, &perf[0], wsAlgo, n), c.name); err != nil {
		return err
	}
	if a, _, ok := pick(perf[:got], c.algoBytes, c.p.Deterministic, c.p.math()); ok {
		c.bwdFilterAlgo = a
	}
	if err := c.filterToKRSC(w, ws); err != nil {
		return err
	}
	dxp := ptr(dx)
	if c.g.explicit {
		dxp = ws.at(c.offX)
	}
	perf = make([]C.gkAlgoPerf, bwdDataAlgoCount)
	if err := check("cudnnFindConvolutionBackwardDataAlgorithmEx", C.cudnnFindConvolutionBackwardDataAlgorithmEx(h,
		c.w.d, ws.at(c.offW), c.y.d, ptr(dy), c.conv, c.x.d, dxp, C.int(len(perf)), &got, &perf[0], wsAlgo, n), c.name); err != nil {
		return err
	}
	if a, _, ok := pick(perf[:got], c.algoBytes, c.p.Deterministic, c.p.math()); ok {
		c.bwdDataAlgo = a
	}
	return nil
}

func (c *Conv2D) destroy() {
	for _, t := range []*tensor{&c.x, &c.y, &c.wHWIO, &c.wKRSC} {
		t.destroy()
	}
	c.pad.destroy()
	c.w.destroy()
	if c.conv != nil {
		C.cudnnDestroyConvolutionDescriptor(c.conv)
		c.conv = nil
	}
	c.sc.free()
	c.sc = scalars{}
}
