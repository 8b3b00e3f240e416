package main

import (
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// composite is what a Go layer made of Keras layers needs beyond
// layers.Base, as a Python layer gets it from attribute tracking: the
// weights and the dropout seed generators of its parts, in order.
type composite struct {
	layers.Base
	parts []layers.Layer
}

func (c *composite) Weights() []*ops.Variable {
	return append(c.TrainableWeights(), c.NonTrainableWeights()...)
}

func (c *composite) TrainableWeights() []*ops.Variable {
	var out []*ops.Variable
	for _, p := range c.parts {
		out = append(out, p.TrainableWeights()...)
	}
	return out
}

func (c *composite) NonTrainableWeights() []*ops.Variable {
	var out []*ops.Variable
	for _, p := range c.parts {
		out = append(out, p.NonTrainableWeights()...)
	}
	return out
}

func (c *composite) SetTrainable(t bool) {
	c.Base.SetTrainable(t)
	for _, p := range c.parts {
		p.SetTrainable(t)
	}
}

func (c *composite) SeedGenerators() []*ops.SeedGenerator {
	var out []*ops.SeedGenerator
	for _, p := range c.parts {
		out = append(out, layers.SeedGenerators(p)...)
	}
	return out
}

// build builds part l for inputs of the given shapes (batch -1).
func build(l layers.Layer, shapes ...ops.Shape) error {
	_, err := layers.OutputShape(l, shapes)
	return err
}

// TokenAndPositionEmbedding is the tutorial's layer: the sum of a token
// embedding and a position embedding.
//
//	class TokenAndPositionEmbedding(layers.Layer):
//	    def __init__(self, maxlen, vocab_size, embed_dim):
//	        super().__init__()
//	        self.token_emb = layers.Embedding(input_dim=vocab_size, output_dim=embed_dim)
//	        self.pos_emb = layers.Embedding(input_dim=maxlen, output_dim=embed_dim)
type TokenAndPositionEmbedding struct {
	composite
	tokenEmb, posEmb *layers.Embedding
}

// NewTokenAndPositionEmbedding makes the layer for sequences of maxLen
// ids below vocab, embedded in embedDim values.
func NewTokenAndPositionEmbedding(maxLen, vocab, embedDim int) *TokenAndPositionEmbedding {
	l := &TokenAndPositionEmbedding{
		tokenEmb: layers.NewEmbedding(vocab, embedDim),
		posEmb:   layers.NewEmbedding(maxLen, embedDim),
	}
	l.Base = layers.NewBase("TokenAndPositionEmbedding")
	l.parts = []layers.Layer{l.tokenEmb, l.posEmb}
	return l
}

// Build builds both embeddings.
func (l *TokenAndPositionEmbedding) Build(in []ops.Shape) error {
	if err := build(l.tokenEmb, in[0]); err != nil {
		return err
	}
	return build(l.posEmb, ops.Shape{-1})
}

// Call is
//
//	def call(self, x):
//	    maxlen = ops.shape(x)[-1]
//	    positions = ops.arange(start=0, stop=maxlen, step=1)
//	    positions = self.pos_emb(positions)
//	    x = self.token_emb(x)
//	    return x + positions
func (l *TokenAndPositionEmbedding) Call(in []ops.Tensor, training bool) ops.Tensor {
	x := in[0]
	s := x.Shape()
	maxLen := s[len(s)-1]
	ids := make([]float32, maxLen)
	for i := range ids {
		ids[i] = float32(i)
	}
	positions := l.posEmb.Call([]ops.Tensor{x.Trace().Constant(ops.Shape{maxLen}, ids)}, training)
	e := l.tokenEmb.Call([]ops.Tensor{x}, training)
	return ops.Add(e, ops.BroadcastTo(positions, e.Shape()))
}

// TransformerBlock is the tutorial's layer: multi-head self-attention and
// a feed-forward network, each with dropout, a residual connection and
// layer normalization.
//
//	class TransformerBlock(layers.Layer):
//	    def __init__(self, embed_dim, num_heads, ff_dim, rate=0.1):
//	        super().__init__()
//	        self.att = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
//	        self.ffn = keras.Sequential([layers.Dense(ff_dim, activation="relu"), layers.Dense(embed_dim)])
//	        self.layernorm1 = layers.LayerNormalization(epsilon=1e-6)
//	        self.layernorm2 = layers.LayerNormalization(epsilon=1e-6)
//	        self.dropout1 = layers.Dropout(rate)
//	        self.dropout2 = layers.Dropout(rate)
type TransformerBlock struct {
	composite
	att                    *layers.MultiHeadAttention
	ffn1, ffn2             *layers.Dense
	layernorm1, layernorm2 *layers.LayerNormalization
	dropout1, dropout2     *layers.Dropout
	ffDim                  int
}

// NewTransformerBlock makes the block for embedDim features.
func NewTransformerBlock(embedDim, numHeads, ffDim int, rate float64) *TransformerBlock {
	l := &TransformerBlock{
		att:        layers.NewMultiHeadAttention(numHeads, embedDim),
		ffn1:       layers.NewDense(ffDim, layers.WithActivation("relu")),
		ffn2:       layers.NewDense(embedDim),
		layernorm1: layers.NewLayerNormalization(layers.WithEpsilon(1e-6)),
		layernorm2: layers.NewLayerNormalization(layers.WithEpsilon(1e-6)),
		dropout1:   layers.NewDropout(rate),
		dropout2:   layers.NewDropout(rate),
		ffDim:      ffDim,
	}
	l.Base = layers.NewBase("TransformerBlock")
	l.parts = []layers.Layer{l.att, l.ffn1, l.ffn2, l.layernorm1, l.layernorm2, l.dropout1, l.dropout2}
	return l
}

// Build builds the parts for inputs (batch, steps, embed_dim).
func (l *TransformerBlock) Build(in []ops.Shape) error {
	s := in[0]
	hidden := append(s[:len(s)-1].Clone(), l.ffDim)
	for _, b := range []struct {
		l  layers.Layer
		in []ops.Shape
	}{
		{l.att, []ops.Shape{s, s}}, {l.dropout1, []ops.Shape{s}}, {l.layernorm1, []ops.Shape{s}},
		{l.ffn1, []ops.Shape{s}}, {l.ffn2, []ops.Shape{hidden}}, {l.dropout2, []ops.Shape{s}}, {l.layernorm2, []ops.Shape{s}},
	} {
		if err := build(b.l, b.in...); err != nil {
			return err
		}
	}
	return nil
}

// Call is
//
//	def call(self, inputs):
//	    attn_output = self.att(inputs, inputs)
//	    attn_output = self.dropout1(attn_output)
//	    out1 = self.layernorm1(inputs + attn_output)
//	    ffn_output = self.ffn(out1)
//	    ffn_output = self.dropout2(ffn_output)
//	    return self.layernorm2(out1 + ffn_output)
func (l *TransformerBlock) Call(in []ops.Tensor, training bool) ops.Tensor {
	one := func(x ops.Tensor) []ops.Tensor { return []ops.Tensor{x} }
	inputs := in[0]
	attn := l.att.Call([]ops.Tensor{inputs, inputs}, training)
	attn = l.dropout1.Call(one(attn), training)
	out1 := l.layernorm1.Call(one(ops.Add(inputs, attn)), training)
	ffn := l.ffn2.Call(one(l.ffn1.Call(one(out1), training)), training)
	ffn = l.dropout2.Call(one(ffn), training)
	return l.layernorm2.Call(one(ops.Add(out1, ffn)), training)
}
