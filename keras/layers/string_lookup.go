package layers

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gorgonia.org/tensor"
)

// StringLookupSettings are the arguments of keras.layers.StringLookup. The
// zero value is Keras' default: no max_tokens, one OOV index with
// oov_token "[UNK]", no mask token, output_mode "int", the vocabulary
// learned by Adapt.
type StringLookupSettings struct {
	// Name is the layer's name; "" means "string_lookup".
	Name string
	// MaxTokens caps the vocabulary, the mask and OOV indices included
	// (Keras' max_tokens); 0 means no cap. When set it must be > 1.
	MaxTokens int
	// NumOOVIndices is Keras' num_oov_indices; 0 means Keras' default, one
	// OOV index all unknown tokens map to. With n > 1 an unknown token goes
	// to OOV index FarmHash Fingerprint64(token) mod n, as in TensorFlow.
	// NoOOVIndex is num_oov_indices=0: every input must be in the
	// vocabulary.
	NumOOVIndices int
	NoOOVIndex    bool
	// Mask turns on Keras' mask_token: MaskToken (usually "") maps to index
	// 0 in "int" mode and is dropped from the other encodings.
	Mask      bool
	MaskToken string
	// OOVToken is what unknown tokens are called in the vocabulary and what
	// Inverse returns for unknown ids; "" means Keras' "[UNK]".
	OOVToken string
	// OutputMode is "int" (the default for ""), "one_hot", "multi_hot",
	// "count" or "tf_idf".
	OutputMode string
	// PadToMaxTokens makes the encodings MaxTokens wide whatever the
	// vocabulary's size (Keras' pad_to_max_tokens).
	PadToMaxTokens bool
	// Vocabulary, when given, fixes the vocabulary (Adapt is then refused);
	// it may start with the mask and OOV tokens. IDFWeights (one per
	// vocabulary entry) must come with it in "tf_idf" mode.
	Vocabulary []string
	IDFWeights []float64
	// Invert maps ids back to tokens (see [StringLookup.Inverse]).
	Invert bool
}

// StringLookup is keras.layers.StringLookup: it maps strings to vocabulary
// indices (as float32, since gokeras' tensors are float32) or to one-hot,
// multi-hot, count or TF-IDF encodings. Strings cannot travel through
// gokeras' float32 graph, so StringLookup is a preprocessing object used
// outside the model, as Keras users do with a tf.data map: its output is the
// model's input.
//
// Indices follow Keras: with a mask (and output_mode "int") index 0 is the
// mask, then the OOV index, then the vocabulary, most frequent first at
// Adapt, ties in reverse byte order of the tokens (Keras' lexsort).
//
// Python: keras.layers.StringLookup(max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]", output_mode="int")
// Go:     layers.NewStringLookup(layers.StringLookupSettings{})
type StringLookup struct {
	s          StringLookupSettings
	numOOV     int
	tokens     []string       // vocabulary without the mask and OOV tokens
	index      map[string]int // token -> index
	idf        []float32      // tf_idf: the weight of each output position
	haveVocab  bool           // tokens were set or adapted
	inputVocab bool           // the vocabulary came with the settings
	frozenSize int            // Keras' vocabulary_size once known, else -1
	err        error
}

// NewStringLookup makes a StringLookup; an invalid setting is kept and
// returned by every later call (and by Err).
func NewStringLookup(s StringLookupSettings) *StringLookup {
	l := &StringLookup{s: s, numOOV: 1, frozenSize: -1}
	l.s.Vocabulary, l.s.IDFWeights = slices.Clone(s.Vocabulary), slices.Clone(s.IDFWeights)
	if s.NumOOVIndices > 0 {
		l.numOOV = s.NumOOVIndices
	}
	if s.NoOOVIndex {
		l.numOOV = 0
	}
	if l.s.Name == "" {
		l.s.Name = "string_lookup"
	}
	if l.s.OOVToken == "" {
		l.s.OOVToken = "[UNK]"
	}
	if l.s.OutputMode == "" {
		l.s.OutputMode = "int"
	}
	l.err = l.validate()
	if l.err == nil && s.Vocabulary != nil {
		l.inputVocab = true
		l.err = l.SetVocabulary(s.Vocabulary, s.IDFWeights)
	} else if l.err == nil && s.IDFWeights != nil {
		l.err = l.errorf("idf_weights given without a vocabulary")
	}
	return l
}

func (l *StringLookup) errorf(format string, a ...any) error {
	return fmt.Errorf("layers: StringLookup %q: %s", l.s.Name, fmt.Sprintf(format, a...))
}

func (l *StringLookup) validate() error {
	s := l.s
	switch s.OutputMode {
	case "int", "one_hot", "multi_hot", "count", "tf_idf":
	default:
		return l.errorf("output_mode %q is not one of int, one_hot, multi_hot, count, tf_idf", s.OutputMode)
	}
	if s.NumOOVIndices < 0 || (s.NoOOVIndex && s.NumOOVIndices > 0) {
		return l.errorf("num_oov_indices %d with NoOOVIndex %v: give a count >= 0, or NoOOVIndex alone", s.NumOOVIndices, s.NoOOVIndex)
	}
	if s.MaxTokens < 0 || s.MaxTokens == 1 {
		return l.errorf("max_tokens must be greater than 1 (or 0 for none), got %d", s.MaxTokens)
	}
	if s.PadToMaxTokens && s.MaxTokens == 0 {
		return l.errorf("pad_to_max_tokens needs max_tokens")
	}
	if s.Invert && s.OutputMode != "int" {
		return l.errorf("invert needs output_mode int, got %q", s.OutputMode)
	}
	if s.IDFWeights != nil && s.OutputMode != "tf_idf" {
		return l.errorf("idf_weights are only for output_mode tf_idf, got %q", s.OutputMode)
	}
	if s.OutputMode == "tf_idf" && s.Vocabulary != nil && s.IDFWeights == nil {
		return l.errorf("output_mode tf_idf with a given vocabulary needs idf_weights")
	}
	return nil
}

// Err returns the settings error the layer was made with, if any.
func (l *StringLookup) Err() error { return l.err }

// Name returns the layer's name.
func (l *StringLookup) Name() string { return l.s.Name }

// oovStart is the first OOV index: 1 when index 0 is the mask, else 0.
func (l *StringLookup) oovStart() int {
	if l.s.Mask && l.s.OutputMode == "int" {
		return 1
	}
	return 0
}

func (l *StringLookup) tokenStart() int { return l.oovStart() + l.numOOV }

// VocabularySize is the number of indices: mask, OOV and vocabulary.
func (l *StringLookup) VocabularySize() int { return l.tokenStart() + len(l.tokens) }

// GetVocabulary returns the vocabulary in index order, with the mask and
// OOV tokens first when includeSpecial (Keras' get_vocabulary).
func (l *StringLookup) GetVocabulary(includeSpecial bool) []string {
	var v []string
	if includeSpecial {
		for i := 0; i < l.oovStart(); i++ {
			v = append(v, l.s.MaskToken)
		}
		for i := 0; i < l.numOOV; i++ {
			v = append(v, l.s.OOVToken)
		}
	}
	return append(v, l.tokens...)
}

// IDFWeights returns the TF-IDF weight of each output position (nil
// outside "tf_idf" mode or before the vocabulary is known): Keras'
// idf_weights variable.
func (l *StringLookup) IDFWeights() []float32 { return slices.Clone(l.idf) }

// SetVocabulary replaces the vocabulary (Keras' set_vocabulary). It may
// start with the special tokens in index order (they are then dropped);
// idf, one weight per entry of vocabulary, is required in "tf_idf" mode
// and refused otherwise. Special tokens left out get the mean weight.
func (l *StringLookup) SetVocabulary(vocabulary []string, idf []float64) error {
	if l.err != nil {
		return l.err
	}
	if l.s.OutputMode == "tf_idf" && idf == nil {
		return l.errorf("output_mode tf_idf: set_vocabulary needs idf_weights")
	}
	if l.s.OutputMode != "tf_idf" && idf != nil {
		return l.errorf("idf_weights are only for output_mode tf_idf, got %q", l.s.OutputMode)
	}
	if len(vocabulary) == 0 {
		return l.errorf("cannot set an empty vocabulary")
	}
	start := l.tokenStart()
	special := slices.Equal(l.GetVocabulary(true)[:start], vocabulary[:min(start, len(vocabulary))]) && len(vocabulary) >= start
	tokens := vocabulary
	if special {
		tokens = vocabulary[start:]
	}
	seen := make(map[string]int, len(tokens))
	var repeated []string
	for i, t := range tokens {
		if _, ok := seen[t]; ok && !slices.Contains(repeated, t) {
			repeated = append(repeated, t)
		}
		seen[t] = i + start
		if l.s.Mask && t == l.s.MaskToken {
			return l.errorf("the mask token %q is in the vocabulary at index %d; give the special tokens only at the start, in the order %q",
				t, i, l.GetVocabulary(true)[:start])
		}
		if l.s.Invert && t == l.s.OOVToken {
			return l.errorf("the OOV token %q is in the vocabulary at index %d; give the special tokens only at the start, in the order %q",
				t, i, l.GetVocabulary(true)[:start])
		}
	}
	if repeated != nil {
		return l.errorf("the vocabulary repeats %q", repeated)
	}
	if n := start + len(tokens); l.s.MaxTokens > 0 && n > l.s.MaxTokens {
		return l.errorf("vocabulary of %d (special tokens included) is larger than max_tokens %d", n, l.s.MaxTokens)
	}
	var weights []float32
	if idf != nil {
		if len(idf) != len(vocabulary) {
			return l.errorf("%d idf_weights for a vocabulary of %d", len(idf), len(vocabulary))
		}
		if !special {
			var mean float64
			for _, w := range idf {
				mean += w
			}
			mean /= float64(len(idf))
			for range start {
				weights = append(weights, float32(mean))
			}
		}
		for _, w := range idf {
			weights = append(weights, float32(w))
		}
		if l.s.PadToMaxTokens && len(weights) < l.s.MaxTokens {
			weights = append(weights, make([]float32, l.s.MaxTokens-len(weights))...)
		}
	}
	l.tokens, l.index, l.idf, l.haveVocab = slices.Clone(tokens), seen, weights, true
	l.frozenSize = l.VocabularySize()
	return nil
}

// Adapt learns the vocabulary from tokens, each of them one document for
// the TF-IDF document counts (Keras' adapt on a 1-D array).
func (l *StringLookup) Adapt(tokens []string) error {
	rows := make([][]string, len(tokens))
	for i := range tokens {
		rows[i] = tokens[i : i+1]
	}
	return l.AdaptRows(rows)
}

// AdaptRows learns the vocabulary from documents of tokens: the tokens by
// count, most frequent first, ties in reverse byte order, cut to
// MaxTokens, the mask and OOV tokens left out; in "tf_idf" mode the weight
// of a token is log(1 + documents/(1 + documents holding it)), the special
// tokens getting the mean weight.
func (l *StringLookup) AdaptRows(rows [][]string) error {
	if l.err != nil {
		return l.err
	}
	if l.inputVocab {
		return l.errorf("cannot adapt a layer made with a vocabulary")
	}
	counts := map[string]int{}
	docs := map[string]int{}
	inDoc := map[string]bool{}
	for _, r := range rows {
		clear(inDoc)
		for _, t := range r {
			counts[t]++
			if !inDoc[t] {
				inDoc[t] = true
				docs[t]++
			}
		}
	}
	if l.s.Mask {
		delete(counts, l.s.MaskToken)
	}
	delete(counts, l.s.OOVToken)
	if len(counts) == 0 {
		l.frozenSize = l.VocabularySize()
		return nil
	}
	tokens := make([]string, 0, len(counts))
	for t := range counts {
		tokens = append(tokens, t)
	}
	slices.SortFunc(tokens, func(a, b string) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return strings.Compare(b, a)
	})
	if l.s.MaxTokens > 0 {
		tokens = tokens[:min(len(tokens), max(l.s.MaxTokens-l.tokenStart(), 0))]
	}
	l.tokens = tokens
	l.index = make(map[string]int, len(tokens))
	for i, t := range tokens {
		l.index[t] = l.tokenStart() + i
	}
	l.idf = nil
	if l.s.OutputMode == "tf_idf" {
		w := make([]float32, len(tokens))
		var sum float64
		for i, t := range tokens {
			w[i] = float32(math.Log(1 + float64(len(rows))/float64(1+docs[t])))
			sum += float64(w[i])
		}
		mean := float32(0)
		if len(w) > 0 {
			mean = float32(sum / float64(len(w)))
		}
		for range l.tokenStart() {
			l.idf = append(l.idf, mean)
		}
		l.idf = append(l.idf, w...)
		if l.s.PadToMaxTokens && len(l.idf) < l.s.MaxTokens {
			l.idf = append(l.idf, make([]float32, l.s.MaxTokens-len(l.idf))...)
		}
	}
	l.haveVocab = true
	l.frozenSize = l.VocabularySize()
	return nil
}

// id is the index of token: -1 for the mask outside "int" mode (dropped).
func (l *StringLookup) id(t string) (int, error) {
	if l.s.Mask && t == l.s.MaskToken {
		if l.s.OutputMode == "int" {
			return 0, nil
		}
		return -1, nil
	}
	if i, ok := l.index[t]; ok {
		return i, nil
	}
	switch l.numOOV {
	case 0:
		return 0, l.errorf("token %q is not in the vocabulary and num_oov_indices is 0", t)
	case 1:
		return l.oovStart(), nil
	}
	return l.oovStart() + int(fingerprint64([]byte(t))%uint64(l.numOOV)), nil
}

// depth is the width of the encodings.
func (l *StringLookup) depth() (int, error) {
	d := l.VocabularySize()
	if l.s.PadToMaxTokens {
		d = l.s.MaxTokens
	} else if !l.haveVocab && !l.inputVocab && l.frozenSize < 0 {
		return 0, l.errorf("output_mode %s needs a vocabulary: call Adapt or SetVocabulary first", l.s.OutputMode)
	}
	if l.s.OutputMode == "tf_idf" && len(l.idf) < d {
		return 0, l.errorf("output_mode tf_idf needs idf weights: call Adapt on documents or SetVocabulary with idf_weights first")
	}
	return d, nil
}

func (l *StringLookup) ids(tokens []string) ([]int, error) {
	out := make([]int, len(tokens))
	for i, t := range tokens {
		var err error
		if out[i], err = l.id(t); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// encode adds the encoding of one sample's ids to dst (depth wide).
func (l *StringLookup) encode(dst []float32, ids []int) {
	for _, i := range ids {
		if i < 0 || i >= len(dst) {
			continue // the mask, or beyond a max_tokens padded width
		}
		switch l.s.OutputMode {
		case "multi_hot", "one_hot":
			dst[i] = 1
		default:
			dst[i]++
		}
	}
	if l.s.OutputMode == "tf_idf" {
		for i := range dst {
			if dst[i] != 0 {
				dst[i] *= l.idf[i]
			}
		}
	}
}

// Call looks up a batch of single tokens, shape (n): "int" gives the n
// ids, "one_hot" an (n, depth) encoding; "multi_hot", "count" and
// "tf_idf" give one (depth) encoding of all n tokens together, as Keras
// does for a 1-D input (use CallRows for one encoding per sample).
func (l *StringLookup) Call(tokens []string) (*tensor.Dense, error) {
	if l.err != nil {
		return nil, l.err
	}
	if l.s.Invert {
		return nil, l.errorf("an inverting lookup maps ids to strings: use Inverse")
	}
	ids, err := l.ids(tokens)
	if err != nil {
		return nil, err
	}
	if l.s.OutputMode == "int" {
		out := make([]float32, len(ids))
		for i, v := range ids {
			out[i] = float32(v)
		}
		return l.dense(out, len(ids))
	}
	d, err := l.depth()
	if err != nil {
		return nil, err
	}
	if l.s.OutputMode == "one_hot" {
		out := make([]float32, len(ids)*d)
		for i, v := range ids {
			l.encode(out[i*d:(i+1)*d], []int{v})
		}
		return l.dense(out, len(ids), d)
	}
	out := make([]float32, d)
	l.encode(out, ids)
	return l.dense(out, d)
}

// CallRows looks up a batch of samples of equal length: "int" gives their
// ids, shape (n, length); "one_hot" (n, depth) for samples of one token,
// else (n, length, depth); the other modes one (n, depth) encoding per
// sample.
func (l *StringLookup) CallRows(rows [][]string) (*tensor.Dense, error) {
	if l.err != nil {
		return nil, l.err
	}
	if l.s.Invert {
		return nil, l.errorf("an inverting lookup maps ids to strings: use Inverse")
	}
	n := 0
	if len(rows) > 0 {
		n = len(rows[0])
	}
	for i, r := range rows {
		if len(r) != n {
			return nil, l.errorf("row %d has %d tokens, row 0 has %d: rows must be of equal length", i, len(r), n)
		}
	}
	flat := make([]string, 0, len(rows)*n)
	for _, r := range rows {
		flat = append(flat, r...)
	}
	switch l.s.OutputMode {
	case "int":
		t, err := l.Call(flat)
		if err != nil {
			return nil, err
		}
		return reshapeDense(t, len(rows), n), nil
	case "one_hot":
		t, err := l.Call(flat)
		if err != nil {
			return nil, err
		}
		d := t.Shape()[len(t.Shape())-1]
		if n == 1 {
			return reshapeDense(t, len(rows), d), nil
		}
		return reshapeDense(t, len(rows), n, d), nil
	}
	return l.encodeRows(rows)
}

// encodeRows is one multi_hot/count/tf_idf encoding per row (rows of any
// length), shape (len(rows), depth).
func (l *StringLookup) encodeRows(rows [][]string) (*tensor.Dense, error) {
	d, err := l.depth()
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(rows)*d)
	for i, r := range rows {
		ids, err := l.ids(r)
		if err != nil {
			return nil, err
		}
		l.encode(out[i*d:(i+1)*d], ids)
	}
	return l.dense(out, len(rows), d)
}

// Inverse maps ids to tokens (the layer must be made with Invert): the
// mask token for 0 when there is a mask, the OOV token for the OOV
// indices and for ids outside the vocabulary.
func (l *StringLookup) Inverse(ids []int) ([]string, error) {
	if l.err != nil {
		return nil, l.err
	}
	if !l.s.Invert {
		return nil, l.errorf("Inverse needs a lookup made with Invert")
	}
	out := make([]string, len(ids))
	start := l.tokenStart()
	for i, id := range ids {
		switch {
		case l.s.Mask && id == 0:
			out[i] = l.s.MaskToken
		case id >= start && id < start+len(l.tokens):
			out[i] = l.tokens[id-start]
		default:
			out[i] = l.s.OOVToken
		}
	}
	return out, nil
}

// GetConfig returns Keras' StringLookup config. The vocabulary is there
// only when it came with the settings, as in Keras; an adapted vocabulary
// is saved by SaveAssets.
func (l *StringLookup) GetConfig() map[string]any {
	var mask, vocab, idf, size any
	if l.s.Mask {
		mask = l.s.MaskToken
	}
	if l.inputVocab {
		vocab = slices.Clone(l.s.Vocabulary)
		if l.s.IDFWeights != nil {
			idf = slices.Clone(l.s.IDFWeights)
		}
	}
	if l.frozenSize >= 0 {
		size = l.frozenSize
	}
	var maxTokens any
	if l.s.MaxTokens > 0 {
		maxTokens = l.s.MaxTokens
	}
	return map[string]any{
		"name":              l.s.Name,
		"trainable":         true,
		"dtype":             textLayerDtype(),
		"invert":            l.s.Invert,
		"max_tokens":        maxTokens,
		"num_oov_indices":   l.numOOV,
		"oov_token":         l.s.OOVToken,
		"mask_token":        mask,
		"output_mode":       l.s.OutputMode,
		"sparse":            false,
		"pad_to_max_tokens": l.s.PadToMaxTokens,
		"idf_weights":       idf,
		"vocabulary":        vocab,
		"vocabulary_size":   size,
		"oov_method":        "floormod",
		"salt":              nil,
		"encoding":          "utf-8",
	}
}

// textLayerDtype is the dtype entry Keras writes for its text layers.
func textLayerDtype() map[string]any {
	return map[string]any{"module": "keras", "class_name": "DTypePolicy",
		"config": map[string]any{"name": "float32"}, "registered_name": nil}
}

// StringLookupFromConfig makes a StringLookup from Keras' config (as JSON
// decodes it). An adapted vocabulary is not in the config: load it with
// LoadAssets (or SetVocabulary).
func StringLookupFromConfig(c map[string]any) (*StringLookup, error) {
	s, err := lookupSettingsFromConfig("StringLookup", c)
	if err != nil {
		return nil, err
	}
	if m, ok := c["mask_token"]; ok && m != nil {
		ms, ok := m.(string)
		if !ok {
			return nil, fmt.Errorf("layers: StringLookup config: mask_token %v is not a string", m)
		}
		s.Mask, s.MaskToken = true, ms
	}
	if o, ok := c["oov_token"].(string); ok {
		s.OOVToken = o
	}
	if v, ok := c["invert"].(bool); ok {
		s.Invert = v
	}
	if n, ok := c["num_oov_indices"]; ok {
		f, isNum := n.(float64)
		switch {
		case isNum && f == 0:
			s.NoOOVIndex = true
		case isNum && f >= 1 && f == math.Trunc(f) && f <= math.MaxInt32:
			s.NumOOVIndices = int(f)
		default:
			return nil, fmt.Errorf("layers: StringLookup config: bad num_oov_indices %v", n)
		}
	}
	if v, ok := c["salt"]; ok && v != nil {
		return nil, fmt.Errorf("layers: StringLookup config: salt %v: gokeras hashes OOV tokens with FarmHash only (no salted SipHash)", v)
	}
	if v, ok := c["oov_method"].(string); ok && v != "floormod" && v != "farmhash" {
		return nil, fmt.Errorf("layers: StringLookup config: oov_method %q is not floormod or farmhash", v)
	}
	l := NewStringLookup(s)
	return l, l.err
}

// lookupSettingsFromConfig reads the config keys StringLookup and
// TextVectorization share.
func lookupSettingsFromConfig(class string, c map[string]any) (StringLookupSettings, error) {
	var s StringLookupSettings
	bad := func(k string) error { return fmt.Errorf("layers: %s config: bad %s %v", class, k, c[k]) }
	if n, ok := c["name"].(string); ok {
		s.Name = n
	}
	if v, ok := c["max_tokens"]; ok && v != nil {
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) || f < 0 || f > math.MaxInt32 {
			return s, bad("max_tokens")
		}
		s.MaxTokens = int(f)
	}
	if v, ok := c["output_mode"]; ok && v != nil {
		if s.OutputMode, ok = v.(string); !ok {
			return s, bad("output_mode")
		}
		switch s.OutputMode {
		case "binary":
			s.OutputMode = "multi_hot"
		case "tf-idf":
			s.OutputMode = "tf_idf"
		}
	}
	if v, ok := c["pad_to_max_tokens"].(bool); ok {
		s.PadToMaxTokens = v
	}
	if v, ok := c["sparse"].(bool); ok && v {
		return s, fmt.Errorf("layers: %s config: sparse=True: gokeras has no sparse tensors", class)
	}
	if v, ok := c["vocabulary"]; ok && v != nil {
		switch x := v.(type) {
		case []any:
			for _, t := range x {
				ts, ok := t.(string)
				if !ok {
					return s, bad("vocabulary")
				}
				s.Vocabulary = append(s.Vocabulary, ts)
			}
		case string:
			return s, fmt.Errorf("layers: %s config: vocabulary file %q: load it with SetVocabulary", class, x)
		default:
			return s, bad("vocabulary")
		}
	}
	if v, ok := c["idf_weights"]; ok && v != nil {
		x, ok := v.([]any)
		if !ok {
			return s, bad("idf_weights")
		}
		for _, w := range x {
			f, ok := w.(float64)
			if !ok {
				return s, bad("idf_weights")
			}
			s.IDFWeights = append(s.IDFWeights, f)
		}
	}
	return s, nil
}

// SaveAssets writes the vocabulary, special tokens included, to
// dir/vocabulary.txt, one token a line with no final newline: the asset
// Keras saves in a .keras file for an adapted lookup. A vocabulary given
// in the settings is in the config instead, and nothing is written.
func (l *StringLookup) SaveAssets(dir string) error {
	if l.inputVocab {
		return nil
	}
	if err := os.WriteFile(filepath.Join(dir, "vocabulary.txt"), []byte(strings.Join(l.GetVocabulary(true), "\n")), 0o644); err != nil {
		return l.errorf("saving the vocabulary: %v", err)
	}
	return nil
}

// LoadAssets reads the vocabulary SaveAssets (or Keras) wrote in dir; in
// "tf_idf" mode idf holds the saved idf_weights variable (one weight per
// output position).
func (l *StringLookup) LoadAssets(dir string, idf []float32) error {
	if l.inputVocab {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, "vocabulary.txt"))
	if err != nil {
		return l.errorf("loading the vocabulary: %v", err)
	}
	lines := strings.Split(string(b), "\n")
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return l.errorf("vocabulary file %s is empty", filepath.Join(dir, "vocabulary.txt"))
	}
	var w []float64
	if l.s.OutputMode == "tf_idf" {
		if len(idf) < len(lines) {
			return l.errorf("%d idf_weights for a saved vocabulary of %d", len(idf), len(lines))
		}
		for _, x := range idf[:len(lines)] {
			w = append(w, float64(x))
		}
	} else if idf != nil {
		return errors.New("layers: StringLookup: idf_weights are only for output_mode tf_idf")
	}
	return l.SetVocabulary(lines, w)
}

// dense wraps data as a float32 tensor of shape dims. An output with no
// values (an empty batch, samples without tokens) is an error: gorgonia's
// tensors cannot be empty.
func (l *StringLookup) dense(data []float32, dims ...int) (*tensor.Dense, error) {
	if len(data) == 0 {
		return nil, l.errorf("the output of shape %v holds no values, which a gorgonia tensor cannot hold", dims)
	}
	return tensor.New(tensor.WithShape(dims...), tensor.WithBacking(data)), nil
}

// reshapeDense gives t's data (not empty) the shape dims (same size).
func reshapeDense(t *tensor.Dense, dims ...int) *tensor.Dense {
	data, _ := t.Data().([]float32)
	return tensor.New(tensor.WithShape(dims...), tensor.WithBacking(data))
}
