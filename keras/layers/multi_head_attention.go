package layers

import (
	"fmt"
	"math"
	"slices"

	"github.com/gokeras/gokeras/ops"
)

// MultiHeadAttention is keras.layers.MultiHeadAttention, the attention of
// "Attention Is All You Need": query, key and value are projected into
// num_heads heads (einsum-dense projections with kernels of shape
// (d_model, num_heads, key_dim) and biases (num_heads, key_dim); the value
// projection has value_dim), each head computes
// softmax(q·kᵀ/sqrt(key_dim)) over the attention axes (masked positions
// excluded), weights the values by it, and the heads are projected back by
// the output kernel (num_heads, value_dim, d_model) and bias (d_model,), or
// output_shape. In Python and in Go:
//
//	mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=16)
//	y = mha(x, x)
//
//	mha := layers.NewMultiHeadAttention(2, 16)
//	y := layers.Apply(mha, x, x)
//
// Inputs of Call (and Apply) are [query, value] or [query, value, key].
// The Keras masks of query, value and key ([Mask]) mask the attention as
// in Keras; the output carries the query's mask. [MultiHeadAttention.Attend]
// takes Keras' other call arguments (attention_mask, use_causal_mask) and
// returns the attention scores too (return_attention_scores); calls through
// Call use the UseCausalMask field.
//
// A query row whose every key is masked gets zero attention weights, as
// Keras' masked softmax computes them (Keras' fused dot-product path, taken
// without dropout and without return_attention_scores, averages the values
// there instead).
type MultiHeadAttention struct {
	Base
	seedGen
	numHeads, keyDim, valueDim int
	dropout                    float64
	outputShape, axes          []int

	// UseCausalMask makes calls through Call apply Keras' causal mask
	// (use_causal_mask=True), for functional models.
	UseCausalMask bool

	QueryKernel, QueryBias   *ops.Variable
	KeyKernel, KeyBias       *ops.Variable
	ValueKernel, ValueBias   *ops.Variable
	OutputKernel, OutputBias *ops.Variable

	rank     int   // input rank the layer was built for
	attnAxes []int // normalised attention axes of the projected tensors
}

// NewMultiHeadAttention makes a MultiHeadAttention layer of numHeads heads
// of keyDim values for the query and the key. Options: WithValueDim,
// WithAttentionDropout, WithUseBias, WithOutputShape, WithAttentionAxes,
// WithKernelInitializer, WithBiasInitializer, WithKernelRegularizer,
// WithBiasRegularizer, WithSeed, WithName.
func NewMultiHeadAttention(numHeads, keyDim int, opts ...Option) *MultiHeadAttention {
	l := &MultiHeadAttention{numHeads: numHeads, keyDim: keyDim}
	l.init("MultiHeadAttention", []string{"value_dim", "dropout", "use_bias", "output_shape", "attention_axes",
		"kernel_initializer", "bias_initializer", "kernel_regularizer", "bias_regularizer", "seed"}, opts)
	l.initSeed(&l.Base)
	a := l.cfg.attn
	l.valueDim, l.dropout = a.valueDim, a.dropout
	if l.dropout == 0 {
		l.dropout = l.cfg.rnn.dropout // WithInputDropout sets the same key
	}
	if l.valueDim == 0 {
		l.valueDim = keyDim
	}
	l.outputShape, l.axes = a.outputShape, a.axes
	fail := func(format string, args ...any) {
		if l.err == nil {
			l.err = fmt.Errorf("layers: MultiHeadAttention %q: %s", l.name, fmt.Sprintf(format, args...))
		}
	}
	switch {
	case numHeads <= 0:
		fail("num_heads must be positive, got %d", numHeads)
	case keyDim <= 0:
		fail("key_dim must be positive, got %d", keyDim)
	case l.valueDim <= 0:
		fail("value_dim must be positive, got %d", a.valueDim)
	case l.dropout < 0 || l.dropout >= 1:
		fail("dropout must be in [0, 1), got %v", l.dropout)
	case l.cfg.set["attention_axes"] && len(l.axes) == 0:
		fail("attention_axes is empty")
	}
	for _, d := range l.outputShape {
		if d <= 0 {
			fail("output_shape %v must be positive", l.outputShape)
		}
	}
	return l
}

// NumHeads returns num_heads.
func (l *MultiHeadAttention) NumHeads() int { return l.numHeads }

// KeyDim returns key_dim.
func (l *MultiHeadAttention) KeyDim() int { return l.keyDim }

// ValueDim returns value_dim.
func (l *MultiHeadAttention) ValueDim() int { return l.valueDim }

// Build implements Layer: inputs are the query, the value and optionally
// the key shape, of equal rank >= 3.
func (l *MultiHeadAttention) Build(in []ops.Shape) error {
	if len(in) < 2 || len(in) > 3 {
		return fmt.Errorf("needs the query and value shapes (and optionally the key's), got %d shapes", len(in))
	}
	q, v := in[0], in[1]
	k := v
	if len(in) == 3 {
		k = in[2]
	}
	r := len(q)
	if r < 3 || len(v) != r || len(k) != r {
		return fmt.Errorf("query %v, value %v and key %v must have the same rank >= 3", q, v, k)
	}
	if !slices.Equal(v[1:r-1], k[1:r-1]) {
		return fmt.Errorf("value %v and key %v differ in a dimension other than the last", v, k)
	}
	for _, s := range []ops.Shape{q, v, k} {
		if s[r-1] <= 0 {
			return fmt.Errorf("the last dimension of %v must be known", s)
		}
	}
	// The projected tensors have rank r+1: (batch, ..., heads, dim).
	pr := r + 1
	if l.axes == nil {
		l.attnAxes = nil
		for a := 1; a < pr-2; a++ {
			l.attnAxes = append(l.attnAxes, a)
		}
	} else {
		l.attnAxes = nil
		for _, a := range l.axes {
			if a < 0 {
				a += pr - 1
			}
			if a < 1 || a >= pr-2 || slices.Contains(l.attnAxes, a) {
				return fmt.Errorf("attention_axes %v do not name distinct axes between the batch and the features of %v", l.axes, q)
			}
			l.attnAxes = append(l.attnAxes, a)
		}
	}
	l.rank = r
	ki, bi := l.cfg.kernelInit, l.cfg.biasInit
	if ki == nil {
		ki = GlorotUniform()
	}
	if bi == nil {
		bi = Zeros()
	}
	h, kd, vd := l.numHeads, l.keyDim, l.valueDim
	proj := func(name string, dIn, dim int) (*ops.Variable, *ops.Variable) {
		kv := l.AddWeight(name+"/kernel", ops.Shape{dIn, h, dim}, ki, true, l.cfg.kernelReg)
		var bv *ops.Variable
		if l.cfg.useBias {
			bv = l.AddWeight(name+"/bias", ops.Shape{h, dim}, bi, true, l.cfg.biasReg)
		}
		return kv, bv
	}
	l.QueryKernel, l.QueryBias = proj("query", q[r-1], kd)
	l.KeyKernel, l.KeyBias = proj("key", k[r-1], kd)
	l.ValueKernel, l.ValueBias = proj("value", v[r-1], vd)
	out := l.outputShape
	if len(out) == 0 {
		out = []int{q[r-1]}
	}
	l.OutputKernel = l.AddWeight("attention_output/kernel", append(ops.Shape{h, vd}, out...), ki, true, l.cfg.kernelReg)
	if l.cfg.useBias {
		l.OutputBias = l.AddWeight("attention_output/bias", ops.Shape(slices.Clone(out)), bi, true, l.cfg.biasReg)
	}
	l.built = true
	return nil
}

// Call implements Layer: inputs [query, value] or [query, value, key].
func (l *MultiHeadAttention) Call(in []ops.Tensor, training bool) ops.Tensor {
	if len(in) < 2 || len(in) > 3 {
		panic(&ops.Error{Op: l.where(), Msg: fmt.Sprintf("needs [query, value] or [query, value, key], got %d inputs", len(in))})
	}
	a := AttentionArgs{UseCausalMask: l.UseCausalMask, Training: training}
	if len(in) == 3 {
		a.Key = in[2]
	}
	y, _ := l.Attend(in[0], in[1], a)
	return y
}

func (l *MultiHeadAttention) where() string {
	return fmt.Sprintf("layer %q (MultiHeadAttention)", l.name)
}

// project is the einsum-dense projection of x (..., d) by a kernel of
// shape (d, units...) and a bias of shape (units...): (..., units...).
func project(x ops.Tensor, kernel, bias *ops.Variable, units ops.Shape) ops.Tensor {
	tr := x.Trace()
	s := x.Shape()
	d := s[len(s)-1]
	n := units.Size()
	y := ops.MatMul(ops.Reshape(x, ops.Shape{-1, d}), ops.Reshape(tr.Read(kernel), ops.Shape{d, n}), false, false)
	if bias != nil {
		y = ops.BiasAdd(y, ops.Reshape(tr.Read(bias), ops.Shape{n}))
	}
	return ops.Reshape(y, append(s[:len(s)-1].Clone(), units...))
}

// Attend is Keras' call with every argument: it returns the attention
// output, of the query's shape with the last axis replaced by the output
// shape, and the attention scores after masking and softmax (Keras'
// return_attention_scores), of shape (batch, heads, Tq, Tv) for rank-3
// inputs (in general the batch axes, the heads, the query's attention axes
// and the key's).
func (l *MultiHeadAttention) Attend(query, value ops.Tensor, a AttentionArgs) (output, scores ops.Tensor) {
	key := a.Key
	if key.IsNone() {
		key = value
	}
	if !l.built {
		panic(&ops.Error{Op: l.where(), Msg: "called before Build"})
	}
	qs, vs, ks := query.Shape(), value.Shape(), key.Shape()
	r := l.rank
	if len(qs) != r || len(vs) != r || len(ks) != r || qs[r-1] != l.QueryKernel.Shape()[0] ||
		vs[r-1] != l.ValueKernel.Shape()[0] || ks[r-1] != l.KeyKernel.Shape()[0] || !slices.Equal(vs[:r-1], ks[:r-1]) {
		panic(&ops.Error{Op: l.where(), Msg: fmt.Sprintf("query %v, value %v and key %v do not fit the layer built for query (..., %d), value (..., %d), key (..., %d) of rank %d",
			qs, vs, ks, l.QueryKernel.Shape()[0], l.ValueKernel.Shape()[0], l.KeyKernel.Shape()[0], r)})
	}
	tr := query.Trace()
	h := l.numHeads
	q := project(query, l.QueryKernel, l.QueryBias, ops.Shape{h, l.keyDim})
	k := project(key, l.KeyKernel, l.KeyBias, ops.Shape{h, l.keyDim})
	v := project(value, l.ValueKernel, l.ValueBias, ops.Shape{h, l.valueDim})

	// Batch axes (every projected axis but the attention axes and the
	// last, the heads included) first, then the attention axes, then the
	// head dimension: (batch, T, dim) after flattening each group.
	pr := r + 1
	var batchAxes []int
	for i := 0; i < pr-1; i++ {
		if !slices.Contains(l.attnAxes, i) {
			batchAxes = append(batchAxes, i)
		}
	}
	perm := append(append(slices.Clone(batchAxes), l.attnAxes...), pr-1)
	group := func(s ops.Shape, axes []int) (ops.Shape, int) {
		var g ops.Shape
		for _, ax := range axes {
			g = append(g, s[ax])
		}
		return g, g.Size()
	}
	qp, kp := q.Shape(), k.Shape()
	bShape, nb := group(qp, batchAxes)
	if kb, _ := group(kp, batchAxes); !kb.Equal(bShape) {
		panic(&ops.Error{Op: l.where(), Msg: fmt.Sprintf("query %v and key %v differ outside the attention axes %v", qs, ks, l.attnAxes)})
	}
	tShape, nt := group(qp, l.attnAxes)
	sShape, ns := group(kp, l.attnAxes)
	flat := func(x ops.Tensor, n int) ops.Tensor {
		s := x.Shape()
		return ops.Reshape(ops.Transpose(x, perm), ops.Shape{nb, n, s[len(s)-1]})
	}
	q3 := ops.Scale(flat(q, nt), float32(1/math.Sqrt(float64(l.keyDim))))
	logits := ops.BatchMatMul(q3, flat(k, ns), false, true) // (nb, nt, ns)
	scoreShape := append(append(bShape.Clone(), tShape...), sShape...)

	mask := l.attentionMask(query, value, key, a, scoreShape)
	var probs ops.Tensor
	if mask.IsNone() {
		probs = ops.Softmax(logits)
	} else {
		m := ops.Reshape(mask, ops.Shape{nb, nt, ns})
		probs = maskedSoftmax(logits, m)
	}
	scores = ops.Reshape(probs, scoreShape)
	if a.Training && l.dropout > 0 {
		probs = ops.SeededDropout(probs, float32(l.dropout), l.generator(l.name))
	}
	o := ops.BatchMatMul(probs, flat(v, ns), false, false) // (nb, nt, valueDim)
	o = ops.Reshape(o, append(append(bShape.Clone(), tShape...), l.valueDim))
	inv := make([]int, len(perm))
	for i, p := range perm {
		inv[p] = i
	}
	o = ops.Transpose(o, inv) // (batch, ..., heads, valueDim)
	out := l.outputShape
	if len(out) == 0 {
		out = []int{qs[r-1]}
	}
	// The output projection contracts the heads and their dimension.
	os := o.Shape()
	o = ops.Reshape(o, append(os[:len(os)-2].Clone(), h*l.valueDim))
	y := ops.MatMul(ops.Reshape(o, ops.Shape{-1, h * l.valueDim}), ops.Reshape(tr.Read(l.OutputKernel), ops.Shape{h * l.valueDim, ops.Shape(out).Size()}), false, false)
	if l.OutputBias != nil {
		y = ops.BiasAdd(y, ops.Reshape(tr.Read(l.OutputBias), ops.Shape{ops.Shape(out).Size()}))
	}
	y = ops.Reshape(y, append(qs[:r-1].Clone(), out...))
	if qm := Mask(query); !qm.IsNone() {
		SetMask(y, qm)
	}
	return y, scores
}

// attentionMask combines the Keras masks of the inputs, the causal mask
// and the attention mask into a 0/1 tensor of the scores' shape, or
// returns the none tensor when there is no mask.
func (l *MultiHeadAttention) attentionMask(query, value, key ops.Tensor, a AttentionArgs, scoreShape ops.Shape) ops.Tensor {
	tr := query.Trace()
	qs, vs := query.Shape(), value.Shape()
	var m ops.Tensor
	and := func(x ops.Tensor) {
		if m.IsNone() {
			m = x
			return
		}
		s, ok := ops.BroadcastShape(m.Shape(), x.Shape())
		if !ok {
			panic(&ops.Error{Op: l.where(), Msg: fmt.Sprintf("masks of shapes %v and %v do not broadcast", m.Shape(), x.Shape())})
		}
		m = ops.Mul(ops.BroadcastTo(m, s), ops.BroadcastTo(x, s))
	}
	expand := func(x ops.Tensor, at int) ops.Tensor {
		s := x.Shape().Clone()
		return ops.Reshape(x, slices.Insert(s, at, 1))
	}
	if qm := Mask(query); !qm.IsNone() {
		and(expand(qm, 2)) // (B, T, 1)
	}
	if vm := Mask(value); !vm.IsNone() {
		and(expand(vm, 1)) // (B, 1, S)
	}
	if !a.Key.IsNone() && a.Key != value {
		if km := Mask(key); !km.IsNone() {
			and(expand(km, 1))
		}
	}
	if a.UseCausalMask {
		t, s := qs[1], vs[1]
		c := newConstValues("causal mask", t, s)
		for i := 0; i < t; i++ {
			for j := 0; j <= i && j < s; j++ {
				c[i*s+j] = 1
			}
		}
		and(tr.Constant(ops.Shape{1, t, s}, c))
	}
	if !a.AttentionMask.IsNone() {
		and(a.AttentionMask)
	}
	if m.IsNone() {
		return m
	}
	// Keras inserts axes before the attention axes until the ranks agree.
	n := 2 * len(l.attnAxes)
	if m.Rank() > len(scoreShape) || m.Rank() < n {
		panic(&ops.Error{Op: l.where(), Msg: fmt.Sprintf("an attention mask of shape %v does not fit scores of shape %v", m.Shape(), scoreShape)})
	}
	for m.Rank() < len(scoreShape) {
		m = expand(m, m.Rank()-n)
	}
	if b, ok := ops.BroadcastShape(m.Shape(), scoreShape); !ok || !b.Equal(scoreShape) {
		panic(&ops.Error{Op: l.where(), Msg: fmt.Sprintf("an attention mask of shape %v does not broadcast to scores of shape %v", m.Shape(), scoreShape)})
	}
	return ops.BroadcastTo(m, scoreShape)
}

// maskedSoftmax is Keras' Softmax layer with a mask (1 keep, 0 drop) of
// the logits' shape: logits where the mask is 1 and -1e9 elsewhere, the
// softmax over the last axis, then zero where the mask is 0.
func maskedSoftmax(logits, mask ops.Tensor) ops.Tensor {
	x := ops.Add(ops.Mul(logits, mask), ops.Scale(ops.OneMinus(mask), -1e9))
	return ops.Mul(ops.Softmax(x), mask)
}

// GetConfig implements Layer.
func (l *MultiHeadAttention) GetConfig() map[string]any {
	m := l.baseConfig()
	m["num_heads"] = l.numHeads
	m["key_dim"] = l.keyDim
	m["value_dim"] = l.valueDim
	m["dropout"] = l.dropout
	m["use_bias"] = l.cfg.useBias
	m["use_gate"] = false
	m["output_shape"] = nil
	if len(l.outputShape) > 0 {
		m["output_shape"] = intsAny(l.outputShape)
	}
	m["attention_axes"] = nil
	if l.axes != nil {
		m["attention_axes"] = intsAny(l.axes)
	}
	m["sliding_window"] = nil
	m["kernel_initializer"] = initName(l.cfg.kernelInit, "GlorotUniform")
	m["bias_initializer"] = initName(l.cfg.biasInit, "Zeros")
	m["kernel_regularizer"] = regConfig(l.cfg.kernelReg)
	m["bias_regularizer"] = regConfig(l.cfg.biasReg)
	m["activity_regularizer"] = nil
	m["kernel_constraint"] = nil
	m["bias_constraint"] = nil
	m["seed"] = nil
	if l.cfg.hasSeed {
		m["seed"] = l.cfg.seed
	}
	return m
}
