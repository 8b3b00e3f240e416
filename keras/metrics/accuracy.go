package metrics

import "github.com/gokeras/gokeras/ops"

// Accuracy is how often predictions equal labels exactly, element by
// element. Labels and predictions have the same shape (or differ by a
// trailing axis of size 1). Each example weighs the same: its value is the
// fraction of its elements that match.
type Accuracy struct{ labelMetric }

// NewAccuracy makes the metric, named "accuracy". Options: Name.
func NewAccuracy(opts ...Option) *Accuracy {
	c := newConfig("Accuracy", "accuracy", nil, opts)
	m := &Accuracy{}
	m.init("Accuracy", c, sameShape, func(t, p []float32, _, ps ops.Shape) (float64, int, int, error) {
		var hits int
		for i := range p {
			if p[i] == t[i] {
				hits++
			}
		}
		return float64(hits), len(p), examplesOf(ps), nil
	}, nil)
	return m
}

// SparseCategoricalAccuracy is how often the class with the highest score
// (the first one on ties, as tf.argmax) is the label. Labels hold class
// ids with shape (N,) or (N, 1) against predictions (N, C).
type SparseCategoricalAccuracy struct{ labelMetric }

// NewSparseCategoricalAccuracy makes the metric, named
// "sparse_categorical_accuracy". Options: Name.
func NewSparseCategoricalAccuracy(opts ...Option) *SparseCategoricalAccuracy {
	c := newConfig("SparseCategoricalAccuracy", "sparse_categorical_accuracy", nil, opts)
	m := &SparseCategoricalAccuracy{}
	m.init("SparseCategoricalAccuracy", c, sparseShape, func(t, p []float32, _, ps ops.Shape) (float64, int, int, error) {
		n, k, examples := rows(ps)
		var hits int
		for r := 0; r < n; r++ {
			if float32(argmax(p[r*k:(r+1)*k])) == t[r] {
				hits++
			}
		}
		return float64(hits), n, examples, nil
	}, nil)
	return m
}

// CategoricalAccuracy is how often the class with the highest predicted
// score is the class with the highest label (one-hot labels), first index
// on ties. Labels and predictions have shape (N, C).
type CategoricalAccuracy struct{ labelMetric }

// NewCategoricalAccuracy makes the metric, named "categorical_accuracy".
// Options: Name.
func NewCategoricalAccuracy(opts ...Option) *CategoricalAccuracy {
	c := newConfig("CategoricalAccuracy", "categorical_accuracy", nil, opts)
	m := &CategoricalAccuracy{}
	m.init("CategoricalAccuracy", c, categoricalShape, func(t, p []float32, _, ps ops.Shape) (float64, int, int, error) {
		n, k, examples := rows(ps)
		var hits int
		for r := 0; r < n; r++ {
			if argmax(p[r*k:(r+1)*k]) == argmax(t[r*k:(r+1)*k]) {
				hits++
			}
		}
		return float64(hits), n, examples, nil
	}, nil)
	return m
}

// BinaryAccuracy is how often predictions, read as 1 above the threshold
// and 0 otherwise, equal the labels (0 or 1), element by element. Labels
// and predictions have the same shape (or differ by a trailing axis of
// size 1).
type BinaryAccuracy struct{ labelMetric }

// NewBinaryAccuracy makes the metric, named "binary_accuracy". Options:
// Threshold (default 0.5; use 0 for logits), Name.
func NewBinaryAccuracy(opts ...Option) *BinaryAccuracy {
	c := newConfig("BinaryAccuracy", "binary_accuracy", []string{"threshold"}, opts)
	m := &BinaryAccuracy{}
	th := c.threshold
	m.init("BinaryAccuracy", c, sameShape, func(t, p []float32, _, ps ops.Shape) (float64, int, int, error) {
		var hits int
		for i := range p {
			var b float32
			if float64(p[i]) > th {
				b = 1
			}
			if b == t[i] {
				hits++
			}
		}
		return float64(hits), len(p), examplesOf(ps), nil
	}, map[string]any{"threshold": th})
	return m
}
