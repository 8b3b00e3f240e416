package onnx

import (
	"fmt"
	"slices"

	"github.com/gokeras/gokeras/keras/layers"
)

// The recurrent layers are ONNX's RNN, LSTM and GRU nodes, which read a
// time-major (steps, batch, features) sequence and write every output
// Y (steps, directions, batch, units) and the last one Y_h (directions,
// batch, units). The weights are the cell's, per gate transposed to
// ONNX's (gates*units, features) and reordered to ONNX's gate order:
// Keras' LSTM gates are i, f, c, o, ONNX's i, o, f, c; GRU's z, r, h are
// the same in both, and Keras' reset_after (the reset gate applied to
// the recurrent product with its own bias) is ONNX's
// linear_before_reset=1. The bias is ONNX's input bias; a GRU with
// reset_after has a recurrent bias too.
//
// go_backwards is direction "reverse", whose outputs ONNX writes at the
// steps they were read from; Keras returns them in the order it read
// them, so the sequence is reversed back. Bidirectional over a forward
// and a backward layer of one class and geometry is one node of
// direction "bidirectional" (its backward outputs in time order, as
// Keras' Bidirectional puts them).
//
// Keras' hard_sigmoid, relu6(x+3)/6 (gokeras' clip(x/6 + 1/2, 0, 1)), is
// ONNX's HardSigmoid with activation_alpha 1/6 and activation_beta 1/2;
// onnxruntime reads those lists in the order of the activations that take
// them, so they hold one value per HardSigmoid.
//
// A timestep mask (Embedding's mask_zero, Masking, a Keras file's mask
// argument) lets a masked step keep the previous state and output,
// anywhere in the sequence, which ONNX's sequence_lens (right padding
// only) cannot say. The layer is then unrolled over its known number of
// steps (see maskedDirection): one node of the same class per step,
// reading the states of the step before, blended with them by the mask as
// gokeras' loop does. A masked sequence of unknown length is refused.
//
// Refused by name: return_state, stateful layers (their states carry
// over between batches), initial states, and activations outside ONNX's
// list.

func init() {
	converters["SimpleRNN"] = convertRecurrent
	converters["LSTM"] = convertRecurrent
	converters["GRU"] = convertRecurrent
	converters["Bidirectional"] = convertBidirectional
}

// rnnKind is what differs between the three cells.
type rnnKind struct {
	op    string
	gates int
	order []int // ONNX gate g is Keras gate order[g]
}

var rnnKinds = map[string]rnnKind{
	"SimpleRNN": {"RNN", 1, []int{0}},
	"LSTM":      {"LSTM", 4, []int{0, 3, 1, 2}},
	"GRU":       {"GRU", 3, []int{0, 1, 2}},
}

// onnxActivations are the Keras activations the recurrent nodes take
// by ONNX's names (the ones that need no alpha or beta).
var onnxActivations = map[string]string{"sigmoid": "Sigmoid", "tanh": "Tanh", "relu": "Relu", "softsign": "Softsign", "softplus": "Softplus",
	"hard_sigmoid": "HardSigmoid"}

// rnnDir is one direction of a recurrent node: the layer's weights in
// ONNX's layout, its settings.
type rnnDir struct {
	class         string
	units         int
	w, r, b       []float32 // (gates*units, features), (gates*units, units), (2*gates*units)
	acts          []string  // ONNX's activations of the direction
	resetAfter    bool      // GRU
	seq, backward bool
	zeroOut       bool // zero_output_for_mask: masked steps' outputs are zeros
}

// readRNN reads a recurrent layer (a Bidirectional's direction too) of
// input features feat.
func readRNN(l layers.Layer, feat int) (rnnDir, error) {
	class := l.ClassName()
	kind, ok := rnnKinds[class]
	if !ok {
		return rnnDir{}, unsupported("a recurrent layer of class %s (the exporter writes SimpleRNN, LSTM and GRU)", class)
	}
	cfg := l.GetConfig()
	d := rnnDir{class: class}
	var err error
	for _, key := range []string{"return_state", "stateful"} {
		on, err := cfgBool(cfg, key, false)
		if err != nil {
			return d, err
		}
		if on {
			return d, unsupported("%s %s", class, key)
		}
	}
	if d.seq, err = cfgBool(cfg, "return_sequences", false); err != nil {
		return d, err
	}
	if d.backward, err = cfgBool(cfg, "go_backwards", false); err != nil {
		return d, err
	}
	if d.zeroOut, err = cfgBool(cfg, "zero_output_for_mask", false); err != nil {
		return d, err
	}
	if d.units, err = cfgInt(cfg, "units", 0); err != nil {
		return d, err
	}
	if d.units < 1 {
		return d, fmt.Errorf("units %d", d.units)
	}
	act, err := cfgActivation(cfg, "activation")
	if err != nil {
		return d, err
	}
	rec := "sigmoid"
	if class != "SimpleRNN" {
		if rec, err = cfgActivation(cfg, "recurrent_activation"); err != nil {
			return d, err
		}
		if _, ok := cfg["recurrent_activation"]; !ok {
			rec = "sigmoid"
		}
	}
	if _, ok := cfg["activation"]; !ok {
		act = "tanh"
	}
	for _, a := range []string{act, rec} {
		if onnxActivations[a] == "" {
			return d, unsupported("%s activation %q (ONNX's recurrent nodes take %s)", class, a, "sigmoid, tanh, relu, softsign, softplus, hard_sigmoid")
		}
	}
	switch class {
	case "SimpleRNN":
		d.acts = []string{onnxActivations[act]}
	case "LSTM":
		d.acts = []string{onnxActivations[rec], onnxActivations[act], onnxActivations[act]}
	case "GRU":
		d.acts = []string{onnxActivations[rec], onnxActivations[act]}
		if d.resetAfter, err = cfgBool(cfg, "reset_after", true); err != nil {
			return d, err
		}
	}
	useBias, err := cfgBool(cfg, "use_bias", true)
	if err != nil {
		return d, err
	}
	u, g := d.units, kind.gates
	kw, err := mustWeight(l, "kernel", feat, g*u)
	if err != nil {
		return d, err
	}
	rw, err := mustWeight(l, "recurrent_kernel", u, g*u)
	if err != nil {
		return d, err
	}
	d.w, d.r = gatesT(kw.Numpy(), feat, u, kind.order), gatesT(rw.Numpy(), u, u, kind.order)
	d.b = make([]float32, 2*g*u)
	if useBias {
		n := g * u
		shape := []int{n}
		if d.resetAfter {
			shape = []int{2, n}
		}
		bw, err := mustWeight(l, "bias", shape...)
		if err != nil {
			return d, err
		}
		bv := bw.Numpy()
		copy(d.b, gatesVec(bv[:n], u, kind.order))
		if d.resetAfter {
			copy(d.b[n:], gatesVec(bv[n:], u, kind.order))
		}
	}
	return d, nil
}

// gatesT turns a Keras kernel (rows, gates*u), its gates side by side in
// Keras' order, into ONNX's (gates*u, rows) in ONNX's order.
func gatesT(k []float32, rows, u int, order []int) []float32 {
	g := len(order)
	out := make([]float32, len(k))
	for og, kg := range order {
		for j := range u {
			for r := range rows {
				out[(og*u+j)*rows+r] = k[r*g*u+kg*u+j]
			}
		}
	}
	return out
}

// gatesVec reorders a bias of gates*u values to ONNX's gate order.
func gatesVec(b []float32, u int, order []int) []float32 {
	out := make([]float32, len(b))
	for og, kg := range order {
		copy(out[og*u:(og+1)*u], b[kg*u:(kg+1)*u])
	}
	return out
}

// sequenceInput checks a recurrent layer's call (one input) and returns
// the input time-major: (steps, batch, features).
func (c *converter) sequenceInput(k *call) (string, int, error) {
	if len(k.in) != 1 {
		return "", 0, unsupported("a call with %d inputs (initial states passed to the layer)", len(k.in))
	}
	x := k.in[0]
	if len(x.shape) != 3 || x.shape[2] < 1 {
		return "", 0, fmt.Errorf("needs a rank-3 (batch, steps, features) input of known features, got %v", x.shape)
	}
	if x.mask != "" && x.shape[1] < 1 {
		return "", 0, unsupported("a timestep mask on a sequence of unknown length %v (the masked layer is unrolled over its steps)", x.shape)
	}
	c.float(x)
	if x.nchw { // (batch, features, steps), after a Conv1D
		return c.op("Transpose", []string{x.name}, "", attrInts("perm", 2, 0, 1)), x.shape[2], nil
	}
	return c.op("Transpose", []string{x.name}, "", attrInts("perm", 1, 0, 2)), x.shape[2], nil
}

// rnnNode writes the node of dirs (one, or a forward and a backward one
// of the same class and units) on the time-major input and returns Y or
// Y_h, as the directions' return_sequences ask.
func (c *converter) rnnNode(xt string, feat int, dirs []rnnDir, direction string) string {
	d := dirs[0]
	kind := rnnKinds[d.class]
	n, gu := len(dirs), kind.gates*d.units
	var w, r, b []float32
	var acts []string
	for _, e := range dirs {
		w, r, b = append(w, e.w...), append(r, e.r...), append(b, e.b...)
		acts = append(acts, e.acts...)
	}
	ins := []string{xt, c.constFloats("W", []int{n, gu, feat}, w), c.constFloats("R", []int{n, gu, d.units}, r), c.constFloats("B", []int{n, 2 * gu}, b)}
	as := rnnAttrs(d, direction, acts)
	outs := []string{"", c.fresh(c.scope + "/Y_h")}
	if d.seq {
		outs = []string{c.fresh(c.scope + "/Y")}
	}
	c.opOuts(kind.op, ins, outs, as...)
	if d.seq {
		return outs[0]
	}
	return outs[1]
}

// rnnAttrs are a recurrent node's attributes: the activations, with
// HardSigmoid's alpha and beta (Keras' 1/6 and 1/2) for each HardSigmoid
// among them, in order.
func rnnAttrs(d rnnDir, direction string, acts []string) []attr {
	as := []attr{attrInt("hidden_size", d.units), attrString("direction", direction), attrStrings("activations", acts...)}
	var alphas, betas []float64
	for _, a := range acts {
		if a == "HardSigmoid" {
			alphas, betas = append(alphas, 1.0/6), append(betas, 0.5)
		}
	}
	if alphas != nil {
		as = append(as, attrFloats("activation_alpha", alphas...), attrFloats("activation_beta", betas...))
	}
	if d.class == "GRU" && d.resetAfter {
		as = append(as, attrInt("linear_before_reset", 1))
	}
	return as
}

// reverseTime reverses axis a of v (Keras' go_backwards order).
func (c *converter) reverseTime(v string, a int) string {
	return c.op("Slice", []string{v, c.constInt64s("starts", []int{1}, []int64{-1}), c.constInt64s("ends", []int{1}, []int64{-1 << 63}),
		c.constInt64s("axes", []int{1}, []int64{int64(a)}), c.constInt64s("steps", []int{1}, []int64{-1})}, "")
}

// maskSteps splits the time-major input xt (steps, batch, features) into
// one (1, batch, features) value per step, and the mask (batch, steps)
// into one (1, batch, 1) per step.
func (c *converter) maskSteps(xt, mask string, steps int) (xs, ms []string) {
	ones := make([]int64, steps)
	for i := range ones {
		ones[i] = 1
	}
	split := c.constInt64s("split_steps", []int{steps}, ones)
	xs, ms = make([]string, steps), make([]string, steps)
	for i := range xs {
		xs[i], ms[i] = c.fresh(fmt.Sprintf("%s/x_%d", c.scope, i)), c.fresh(fmt.Sprintf("%s/mask_%d", c.scope, i))
	}
	c.opOuts("Split", []string{xt, split}, xs, attrInt("axis", 0))
	mt := c.op("Unsqueeze", []string{c.op("Transpose", []string{mask}, "", attrInts("perm", 1, 0)), c.constInt64s("axes", []int{1}, []int64{2})}, "")
	if steps == 1 {
		// Split of one output is fine, but the mask needs no split.
		ms[0] = mt
		return xs, ms
	}
	c.opOuts("Split", []string{mt, split}, ms, attrInt("axis", 0))
	return xs, ms
}

// maskedDirection unrolls one direction over the steps xs with the
// step masks ms (maskSteps): per step, in the order the layer reads them,
// a node of the layer's class over that one step starting from the
// states before it, then each state blended as gokeras' loop does,
// s + m*(new - s) (the first step's s is zero: m*new). The output is the
// state h; with zero_output_for_mask a masked step's output is zero. It
// returns the outputs in reading order, each (1, batch, units), when the
// layer returns sequences, and the last output.
func (c *converter) maskedDirection(xs, ms []string, feat int, d rnnDir) (outs []string, last string) {
	kind := rnnKinds[d.class]
	gu := kind.gates * d.units
	w := c.constFloats("W", []int{1, gu, feat}, d.w)
	r := c.constFloats("R", []int{1, gu, d.units}, d.r)
	b := c.constFloats("B", []int{1, 2 * gu}, d.b)
	nStates := 1
	if d.class == "LSTM" {
		nStates = 2
	}
	steps := len(xs)
	var states []string
	for k := range steps {
		t := k
		if d.backward {
			t = steps - 1 - k
		}
		ins := []string{xs[t], w, r, b}
		if states != nil {
			ins = append(append(ins, ""), states...) // no sequence_lens; initial_h (, initial_c)
		}
		next := make([]string, nStates)
		for i := range next {
			next[i] = c.fresh(fmt.Sprintf("%s/%s_%d", c.scope, []string{"Y_h", "Y_c"}[i], k))
		}
		c.opOuts(kind.op, ins, append([]string{""}, next...), rnnAttrs(d, "forward", d.acts)...)
		m := ms[t]
		for i := range next {
			if states == nil {
				next[i] = c.op("Mul", []string{m, next[i]}, "")
			} else {
				next[i] = c.op("Add", []string{states[i], c.op("Mul", []string{m, c.op("Sub", []string{next[i], states[i]}, "")}, "")}, "")
			}
		}
		states = next
		if d.seq {
			o := states[0]
			if d.zeroOut {
				o = c.op("Mul", []string{o, m}, "")
			}
			outs = append(outs, o)
		}
	}
	last = states[0]
	if !d.seq && d.zeroOut {
		t := steps - 1
		if d.backward {
			t = 0
		}
		last = c.op("Mul", []string{last, ms[t]}, "")
	}
	return outs, last
}

// maskedOutput is a masked direction's output in Keras' layout: the
// steps' outputs (1, batch, units) concatenated in the given order and
// made batch-major (batch, steps, units), or the last output squeezed
// to (batch, units).
func (c *converter) maskedOutput(outs []string, last string, seq, reverse bool) string {
	if !seq {
		return c.op("Squeeze", []string{last, c.constInt64s("axes", []int{1}, []int64{0})}, "")
	}
	if reverse {
		outs = slices.Clone(outs)
		slices.Reverse(outs)
	}
	y := outs[0]
	if len(outs) > 1 {
		y = c.op("Concat", outs, "", attrInt("axis", 0))
	}
	return c.op("Transpose", []string{y}, "", attrInts("perm", 1, 0, 2))
}

// convertRecurrent: one node of direction "forward" or (go_backwards)
// "reverse"; Y (steps, 1, batch, units) back to (batch, steps, units), or
// Y_h (1, batch, units) to (batch, units).
func convertRecurrent(c *converter, k *call) (*val, error) {
	xt, feat, err := c.sequenceInput(k)
	if err != nil {
		return nil, err
	}
	d, err := readRNN(k.layer, feat)
	if err != nil {
		return nil, err
	}
	if x := k.in[0]; x.mask != "" {
		xs, ms := c.maskSteps(xt, x.mask, x.shape[1])
		outs, last := c.maskedDirection(xs, ms, feat, d)
		res := c.finish(c.maskedOutput(outs, last, d.seq, false), false, k)
		if d.seq {
			res.mask = x.mask // the output carries the input's mask, as gokeras' layer sets it
		}
		return res, nil
	}
	direction := "forward"
	if d.backward {
		direction = "reverse"
	}
	y := c.rnnNode(xt, feat, []rnnDir{d}, direction)
	if !d.seq {
		return c.finish(c.op("Squeeze", []string{y, c.constInt64s("axes", []int{1}, []int64{0})}, ""), false, k), nil
	}
	y = c.op("Squeeze", []string{y, c.constInt64s("axes", []int{1}, []int64{1})}, "")
	if d.backward {
		y = c.reverseTime(y, 0)
	}
	return c.finish(c.op("Transpose", []string{y}, "", attrInts("perm", 1, 0, 2)), false, k), nil
}

// convertBidirectional: one node of direction "bidirectional" when the
// forward layer reads forward and the backward one backward, both of one
// class, units and return_sequences (Keras' default backward layer);
// otherwise a node per direction. The outputs are merged as merge_mode
// says: concat puts the forward units first.
func convertBidirectional(c *converter, k *call) (*val, error) {
	bl, ok := k.layer.(*layers.Bidirectional)
	if !ok {
		return nil, unsupported("a Bidirectional layer of type %T", k.layer)
	}
	mode, err := cfgString(k.cfg, "merge_mode", "concat")
	if err != nil {
		return nil, err
	}
	switch mode {
	case "concat", "sum", "mul", "ave":
	default:
		return nil, unsupported("merge_mode %q", mode)
	}
	if bl.Forward == nil || bl.Backward == nil {
		return nil, fmt.Errorf("has no forward or backward layer")
	}
	xt, feat, err := c.sequenceInput(k)
	if err != nil {
		return nil, err
	}
	f, err := readRNN(bl.Forward, feat)
	if err != nil {
		return nil, fmt.Errorf("forward layer %q: %w", bl.Forward.Name(), err)
	}
	b, err := readRNN(bl.Backward, feat)
	if err != nil {
		return nil, fmt.Errorf("backward layer %q: %w", bl.Backward.Name(), err)
	}
	if f.seq != b.seq {
		return nil, fmt.Errorf("the forward layer's return_sequences is %v, the backward one's %v", f.seq, b.seq)
	}
	// The two directions, (batch, [steps,] units) each, time-ordered.
	var yf, yb string
	x := k.in[0]
	if x.mask != "" {
		// Each direction unrolled (maskedDirection); Bidirectional
		// reverses the backward layer's outputs, whichever way it reads.
		xs, ms := c.maskSteps(xt, x.mask, x.shape[1])
		fo, fl := c.maskedDirection(xs, ms, feat, f)
		bo, bl := c.maskedDirection(xs, ms, feat, b)
		yf, yb = c.maskedOutput(fo, fl, f.seq, false), c.maskedOutput(bo, bl, b.seq, true)
	} else if !f.backward && b.backward && f.class == b.class && f.units == b.units && f.resetAfter == b.resetAfter {
		y := c.rnnNode(xt, feat, []rnnDir{f, b}, "bidirectional")
		split := c.constInt64s("split", []int{2}, []int64{1, 1})
		if f.seq { // (steps, 2, batch, units)
			yf, yb = c.fresh(c.scope+"/forward"), c.fresh(c.scope+"/backward")
			c.opOuts("Split", []string{y, split}, []string{yf, yb}, attrInt("axis", 1))
			sq := c.constInt64s("axes", []int{1}, []int64{1})
			yf = c.op("Transpose", []string{c.op("Squeeze", []string{yf, sq}, "")}, "", attrInts("perm", 1, 0, 2))
			yb = c.op("Transpose", []string{c.op("Squeeze", []string{yb, sq}, "")}, "", attrInts("perm", 1, 0, 2))
		} else { // (2, batch, units)
			yf, yb = c.fresh(c.scope+"/forward"), c.fresh(c.scope+"/backward")
			c.opOuts("Split", []string{y, split}, []string{yf, yb}, attrInt("axis", 0))
			sq := c.constInt64s("axes", []int{1}, []int64{0})
			yf = c.op("Squeeze", []string{yf, sq}, "")
			yb = c.op("Squeeze", []string{yb, sq}, "")
		}
	} else {
		one := func(d rnnDir) string {
			direction := "forward"
			if d.backward {
				direction = "reverse"
			}
			y := c.rnnNode(xt, feat, []rnnDir{d}, direction)
			if !d.seq {
				return c.op("Squeeze", []string{y, c.constInt64s("axes", []int{1}, []int64{0})}, "")
			}
			// Reverse's Y is already in time order, as Bidirectional puts it.
			return c.op("Transpose", []string{c.op("Squeeze", []string{y, c.constInt64s("axes", []int{1}, []int64{1})}, "")}, "", attrInts("perm", 1, 0, 2))
		}
		yf, yb = one(f), one(b)
		if f.seq && f.backward {
			// A forward layer that reads backward returns its outputs in
			// the order it read them: reversed.
			yf = c.reverseTime(yf, 1)
		}
		if b.seq && !b.backward {
			// A backward layer that reads forward: Bidirectional reverses its outputs.
			yb = c.reverseTime(yb, 1)
		}
	}
	var y string
	switch mode {
	case "concat":
		y = c.op("Concat", []string{yf, yb}, "", attrInt("axis", -1))
	case "sum":
		y = c.op("Add", []string{yf, yb}, "")
	case "mul":
		y = c.op("Mul", []string{yf, yb}, "")
	case "ave":
		y = c.op("Mul", []string{c.op("Add", []string{yf, yb}, ""), c.scalar("half", 0.5)}, "")
	}
	res := c.finish(y, false, k)
	if f.seq {
		res.mask = x.mask
	}
	return res, nil
}
