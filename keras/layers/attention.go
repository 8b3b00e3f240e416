package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Attention is keras.layers.Attention, Luong-style dot-product attention
// of a query (batch, Tq, dim) over a value (batch, Tv, dim) and a key
// (batch, Tv, dim), the value unless given: scores q·kᵀ (times a learned
// scalar scale with use_scale), or with score_mode "concat"
// w·sum(tanh(q + k)) over dim, softmax over Tv, then the weighted sum of
// the values, (batch, Tq, dim). In Python and in Go:
//
//	y = keras.layers.Attention()([query, value])
//
//	y := layers.Apply(layers.NewAttention(), query, value)
//
// The Keras mask of the value ([Mask]) drops its masked steps (their
// scores lowered by 1e9, as Keras); the query's mask zeroes the output at
// its masked steps and travels with the output. [Attention.Attend] takes
// use_causal_mask and returns the attention scores too.
type Attention struct {
	Base
	seedGen
	dropout   float64
	useScale  bool
	scoreMode string
	additive  bool

	// UseCausalMask makes calls through Call apply the causal mask
	// (use_causal_mask=True).
	UseCausalMask bool

	// Scale is use_scale's learned scale: a scalar for Attention, a
	// vector of dim values for AdditiveAttention; nil without use_scale.
	Scale *ops.Variable
	// ConcatScoreWeight is the scalar weight of score_mode "concat".
	ConcatScoreWeight *ops.Variable
}

// NewAttention makes an Attention layer. Options: WithUseScale (default
// false), WithScoreMode ("dot" or "concat"), WithAttentionDropout,
// WithSeed, WithName.
func NewAttention(opts ...Option) *Attention {
	l := &Attention{}
	l.init("Attention", []string{"use_scale", "score_mode", "dropout", "seed"}, opts)
	l.setup(l.cfg.attn.scoreMode)
	return l
}

func (l *Attention) setup(mode string) {
	l.initSeed(&l.Base)
	a := l.cfg.attn
	l.dropout, l.useScale, l.scoreMode = a.dropout, a.useScale, mode
	if l.dropout == 0 {
		l.dropout = l.cfg.rnn.dropout // WithInputDropout sets the same key
	}
	if l.scoreMode == "" {
		l.scoreMode = "dot"
	}
	if l.err != nil {
		return
	}
	switch {
	case l.scoreMode != "dot" && l.scoreMode != "concat":
		l.err = fmt.Errorf("layers: %s %q: score_mode must be \"dot\" or \"concat\", got %q", l.class, l.name, l.scoreMode)
	case l.dropout < 0 || l.dropout >= 1:
		l.err = fmt.Errorf("layers: %s %q: dropout must be in [0, 1), got %v", l.class, l.name, l.dropout)
	}
}

func (l *Attention) where() string { return fmt.Sprintf("layer %q (%s)", l.name, l.class) }

// Build implements Layer: shapes [query, value] or [query, value, key].
func (l *Attention) Build(in []ops.Shape) error {
	if len(in) < 2 || len(in) > 3 {
		return fmt.Errorf("needs [query, value] or [query, value, key], got %d shapes", len(in))
	}
	dim := in[0][len(in[0])-1]
	if len(in[0]) < 2 || dim <= 0 {
		return fmt.Errorf("needs a query of rank >= 2 with a known last dimension, got %v", in[0])
	}
	switch {
	case l.additive && l.useScale:
		l.Scale = l.AddWeight("scale", ops.Shape{dim}, GlorotUniform(), true, nil)
	case l.useScale:
		l.Scale = l.AddWeight("scale", ops.Shape{}, Ones(), true, nil)
	}
	if !l.additive && l.scoreMode == "concat" {
		l.ConcatScoreWeight = l.AddWeight("concat_score_weight", ops.Shape{}, Ones(), true, nil)
	}
	l.built = true
	return nil
}

// Call implements Layer: inputs [query, value] or [query, value, key].
func (l *Attention) Call(in []ops.Tensor, training bool) ops.Tensor {
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

// scalarTimes multiplies x by the scalar variable v.
func scalarTimes(v *ops.Variable, x ops.Tensor) ops.Tensor {
	return ops.Mul(ops.BroadcastTo(ops.Reshape(x.Trace().Read(v), ops.Shape{1}), x.Shape()), x)
}

// Attend is Keras' call with every argument (AttentionMask is not one of
// Attention's): it returns the output (batch, Tq, dim of the value) and
// the attention scores after masking and softmax (batch, Tq, Tv).
func (l *Attention) Attend(query, value ops.Tensor, a AttentionArgs) (output, scores ops.Tensor) {
	key := a.Key
	if key.IsNone() {
		key = value
	}
	if !a.AttentionMask.IsNone() {
		panic(&ops.Error{Op: l.where(), Msg: "takes no attention mask (mask the value instead)"})
	}
	qs, vs, ks := query.Shape(), value.Shape(), key.Shape()
	r := len(qs)
	if r < 3 || len(vs) != r || len(ks) != r || !qs[:r-2].Equal(vs[:r-2]) || !ks[:r-1].Equal(vs[:r-1]) || qs[r-1] != ks[r-1] {
		panic(&ops.Error{Op: l.where(), Msg: fmt.Sprintf("query %v, value %v and key %v must be (batch, Tq, dim), (batch, Tv, dim_v), (batch, Tv, dim)", qs, vs, ks)})
	}
	tq, tv, dim := qs[r-2], ks[r-2], qs[r-1]
	var s ops.Tensor
	if l.scoreMode == "dot" && !l.additive {
		s = ops.BatchMatMul(query, key, false, true)
		if l.Scale != nil {
			s = scalarTimes(l.Scale, s)
		}
	} else {
		// (..., Tq, 1, dim) + (..., 1, Tv, dim)
		lead := qs[:r-2].Clone()
		full := append(lead.Clone(), tq, tv, dim)
		qe := ops.BroadcastTo(ops.Reshape(query, append(lead.Clone(), tq, 1, dim)), full)
		ke := ops.BroadcastTo(ops.Reshape(key, append(lead.Clone(), 1, tv, dim)), full)
		sum := ops.Add(qe, ke)
		switch {
		case l.additive && l.Scale != nil:
			t := ops.Tanh(sum)
			sc := ops.BroadcastTo(ops.Reshape(query.Trace().Read(l.Scale), ops.Shape{dim}), full)
			s = ops.Sum(ops.Mul(sc, t), false, -1)
		case l.additive:
			s = ops.Sum(ops.Tanh(sum), false, -1)
		default:
			if l.Scale != nil {
				sum = scalarTimes(l.Scale, sum)
			}
			s = scalarTimes(l.ConcatScoreWeight, ops.Sum(ops.Tanh(sum), false, -1))
		}
	}
	// The scores mask: the value's mask over Tv and the causal mask.
	sshape := s.Shape()
	var m ops.Tensor
	if vm := Mask(value); !vm.IsNone() {
		m = ops.BroadcastTo(ops.Reshape(vm, append(vm.Shape().Clone()[:1], 1, tv)), sshape)
	}
	if a.UseCausalMask {
		c := newConstValues("causal mask", tq, tv)
		for i := 0; i < tq; i++ {
			for j := 0; j <= i && j < tv; j++ {
				c[i*tv+j] = 1
			}
		}
		cm := ops.BroadcastTo(query.Trace().Constant(ops.Shape{1, tq, tv}, c), sshape)
		if m.IsNone() {
			m = cm
		} else {
			m = ops.Mul(m, cm)
		}
	}
	if !m.IsNone() {
		s = ops.Sub(s, ops.Scale(ops.OneMinus(m), 1e9))
	}
	scores = ops.Softmax(s)
	p := scores
	if a.Training && l.dropout > 0 {
		p = ops.SeededDropout(p, float32(l.dropout), l.generator(l.name))
	}
	output = ops.BatchMatMul(p, value, false, false)
	if qm := Mask(query); !qm.IsNone() {
		os := output.Shape()
		output = ops.Mul(output, ops.BroadcastTo(ops.Reshape(qm, ops.Shape{os[0], tq, 1}), os))
		SetMask(output, qm)
	}
	return output, scores
}

// GetConfig implements Layer.
func (l *Attention) GetConfig() map[string]any {
	m := l.baseConfig()
	m["use_scale"] = l.useScale
	if !l.additive {
		m["score_mode"] = l.scoreMode
	}
	m["dropout"] = l.dropout
	m["seed"] = nil
	if l.cfg.hasSeed {
		m["seed"] = l.cfg.seed
	}
	return m
}
