package layers

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/ops"
)

// GroupQueryAttention is keras.layers.GroupQueryAttention (its Python
// class is GroupedQueryAttention, the name its weights' paths and default
// layer names take), the grouped-query attention of Ainslie
// et al. 2023: the query is projected into num_query_heads heads, the key
// and the value into num_key_value_heads heads of head_dim values each,
// and each key/value head serves num_query_heads/num_key_value_heads
// consecutive query heads (Keras repeats the key and value heads; here
// the query heads of a group are stacked instead, which computes the same
// products without copying the keys). One key/value head is multi-query
// attention; as many as the query heads is multi-head attention. In
// Python and in Go:
//
//	gqa = keras.layers.GroupQueryAttention(head_dim=16, num_query_heads=8, num_key_value_heads=2)
//	y = gqa(x, x)
//
//	gqa := layers.NewGroupQueryAttention(16, 8, 2)
//	y := layers.Apply(gqa, x, x)
//
// Its weights are Keras': the query kernel (features, query heads,
// head_dim) and bias (query heads, head_dim), the key and value kernels
// (features, key/value heads, head_dim) and biases, with use_gate a gate
// kernel and bias like the query's, and the output kernel (query heads,
// head_dim, features of the query) and bias, so Keras' files load.
//
// Inputs are [query, value] or [query, value, key], each
// (batch, steps, features); the output has the query's shape. The Keras
// masks of the inputs ([Mask]), AttentionArgs' attention mask and causal
// mask, and sliding_window mask the attention as in Keras; the output
// carries the query's mask. A query row whose every key is masked attends
// to every key evenly in a call without dropout (Keras' fused
// dot-product path) and gets zero weights with dropout or from
// [GroupQueryAttention.Attend] (Keras' masked softmax).
type GroupQueryAttention struct {
	Base
	seedGen
	headDim, numQueryHeads, numKVHeads int
	dropout                            float64

	// UseCausalMask makes calls through Call apply Keras' causal mask
	// (use_causal_mask=True), for functional models.
	UseCausalMask bool

	QueryKernel, QueryBias   *ops.Variable
	KeyKernel, KeyBias       *ops.Variable
	ValueKernel, ValueBias   *ops.Variable
	GateKernel, GateBias     *ops.Variable // use_gate only
	OutputKernel, OutputBias *ops.Variable
}

// NewGroupQueryAttention makes a GroupQueryAttention layer of
// numQueryHeads query heads and numKVHeads key/value heads (which must
// divide numQueryHeads) of headDim values. Options: WithAttentionDropout,
// WithUseBias, WithUseGate, WithSlidingWindow, WithKernelInitializer,
// WithBiasInitializer, WithKernelRegularizer, WithBiasRegularizer,
// WithSeed, WithName.
func NewGroupQueryAttention(headDim, numQueryHeads, numKVHeads int, opts ...Option) *GroupQueryAttention {
	l := &GroupQueryAttention{headDim: headDim, numQueryHeads: numQueryHeads, numKVHeads: numKVHeads}
	if probe, _ := newConfig("GroupQueryAttention", nil, opts); !probe.set["name"] {
		// Keras names the layer after its Python class.
		opts = append([]Option{WithName(UniqueName("grouped_query_attention"))}, opts...)
	}
	l.init("GroupQueryAttention", []string{"dropout", "use_bias", "use_gate", "sliding_window", "kernel_initializer",
		"bias_initializer", "kernel_regularizer", "bias_regularizer", "seed"}, opts)
	l.initSeed(&l.Base)
	l.dropout = l.cfg.attn.dropout
	if l.dropout == 0 {
		l.dropout = l.cfg.rnn.dropout // WithInputDropout sets the same key
	}
	fail := func(format string, args ...any) {
		if l.err == nil {
			l.err = fmt.Errorf("layers: GroupQueryAttention %q: %s", l.name, fmt.Sprintf(format, args...))
		}
	}
	switch {
	case headDim <= 0:
		fail("head_dim must be positive, got %d", headDim)
	case numQueryHeads <= 0 || numKVHeads <= 0:
		fail("num_query_heads %d and num_key_value_heads %d must be positive", numQueryHeads, numKVHeads)
	case numQueryHeads%numKVHeads != 0:
		fail("num_query_heads %d must be divisible by num_key_value_heads %d", numQueryHeads, numKVHeads)
	case l.dropout < 0 || l.dropout >= 1:
		fail("dropout must be in [0, 1), got %v", l.dropout)
	case l.cfg.set["sliding_window"] && l.cfg.gqa.slidingWindow <= 0:
		fail("sliding_window must be a positive integer, got %d", l.cfg.gqa.slidingWindow)
	}
	return l
}

// HeadDim returns head_dim.
func (l *GroupQueryAttention) HeadDim() int { return l.headDim }

// NumQueryHeads returns num_query_heads.
func (l *GroupQueryAttention) NumQueryHeads() int { return l.numQueryHeads }

// NumKeyValueHeads returns num_key_value_heads.
func (l *GroupQueryAttention) NumKeyValueHeads() int { return l.numKVHeads }

func (l *GroupQueryAttention) where() string {
	return fmt.Sprintf("layer %q (GroupQueryAttention)", l.name)
}

// Build implements Layer: shapes [query, value] or [query, value, key],
// each (batch, steps, features), the query's and the value's features
// equal (Keras checks the same).
func (l *GroupQueryAttention) Build(in []ops.Shape) error {
	if len(in) < 2 || len(in) > 3 {
		return fmt.Errorf("needs the query and value shapes (and optionally the key's), got %d shapes", len(in))
	}
	q, v := in[0], in[1]
	k := v
	if len(in) == 3 {
		k = in[2]
	}
	if len(q) != 3 || len(v) != 3 || len(k) != 3 {
		return fmt.Errorf("query %v, value %v and key %v must be (batch, steps, features)", q, v, k)
	}
	if q[2] <= 0 || v[2] <= 0 || k[2] <= 0 {
		return fmt.Errorf("the features of query %v, value %v and key %v must be known", q, v, k)
	}
	if q[2] != v[2] {
		return fmt.Errorf("the last dimensions of query %v and value %v must be equal", q, v)
	}
	if v[1] != k[1] {
		return fmt.Errorf("value %v and key %v differ in their steps", v, k)
	}
	ki, bi := l.cfg.kernelInit, l.cfg.biasInit
	if ki == nil {
		ki = GlorotUniform()
	}
	if bi == nil {
		bi = Zeros()
	}
	proj := func(name string, dIn, heads int) (*ops.Variable, *ops.Variable) {
		kv := l.AddWeight(name+"/kernel", ops.Shape{dIn, heads, l.headDim}, ki, true, l.cfg.kernelReg)
		var bv *ops.Variable
		if l.cfg.useBias {
			bv = l.AddWeight(name+"/bias", ops.Shape{heads, l.headDim}, bi, true, l.cfg.biasReg)
		}
		return kv, bv
	}
	// Keras' order of the weights: query, key, gate, value, output.
	l.QueryKernel, l.QueryBias = proj("query", q[2], l.numQueryHeads)
	l.KeyKernel, l.KeyBias = proj("key", k[2], l.numKVHeads)
	if l.cfg.gqa.useGate {
		l.GateKernel, l.GateBias = proj("gate", q[2], l.numQueryHeads)
	}
	l.ValueKernel, l.ValueBias = proj("value", v[2], l.numKVHeads)
	l.OutputKernel = l.AddWeight("attention_output/kernel", ops.Shape{l.numQueryHeads, l.headDim, q[2]}, ki, true, l.cfg.kernelReg)
	if l.cfg.useBias {
		l.OutputBias = l.AddWeight("attention_output/bias", ops.Shape{q[2]}, bi, true, l.cfg.biasReg)
	}
	l.built = true
	return nil
}

// Call implements Layer: inputs [query, value] or [query, value, key].
func (l *GroupQueryAttention) Call(in []ops.Tensor, training bool) ops.Tensor {
	if len(in) < 2 || len(in) > 3 {
		panic(&ops.Error{Op: l.where(), Msg: fmt.Sprintf("needs [query, value] or [query, value, key], got %d inputs", len(in))})
	}
	a := AttentionArgs{UseCausalMask: l.UseCausalMask, Training: training}
	if len(in) == 3 {
		a.Key = in[2]
	}
	return l.AttendOutput(in[0], in[1], a)
}

// Attend is Keras' call with return_attention_scores=True: the output
// (batch, Tq, features of the query) and the attention scores after
// masking and softmax (batch, num_query_heads, Tq, Tv). Its attention
// mask is (batch, Tq, Tv), (Tq, Tv) or (batch, num_query_heads, Tq, Tv),
// any of them with axes of size 1 that broadcast.
func (l *GroupQueryAttention) Attend(query, value ops.Tensor, a AttentionArgs) (output, scores ops.Tensor) {
	return l.attend(query, value, a, true)
}

// AttendOutput is Keras' call without return_attention_scores, with the
// other arguments of [AttentionArgs]: the output of [Attend], but for a
// query row whose every key is masked, which attends to every key evenly
// when the layer has no dropout (Keras' fused dot-product path).
func (l *GroupQueryAttention) AttendOutput(query, value ops.Tensor, a AttentionArgs) ops.Tensor {
	y, _ := l.attend(query, value, a, false)
	return y
}

// attend computes the attention; withScores is Keras' path with explicit
// scores (return_attention_scores or dropout), whose fully masked rows are
// zero, else its fused dot-product path, whose fully masked rows are even.
func (l *GroupQueryAttention) attend(query, value ops.Tensor, a AttentionArgs, withScores bool) (output, scores ops.Tensor) {
	key := a.Key
	if key.IsNone() {
		key = value
	}
	if !l.built {
		panic(&ops.Error{Op: l.where(), Msg: "called before Build"})
	}
	qs, vs, ks := query.Shape(), value.Shape(), key.Shape()
	if len(qs) != 3 || len(vs) != 3 || len(ks) != 3 || qs[2] != l.QueryKernel.Shape()[0] || vs[2] != l.ValueKernel.Shape()[0] ||
		ks[2] != l.KeyKernel.Shape()[0] || vs[1] != ks[1] || qs[0] != vs[0] || vs[0] != ks[0] {
		panic(&ops.Error{Op: l.where(), Msg: fmt.Sprintf("query %v, value %v and key %v do not fit the layer built for query (batch, Tq, %d), value (batch, Tv, %d), key (batch, Tv, %d)",
			qs, vs, ks, l.QueryKernel.Shape()[0], l.ValueKernel.Shape()[0], l.KeyKernel.Shape()[0])})
	}
	tr := query.Trace()
	b, tq, tv := qs[0], qs[1], vs[1]
	u, g, h := l.numQueryHeads, l.numKVHeads, l.headDim
	r := u / g
	q := project(query, l.QueryKernel, l.QueryBias, ops.Shape{u, h}) // (b, tq, u, h)
	k := project(key, l.KeyKernel, l.KeyBias, ops.Shape{g, h})       // (b, tv, g, h)
	v := project(value, l.ValueKernel, l.ValueBias, ops.Shape{g, h}) // (b, tv, g, h)

	// Query head i reads key/value head i/r: the r query heads of a
	// group are stacked along the query steps, (b*g, r*tq, h).
	q3 := ops.Reshape(ops.Transpose(ops.Reshape(q, ops.Shape{b, tq, g, r, h}), []int{0, 2, 3, 1, 4}), ops.Shape{b * g, r * tq, h})
	q3 = ops.Scale(q3, float32(1/math.Sqrt(float64(h))))
	kv3 := func(x ops.Tensor) ops.Tensor {
		return ops.Reshape(ops.Transpose(x, []int{0, 2, 1, 3}), ops.Shape{b * g, tv, h})
	}
	logits := ops.BatchMatMul(q3, kv3(k), false, true) // (b*g, r*tq, tv)

	var probs ops.Tensor
	if mask := l.attentionMask(query, value, key, a); mask.IsNone() {
		probs = ops.Softmax(logits)
	} else {
		m := ops.Reshape(mask, ops.Shape{b * g, r * tq, tv})
		if withScores || l.dropout > 0 { // Keras fuses only without dropout
			probs = maskedSoftmax(logits, m)
		} else {
			probs = ops.Softmax(ops.Add(ops.Mul(logits, m), ops.Scale(ops.OneMinus(m), -1e9)))
		}
	}
	scores = ops.Reshape(probs, ops.Shape{b, u, tq, tv})
	if a.Training && l.dropout > 0 {
		probs = ops.SeededDropout(probs, float32(l.dropout), l.generator(l.name))
	}
	o := ops.BatchMatMul(probs, kv3(v), false, false) // (b*g, r*tq, h)
	o = ops.Reshape(ops.Transpose(ops.Reshape(o, ops.Shape{b, g, r, tq, h}), []int{0, 3, 1, 2, 4}), ops.Shape{b * tq, u * h})
	if l.GateKernel != nil {
		gate := ops.Sigmoid(project(query, l.GateKernel, l.GateBias, ops.Shape{u, h}))
		o = ops.Mul(o, ops.Reshape(gate, ops.Shape{b * tq, u * h}))
	}
	d := qs[2]
	y := ops.MatMul(o, ops.Reshape(tr.Read(l.OutputKernel), ops.Shape{u * h, d}), false, false)
	if l.OutputBias != nil {
		y = ops.BiasAdd(y, tr.Read(l.OutputBias))
	}
	y = ops.Reshape(y, ops.Shape{b, tq, d})
	if qm := Mask(query); !qm.IsNone() {
		SetMask(y, qm)
	}
	return y, scores
}

// attentionMask combines the Keras masks of the inputs, the causal mask,
// the sliding window and the attention mask into a 0/1 tensor of shape
// (batch, num_query_heads, Tq, Tv), or returns the none tensor when there
// is no mask.
func (l *GroupQueryAttention) attentionMask(query, value, key ops.Tensor, a AttentionArgs) ops.Tensor {
	tr := query.Trace()
	b, tq, tv := query.Shape()[0], query.Shape()[1], value.Shape()[1]
	full := ops.Shape{b, l.numQueryHeads, tq, tv}
	var m ops.Tensor
	and := func(x ops.Tensor, what string) {
		if x.Rank() > 4 || x.Rank() < 2 {
			panic(&ops.Error{Op: l.where(), Msg: fmt.Sprintf("%s of shape %v does not broadcast to scores of shape %v", what, x.Shape(), full)})
		}
		for x.Rank() < 4 { // Keras inserts the axes before (Tq, Tv)
			s := x.Shape().Clone()
			x = ops.Reshape(x, append(append(s[:len(s)-2:len(s)-2], 1), s[len(s)-2:]...))
		}
		if s, ok := ops.BroadcastShape(x.Shape(), full); !ok || !s.Equal(full) {
			panic(&ops.Error{Op: l.where(), Msg: fmt.Sprintf("%s of shape %v does not broadcast to scores of shape %v", what, x.Shape(), full)})
		}
		x = ops.BroadcastTo(x, full)
		if m.IsNone() {
			m = x
		} else {
			m = ops.Mul(m, x)
		}
	}
	stepMask := func(x ops.Tensor, what string, shape ops.Shape) {
		xm := Mask(x)
		if xm.IsNone() {
			return
		}
		if s := xm.Shape(); len(s) != 2 || s[0] != b {
			panic(&ops.Error{Op: l.where(), Msg: fmt.Sprintf("the %s mask of shape %v is not (batch %d, steps)", what, s, b)})
		}
		and(ops.Reshape(xm, shape), "the "+what+" mask")
	}
	stepMask(query, "query", ops.Shape{b, tq, 1})
	stepMask(value, "value", ops.Shape{b, 1, tv})
	if !a.Key.IsNone() && a.Key != value {
		stepMask(key, "key", ops.Shape{b, 1, tv})
	}
	band := func(what string, keep func(i, j int) bool) {
		c := newConstValues(what, tq, tv)
		for i := 0; i < tq; i++ {
			for j := 0; j < tv; j++ {
				if keep(i, j) {
					c[i*tv+j] = 1
				}
			}
		}
		and(tr.Constant(ops.Shape{tq, tv}, c), "the "+what)
	}
	if a.UseCausalMask {
		band("causal mask", func(i, j int) bool { return j <= i })
	}
	if w := l.cfg.gqa.slidingWindow; w > 0 {
		band("sliding window", func(i, j int) bool { return i-j < w && j-i < w })
	}
	if !a.AttentionMask.IsNone() {
		and(a.AttentionMask, "an attention mask")
	}
	return m
}

// GetConfig implements Layer.
func (l *GroupQueryAttention) GetConfig() map[string]any {
	m := l.baseConfig()
	m["head_dim"] = l.headDim
	m["num_query_heads"] = l.numQueryHeads
	m["num_key_value_heads"] = l.numKVHeads
	m["use_bias"] = l.cfg.useBias
	m["use_gate"] = l.cfg.gqa.useGate
	m["sliding_window"] = nil
	if l.cfg.gqa.slidingWindow > 0 {
		m["sliding_window"] = l.cfg.gqa.slidingWindow
	}
	m["dropout"] = l.dropout
	m["kernel_initializer"] = initName(l.cfg.kernelInit, "GlorotUniform")
	m["bias_initializer"] = initName(l.cfg.biasInit, "Zeros")
	m["kernel_regularizer"] = regConfig(l.cfg.kernelReg)
	m["bias_regularizer"] = regConfig(l.cfg.biasReg)
	if _, ok := m["activity_regularizer"]; !ok {
		m["activity_regularizer"] = nil
	}
	m["kernel_constraint"] = nil
	m["bias_constraint"] = nil
	m["seed"] = nil
	if l.cfg.hasSeed {
		m["seed"] = l.cfg.seed
	}
	return m
}
