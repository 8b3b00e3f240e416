package layers

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/gokeras/gokeras/ops"
)

// maxExactInt is the largest magnitude of an integer token float32
// carries exactly.
const maxExactInt = 1 << 24

// IntegerLookupSettings are the arguments of keras.layers.IntegerLookup.
// The zero value is Keras' default except where noted: one OOV index, no
// mask token, OOV token -1, vocabulary from Adapt, output "int".
type IntegerLookupSettings struct {
	// MaxTokens caps the vocabulary size, special indices included (0: no
	// cap).
	MaxTokens int
	// NumOOVIndices is the number of out-of-vocabulary indices; 0 means
	// Keras' default 1. With several, an OOV token t goes to index
	// oov_start + floormod(t, NumOOVIndices) (Keras' oov_method
	// "floormod"). Keras' num_oov_indices=0 (an error at run time on an
	// OOV token, which a graph op cannot raise) is not supported.
	NumOOVIndices int
	// MaskToken, when not nil, maps to index 0 in "int" mode and to
	// nothing in the others.
	MaskToken *int64
	// OOVToken is the token of the OOV index (nil: Keras' -1); it only
	// matters as a special token a given vocabulary may start with.
	OOVToken *int64
	// Vocabulary, when not nil, is fixed (optionally starting with the
	// special tokens, which are then dropped); nil means Adapt.
	Vocabulary []int64
	// IDFWeights are the tf_idf weights of a given vocabulary, one per
	// entry of Vocabulary.
	IDFWeights []float64
	// OutputMode is "int" (the default), "one_hot", "multi_hot", "count"
	// or "tf_idf".
	OutputMode string
	// PadToMaxTokens makes the encoded outputs MaxTokens wide.
	PadToMaxTokens bool
}

// IntegerLookup is keras.layers.IntegerLookup: integer tokens (carried as
// float32, exact up to 2^24) to vocabulary indices: the mask token (if
// any) to 0 in "int" mode, the OOV index next, then the vocabulary in
// order; or the one_hot / multi_hot / count / tf_idf encoding of those
// indices (see CategoryEncoding), tf_idf being the counts times the IDF
// weights. Adapt learns the vocabulary as Keras (tokens by decreasing
// count, ties by decreasing token, capped by MaxTokens) and the IDF
// weights log(1 + documents / (1 + documents with the token)), the
// special indices getting their mean. The lookup compares each value with
// every token (memory: batch values x vocabulary), so it suits
// vocabularies of thousands, not millions. No gradient.
//
// GetConfig writes the vocabulary (special tokens first) and the IDF
// weights, also those Adapt learned, where
// Keras writes None and keeps them in the .keras file's assets; Keras
// reads such a config as a given vocabulary.
//
// Python: keras.layers.IntegerLookup(vocabulary=[12, 36, 1138], output_mode="int")
// Go:     layers.NewIntegerLookup(layers.IntegerLookupSettings{Vocabulary: []int64{12, 36, 1138}})
type IntegerLookup struct {
	Base
	s      IntegerLookupSettings
	tokens []int64   // the vocabulary without special tokens
	idf    []float32 // tf_idf: one per output index
	have   bool      // tokens set (given or adapted)
}

// NewIntegerLookup makes an IntegerLookup layer. Options: WithName,
// WithInputShape.
func NewIntegerLookup(s IntegerLookupSettings, opts ...Option) *IntegerLookup {
	if s.OutputMode == "" {
		s.OutputMode = "int"
	}
	if s.NumOOVIndices == 0 {
		s.NumOOVIndices = 1
	}
	if s.OOVToken == nil {
		m := int64(-1)
		s.OOVToken = &m
	}
	l := &IntegerLookup{s: s}
	l.init("IntegerLookup", nil, opts)
	if l.err == nil {
		if err := l.check(); err != nil {
			l.err = fmt.Errorf("layers: IntegerLookup %q: %w", l.name, err)
		}
	}
	return l
}

func (l *IntegerLookup) oovStart() int {
	if l.s.MaskToken != nil && l.s.OutputMode == "int" {
		return 1
	}
	return 0
}

func (l *IntegerLookup) tokenStart() int { return l.oovStart() + l.s.NumOOVIndices }

func (l *IntegerLookup) check() error {
	s := l.s
	switch {
	case !slices.Contains([]string{"int", "one_hot", "multi_hot", "count", "tf_idf"}, s.OutputMode):
		return fmt.Errorf("output_mode %q is not one of int, one_hot, multi_hot, count, tf_idf", s.OutputMode)
	case s.NumOOVIndices < 1 || s.NumOOVIndices > maxExactInt:
		return fmt.Errorf("num_oov_indices %d is not supported: from 1 to 2^24", s.NumOOVIndices)
	case s.MaxTokens < 0 || s.MaxTokens == 1:
		return fmt.Errorf("max_tokens must be > 1 (or unset), got %d", s.MaxTokens)
	case s.PadToMaxTokens && s.MaxTokens == 0 && s.OutputMode != "int":
		return fmt.Errorf("pad_to_max_tokens needs max_tokens")
	case s.IDFWeights != nil && s.OutputMode != "tf_idf":
		return fmt.Errorf("idf_weights are only for output_mode tf_idf")
	case s.Vocabulary != nil && s.OutputMode == "tf_idf" && s.IDFWeights == nil:
		return fmt.Errorf("output_mode tf_idf with a vocabulary needs idf_weights")
	}
	for _, t := range []*int64{s.MaskToken, s.OOVToken} {
		if t != nil && (*t > maxExactInt || *t < -maxExactInt) {
			return fmt.Errorf("token %d is beyond float32's exact integers (2^24)", *t)
		}
	}
	if s.Vocabulary != nil {
		return l.setVocabulary(s.Vocabulary, s.IDFWeights)
	}
	return nil
}

// setVocabulary checks and sets a given vocabulary, as Keras'
// set_vocabulary.
func (l *IntegerLookup) setVocabulary(vocab []int64, idf []float64) error {
	var special []int64
	for range l.oovStart() {
		special = append(special, *l.s.MaskToken)
	}
	special = append(special, *l.s.OOVToken)
	found := len(vocab) >= len(special) && slices.Equal(vocab[:len(special)], special)
	tokens := vocab
	if found {
		tokens = vocab[len(special):]
	}
	seen := map[int64]bool{}
	for _, t := range tokens {
		if seen[t] {
			return fmt.Errorf("the vocabulary repeats %d", t)
		}
		seen[t] = true
		if t > maxExactInt || t < -maxExactInt {
			return fmt.Errorf("vocabulary token %d is beyond float32's exact integers (2^24)", t)
		}
		if l.s.MaskToken != nil && t == *l.s.MaskToken {
			return fmt.Errorf("the mask token %d may only start the vocabulary (as %v)", t, special)
		}
	}
	size := l.tokenStart() + len(tokens)
	if l.s.MaxTokens > 0 && size > l.s.MaxTokens {
		return fmt.Errorf("vocabulary size %d exceeds max_tokens %d", size, l.s.MaxTokens)
	}
	l.tokens, l.have = slices.Clone(tokens), true
	l.idf = nil
	if l.s.OutputMode == "tf_idf" {
		if len(idf) != len(vocab) {
			return fmt.Errorf("%d idf_weights for a vocabulary of %d", len(idf), len(vocab))
		}
		var w []float32
		if !found {
			avg := 0.0
			for _, v := range idf {
				avg += v
			}
			avg /= float64(max(len(idf), 1))
			for range l.tokenStart() {
				w = append(w, float32(avg))
			}
		}
		for _, v := range idf {
			w = append(w, float32(v))
		}
		l.idf = w
	}
	return nil
}

// VocabularySize is the number of indices: special ones and tokens.
func (l *IntegerLookup) VocabularySize() int { return l.tokenStart() + len(l.tokens) }

// Vocabulary returns the tokens, without the special ones.
func (l *IntegerLookup) Vocabulary() []int64 { return slices.Clone(l.tokens) }

func (l *IntegerLookup) depth() int {
	if l.s.PadToMaxTokens && l.s.MaxTokens > 0 {
		return l.s.MaxTokens
	}
	return l.VocabularySize()
}

// Adapt learns the vocabulary (and the IDF weights in tf_idf mode) from
// integer tokens of the given shape: rank 0 or 1 is one document, rank 2
// one document per row.
func (l *IntegerLookup) Adapt(shape ops.Shape, data []float32) error {
	if l.err != nil {
		return l.err
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("layers: IntegerLookup %q: Adapt: "+format, append([]any{l.name}, a...)...)
	}
	if l.s.Vocabulary != nil {
		return fail("the layer has a given vocabulary")
	}
	if shape.Size() != len(data) || len(shape) > 2 {
		return fail("%d values for shape %v (rank 0 to 2)", len(data), shape)
	}
	docs := 1
	if len(shape) == 2 {
		docs = shape[0]
	}
	counts, docCounts := map[int64]int{}, map[int64]int{}
	per := len(data) / max(docs, 1)
	for d := range docs {
		inDoc := map[int64]bool{}
		for _, v := range data[d*per : (d+1)*per] {
			if v != float32(math.Trunc(float64(v))) || v > maxExactInt || v < -maxExactInt {
				return fail("%v is not an integer float32 carries exactly", v)
			}
			t := int64(v)
			counts[t]++
			if !inDoc[t] {
				inDoc[t] = true
				docCounts[t]++
			}
		}
	}
	if l.s.MaskToken != nil {
		delete(counts, *l.s.MaskToken)
	}
	delete(counts, *l.s.OOVToken)
	tokens := make([]int64, 0, len(counts))
	for t := range counts {
		tokens = append(tokens, t)
	}
	sort.Slice(tokens, func(i, j int) bool {
		a, b := tokens[i], tokens[j]
		if counts[a] != counts[b] {
			return counts[a] > counts[b]
		}
		return a > b
	})
	if l.s.MaxTokens > 0 {
		tokens = tokens[:min(len(tokens), max(l.s.MaxTokens-l.tokenStart(), 0))]
	}
	l.tokens, l.have, l.idf = tokens, true, nil
	if l.s.OutputMode == "tf_idf" {
		w := make([]float32, len(tokens))
		sum := 0.0
		for i, t := range tokens {
			w[i] = float32(math.Log(1 + float64(docs)/float64(1+docCounts[t])))
			sum += float64(w[i])
		}
		mean := float32(sum / float64(max(len(w), 1)))
		for range l.tokenStart() {
			w = append([]float32{mean}, w...)
		}
		l.idf = w
	}
	return nil
}

// Build implements Layer.
func (l *IntegerLookup) Build(in []ops.Shape) error {
	if err := checkEncodable(in[0], l.encodeMode()); err != nil {
		return err
	}
	l.built = true
	return nil
}

func (l *IntegerLookup) encodeMode() string {
	if l.s.OutputMode == "tf_idf" {
		return "count"
	}
	return l.s.OutputMode
}

// Call implements Layer.
func (l *IntegerLookup) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	tr := x.Trace()
	if !l.have {
		panic(&ops.Error{Op: "IntegerLookup " + l.name, Msg: "no vocabulary: give one or call Adapt first"})
	}
	if err := checkEncodable(x.Shape(), l.encodeMode()); err != nil {
		panic(&ops.Error{Op: "IntegerLookup " + l.name, Msg: err.Error()})
	}
	s := x.Shape()
	oov := float32(l.oovStart())
	// base: the OOV index of every value (one, or floormod buckets).
	base := ops.AddScalar(ops.Scale(x, 0), oov)
	if l.s.NumOOVIndices > 1 {
		base = ops.AddScalar(ops.FloorModScalar(x, float32(l.s.NumOOVIndices)), oov)
	}
	idx := base
	if n := len(l.tokens); n > 0 {
		vocab, at := make([]float32, n), make([]float32, n)
		for k, t := range l.tokens {
			vocab[k] = float32(t)
			at[k] = float32(l.tokenStart() + k)
		}
		vt := tr.Constant(ops.Shape{n}, vocab)
		xr := ops.Reshape(x, append(s.Clone(), 1))
		eq := ops.OneMinus(ops.Add(ops.Greater(xr, vt), ops.Greater(vt, xr)))
		found := ops.Sum(eq, false, len(s)) // 1 where x is a token
		ids := ops.Sum(ops.Mul(eq, tr.Constant(ops.Shape{n}, at)), false, len(s))
		idx = ops.Add(ops.Mul(base, ops.OneMinus(found)), ids)
	}
	if l.s.MaskToken != nil {
		mv := float32(-1) // outside every encoding: dropped, as Keras' max int
		if l.s.OutputMode == "int" {
			mv = 0
		}
		mt := tr.Constant(ops.Shape{1}, []float32{float32(*l.s.MaskToken)})
		m := ops.OneMinus(ops.Add(ops.Greater(x, mt), ops.Greater(mt, x)))
		idx = ops.Add(ops.Mul(idx, ops.OneMinus(m)), ops.Scale(m, mv))
	}
	y := encodeCategorical(idx, l.encodeMode(), l.depth())
	if l.s.OutputMode == "tf_idf" {
		w := make([]float32, l.depth())
		copy(w, l.idf)
		y = ops.Mul(y, tr.Constant(ops.Shape{l.depth()}, w))
	}
	return y
}

// GetConfig implements Layer.
func (l *IntegerLookup) GetConfig() map[string]any {
	m := l.baseConfig()
	m["max_tokens"] = nil
	if l.s.MaxTokens > 0 {
		m["max_tokens"] = l.s.MaxTokens
	}
	m["num_oov_indices"] = l.s.NumOOVIndices
	m["mask_token"] = nil
	if l.s.MaskToken != nil {
		m["mask_token"] = int(*l.s.MaskToken)
	}
	m["oov_token"] = int(*l.s.OOVToken)
	m["output_mode"] = l.s.OutputMode
	m["sparse"] = false
	m["pad_to_max_tokens"] = l.s.PadToMaxTokens
	m["vocabulary_dtype"] = "int64"
	m["invert"] = false
	m["vocabulary"], m["idf_weights"] = nil, nil
	if l.have { // with the special tokens first, so the IDF weights of every index survive
		var v []any
		for range l.oovStart() {
			v = append(v, int(*l.s.MaskToken))
		}
		v = append(v, int(*l.s.OOVToken))
		for _, t := range l.tokens {
			v = append(v, int(t))
		}
		m["vocabulary"] = v
		if l.idf != nil {
			w := make([]any, len(v))
			for i := range v {
				w[i] = float64(l.idf[i])
			}
			m["idf_weights"] = w
		}
	}
	return m
}
