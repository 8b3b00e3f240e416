package layers

import (
	"fmt"
	"slices"

	"github.com/gokeras/gokeras/ops"
)

// CategoryEncodingSettings are the arguments of
// keras.layers.CategoryEncoding. NumTokens is required; OutputMode ""
// means Keras' default "multi_hot".
type CategoryEncodingSettings struct {
	// NumTokens is the number of categories: inputs are integers in
	// [0, NumTokens); others encode to nothing (all zeros), as Keras'
	// TensorFlow backend.
	NumTokens int
	// OutputMode is "one_hot", "multi_hot" (the default) or "count".
	OutputMode string
}

// CategoryEncoding is keras.layers.CategoryEncoding: integer category ids
// (carried as float32) to one-hot rows ("one_hot": a trailing axis of
// size 1 is replaced by NumTokens, any other shape gains one), or one row
// per sample ("multi_hot": 1 where the id occurs, "count": how often;
// rank 1 is one sample, rank 2 a batch of samples). The outputs are
// float32, as Keras' default dtype; there is no gradient (Keras' ids are
// integers).
//
// Python: keras.layers.CategoryEncoding(num_tokens=8, output_mode="multi_hot")
// Go:     layers.NewCategoryEncoding(layers.CategoryEncodingSettings{NumTokens: 8})
type CategoryEncoding struct {
	Base
	s CategoryEncodingSettings
}

// NewCategoryEncoding makes a CategoryEncoding layer. Options: WithName,
// WithInputShape.
func NewCategoryEncoding(s CategoryEncodingSettings, opts ...Option) *CategoryEncoding {
	if s.OutputMode == "" {
		s.OutputMode = "multi_hot"
	}
	l := &CategoryEncoding{s: s}
	l.init("CategoryEncoding", nil, opts)
	if l.err == nil && s.NumTokens <= 0 {
		l.err = fmt.Errorf("layers: CategoryEncoding %q: num_tokens must be positive, got %d", l.name, s.NumTokens)
	}
	if l.err == nil && !slices.Contains([]string{"one_hot", "multi_hot", "count"}, s.OutputMode) {
		l.err = fmt.Errorf("layers: CategoryEncoding %q: output_mode %q is not one of one_hot, multi_hot, count", l.name, s.OutputMode)
	}
	return l
}

// Build implements Layer.
func (l *CategoryEncoding) Build(in []ops.Shape) error {
	if err := checkEncodable(in[0], l.s.OutputMode); err != nil {
		return err
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *CategoryEncoding) Call(in []ops.Tensor, _ bool) ops.Tensor {
	if err := checkEncodable(in[0].Shape(), l.s.OutputMode); err != nil {
		panic(&ops.Error{Op: "CategoryEncoding " + l.name, Msg: err.Error()})
	}
	return encodeCategorical(in[0], l.s.OutputMode, l.s.NumTokens)
}

// GetConfig implements Layer.
func (l *CategoryEncoding) GetConfig() map[string]any {
	m := l.baseConfig()
	m["num_tokens"] = l.s.NumTokens
	m["output_mode"] = l.s.OutputMode
	m["sparse"] = false
	return m
}

// checkEncodable reports whether ids of shape s can be encoded in mode:
// multi_hot and count take rank 1 or 2 (Keras' TensorFlow backend).
func checkEncodable(s ops.Shape, mode string) error {
	if (mode == "multi_hot" || mode == "count") && len(s) > 2 {
		return fmt.Errorf("output_mode %q takes inputs of rank 1 or 2, got shape %v", mode, s)
	}
	return nil
}

// encodeCategorical encodes the integer ids x as Keras'
// encode_categorical_inputs: "int" passes them, "one_hot" gives a row of
// depth per id, "multi_hot" and "count" one row per sample (the last axis
// reduced). Ids outside [0, depth) encode to zeros.
func encodeCategorical(x ops.Tensor, mode string, depth int) ops.Tensor {
	if mode == "int" {
		return x
	}
	s := x.Shape()
	if len(s) == 0 {
		x, s = ops.Reshape(x, ops.Shape{1}), ops.Shape{1}
	}
	ids := newConstValues("CategoryEncoding tokens", depth)
	for i := range ids {
		ids[i] = float32(i)
	}
	tokens := x.Trace().Constant(ops.Shape{depth}, ids)
	equal := func(x ops.Tensor) ops.Tensor { // x of shape [..., 1] against tokens
		return ops.OneMinus(ops.Add(ops.Greater(x, tokens), ops.Greater(tokens, x)))
	}
	if mode == "one_hot" {
		if len(s) > 1 && s[len(s)-1] == 1 {
			s = s[:len(s)-1]
		}
		return equal(ops.Reshape(x, append(s.Clone(), 1)))
	}
	rows := ops.Shape{1, s[0]}
	if len(s) == 2 {
		rows = s.Clone()
	}
	oh := equal(ops.Reshape(x, append(rows, 1))) // [rows, ids, depth]
	var y ops.Tensor
	if mode == "count" {
		y = ops.Sum(oh, false, 1)
	} else {
		y = ops.Max(oh, false, 1)
	}
	if len(s) == 1 {
		y = ops.Reshape(y, ops.Shape{depth})
	}
	return y
}
