package main

import (
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// TokenAndPositionEmbedding is the tutorial's layer: the sum of a token
// embedding and a position embedding.
//
//	class TokenAndPositionEmbedding(layers.Layer):
//	    def __init__(self, maxlen, vocab_size, embed_dim):
//	        super().__init__()
//	        self.token_emb = layers.Embedding(input_dim=vocab_size, output_dim=embed_dim)
//	        self.pos_emb = layers.Embedding(input_dim=maxlen, output_dim=embed_dim)
type TokenAndPositionEmbedding struct {
	layers.Base
	tokenEmb, posEmb *layers.Embedding // tracked, as Keras tracks attributes
}

// NewTokenAndPositionEmbedding makes the layer for sequences of maxLen
// ids below vocab, embedded in embedDim values.
func NewTokenAndPositionEmbedding(maxLen, vocab, embedDim int) *TokenAndPositionEmbedding {
	l := &TokenAndPositionEmbedding{
		tokenEmb: layers.NewEmbedding(vocab, embedDim),
		posEmb:   layers.NewEmbedding(maxLen, embedDim),
	}
	l.Base = layers.NewBase("TokenAndPositionEmbedding")
	return l
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
	positions := layers.Call(l.posEmb, training, x.Trace().Constant(ops.Shape{maxLen}, ids))
	e := layers.Call(l.tokenEmb, training, x)
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
	layers.Base
	att                    *layers.MultiHeadAttention
	ffn1, ffn2             *layers.Dense
	layernorm1, layernorm2 *layers.LayerNormalization
	dropout1, dropout2     *layers.Dropout
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
	}
	l.Base = layers.NewBase("TransformerBlock")
	return l
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
	inputs := in[0]
	attn := layers.Call(l.att, training, inputs, inputs)
	attn = layers.Call(l.dropout1, training, attn)
	out1 := layers.Call(l.layernorm1, training, ops.Add(inputs, attn))
	ffn := layers.Call(l.ffn2, training, layers.Call(l.ffn1, training, out1))
	ffn = layers.Call(l.dropout2, training, ffn)
	return layers.Call(l.layernorm2, training, ops.Add(out1, ffn))
}
