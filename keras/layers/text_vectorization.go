package layers

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"gorgonia.org/tensor"
)

// TextVectorizationSettings are the arguments of
// keras.layers.TextVectorization. The zero value is Keras' default:
// standardize "lower_and_strip_punctuation", split "whitespace", no
// n-grams, output_mode "int" padded to the longest sample of the batch,
// the vocabulary learned by Adapt.
type TextVectorizationSettings struct {
	// Name is the layer's name; "" means "text_vectorization".
	Name string
	// MaxTokens caps the vocabulary, the padding and OOV tokens included;
	// 0 means no cap.
	MaxTokens int
	// Standardize is "lower_and_strip_punctuation" (the default for ""),
	// "lower", "strip_punctuation" or "none". Lowercasing is ASCII only and
	// the punctuation is ASCII's, as in TensorFlow's tf.strings ops Keras
	// uses. StandardizeFunc, when set, runs after it (set Standardize to
	// "none" to run it alone); StandardizeName is what the config calls it.
	Standardize     string
	StandardizeFunc func(string) string
	StandardizeName string
	// Split is "whitespace" (the default for ""; ASCII whitespace),
	// "character" (UTF-8 characters) or "none" (each input is one token).
	// SplitFunc, when set, replaces it; SplitName is what the config calls
	// it.
	Split     string
	SplitFunc func(string) []string
	SplitName string
	// Ngrams n adds the 2- to n-grams of the tokens (Keras' ngrams=n);
	// NgramWidths lists the widths instead (Keras' tuple). Give one or
	// neither.
	Ngrams      int
	NgramWidths []int
	// OutputMode is "int" (the default for ""), "one_hot" (with Split
	// "none"), "multi_hot", "count" or "tf_idf".
	OutputMode string
	// OutputSequenceLength pads with 0 or truncates "int" output to this
	// many tokens; 0 pads to the longest sample of each batch.
	OutputSequenceLength int
	// PadToMaxTokens makes the encodings MaxTokens wide.
	PadToMaxTokens bool
	// Vocabulary and IDFWeights fix the vocabulary, as for StringLookup.
	Vocabulary []string
	IDFWeights []float64
}

// TextVectorization is keras.layers.TextVectorization: it standardizes
// text, splits it into tokens, adds n-grams and looks the tokens up in a
// vocabulary (a [StringLookup] with mask "" at index 0 and "[UNK]" at 1),
// giving token ids padded with 0 or multi-hot, count or TF-IDF encodings.
// Strings cannot travel through gokeras' float32 graph, so it is a
// preprocessing object used outside the model (as with a tf.data map in
// Keras): its float32 output is the model's input.
//
// Python: keras.layers.TextVectorization(max_tokens=20000, output_sequence_length=200)
// Go:     layers.NewTextVectorization(layers.TextVectorizationSettings{MaxTokens: 20000, OutputSequenceLength: 200})
type TextVectorization struct {
	s      TextVectorizationSettings
	widths []int
	lookup *StringLookup
	err    error
}

// NewTextVectorization makes a TextVectorization; an invalid setting is
// kept and returned by every later call (and by Err).
func NewTextVectorization(s TextVectorizationSettings) *TextVectorization {
	l := &TextVectorization{s: s}
	l.s.NgramWidths = slices.Clone(s.NgramWidths)
	if l.s.Name == "" {
		l.s.Name = "text_vectorization"
	}
	if l.s.Standardize == "" {
		l.s.Standardize = "lower_and_strip_punctuation"
	}
	if l.s.Split == "" {
		l.s.Split = "whitespace"
	}
	if l.s.OutputMode == "" {
		l.s.OutputMode = "int"
	}
	if l.err = l.validate(); l.err != nil {
		return l
	}
	l.lookup = NewStringLookup(StringLookupSettings{
		Name: l.s.Name, MaxTokens: s.MaxTokens, Mask: true, OutputMode: l.s.OutputMode,
		PadToMaxTokens: s.PadToMaxTokens, Vocabulary: s.Vocabulary, IDFWeights: s.IDFWeights,
	})
	if err := l.lookup.Err(); err != nil {
		l.err = fmt.Errorf("layers: TextVectorization %q: %s", l.s.Name, strings.TrimPrefix(err.Error(), fmt.Sprintf("layers: StringLookup %q: ", l.s.Name)))
	}
	return l
}

func (l *TextVectorization) errorf(format string, a ...any) error {
	return fmt.Errorf("layers: TextVectorization %q: %s", l.s.Name, fmt.Sprintf(format, a...))
}

func (l *TextVectorization) validate() error {
	s := l.s
	switch s.Standardize {
	case "lower_and_strip_punctuation", "lower", "strip_punctuation", "none":
	default:
		return l.errorf("standardize %q is not one of lower_and_strip_punctuation, lower, strip_punctuation, none", s.Standardize)
	}
	switch s.Split {
	case "whitespace", "character", "none":
	default:
		return l.errorf("split %q is not one of whitespace, character, none", s.Split)
	}
	if s.Ngrams < 0 {
		return l.errorf("ngrams must be >= 0, got %d", s.Ngrams)
	}
	if s.Ngrams > 0 && s.NgramWidths != nil {
		return l.errorf("give Ngrams or NgramWidths, not both")
	}
	for i := 1; i <= s.Ngrams; i++ {
		l.widths = append(l.widths, i)
	}
	for _, w := range s.NgramWidths {
		if w < 1 {
			return l.errorf("ngram width %d in %v is not positive", w, s.NgramWidths)
		}
		l.widths = append(l.widths, w)
	}
	noSplit := s.Split == "none" && s.SplitFunc == nil
	if l.widths != nil && noSplit {
		return l.errorf("ngrams need a split")
	}
	if s.OutputSequenceLength < 0 {
		return l.errorf("output_sequence_length must be >= 0, got %d", s.OutputSequenceLength)
	}
	if s.OutputSequenceLength > 0 && s.OutputMode != "int" {
		return l.errorf("output_sequence_length is only for output_mode int, got %q", s.OutputMode)
	}
	if s.OutputSequenceLength > 0 && noSplit {
		return l.errorf("output_sequence_length needs a split (without one each input is one token)")
	}
	if s.OutputMode == "one_hot" && !noSplit {
		return l.errorf("output_mode one_hot needs split none (one token per input)")
	}
	return nil
}

// Err returns the settings error the layer was made with, if any.
func (l *TextVectorization) Err() error { return l.err }

// Name returns the layer's name.
func (l *TextVectorization) Name() string { return l.s.Name }

// Lookup is the StringLookup inside (Keras' _lookup_layer).
func (l *TextVectorization) Lookup() *StringLookup { return l.lookup }

// textPunctuation is the ASCII punctuation Keras' strip_punctuation removes.
const textPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// standardize applies the configured standardization to one input.
func (l *TextVectorization) standardize(x string) string {
	if l.s.Standardize == "lower" || l.s.Standardize == "lower_and_strip_punctuation" {
		b := []byte(x)
		for i, c := range b {
			if 'A' <= c && c <= 'Z' {
				b[i] = c + 'a' - 'A'
			}
		}
		x = string(b)
	}
	if l.s.Standardize == "strip_punctuation" || l.s.Standardize == "lower_and_strip_punctuation" {
		x = strings.Map(func(r rune) rune {
			if r < utf8.RuneSelf && strings.ContainsRune(textPunctuation, r) {
				return -1
			}
			return r
		}, x)
	}
	if l.s.StandardizeFunc != nil {
		x = l.s.StandardizeFunc(x)
	}
	return x
}

// isASCIISpace is TensorFlow's whitespace for tf.strings.split.
func isASCIISpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r'
}

// tokens standardizes, splits and adds the n-grams of one input.
func (l *TextVectorization) tokens(x string) []string {
	x = l.standardize(x)
	var t []string
	switch {
	case l.s.SplitFunc != nil:
		t = l.s.SplitFunc(x)
	case l.s.Split == "whitespace":
		t = strings.FieldsFunc(x, isASCIISpace)
	case l.s.Split == "character":
		for _, r := range x {
			t = append(t, string(r))
		}
	default:
		return []string{x}
	}
	if l.widths == nil {
		return t
	}
	var g []string
	for _, w := range l.widths {
		for i := 0; i+w <= len(t); i++ {
			g = append(g, strings.Join(t[i:i+w], " "))
		}
	}
	return g
}

func (l *TextVectorization) split() bool { return l.s.Split != "none" || l.s.SplitFunc != nil }

// Adapt learns the vocabulary (and in "tf_idf" mode the document
// frequencies) from docs, each one document.
func (l *TextVectorization) Adapt(docs []string) error {
	if l.err != nil {
		return l.err
	}
	rows := make([][]string, len(docs))
	for i, d := range docs {
		rows[i] = l.tokens(d)
	}
	return l.wrap(l.lookup.AdaptRows(rows))
}

// wrap renames the inner lookup's errors after this layer.
func (l *TextVectorization) wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("layers: TextVectorization %q: %s", l.s.Name,
		strings.TrimPrefix(err.Error(), fmt.Sprintf("layers: StringLookup %q: ", l.s.Name)))
}

// Call vectorizes a batch of documents. "int" gives token ids, shape
// (n, length), padded with 0 and cut to OutputSequenceLength (or padded to
// the longest document when it is 0); with Split "none", one id per input,
// shape (n). "multi_hot", "count" and "tf_idf" give (n, depth); with Split
// "none" one (depth) encoding of all inputs, as Keras does for a 1-D
// input; "one_hot" (Split "none") gives (n, depth).
func (l *TextVectorization) Call(docs []string) (*tensor.Dense, error) {
	if l.err != nil {
		return nil, l.err
	}
	if !l.split() {
		toks := make([]string, len(docs))
		for i, d := range docs {
			toks[i] = l.standardize(d)
		}
		t, err := l.lookup.Call(toks)
		return t, l.wrap(err)
	}
	rows := make([][]string, len(docs))
	for i, d := range docs {
		rows[i] = l.tokens(d)
	}
	if l.s.OutputMode != "int" {
		t, err := l.lookup.encodeRows(rows)
		return t, l.wrap(err)
	}
	n := l.s.OutputSequenceLength
	if n == 0 {
		for _, r := range rows {
			n = max(n, len(r))
		}
	}
	out := make([]float32, len(rows)*n)
	for i, r := range rows {
		ids, err := l.lookup.ids(r[:min(len(r), n)])
		if err != nil {
			return nil, l.wrap(err)
		}
		for j, v := range ids {
			out[i*n+j] = float32(v)
		}
	}
	if len(out) == 0 && l.s.OutputSequenceLength == 0 {
		return nil, l.errorf("no token in any of the %d documents: Keras' output would be of shape (%d, 0), which a gorgonia tensor cannot hold; set OutputSequenceLength", len(rows), len(rows))
	}
	t, err := l.lookup.dense(out, len(rows), n)
	return t, l.wrap(err)
}

// GetVocabulary returns the vocabulary in index order, with "" and
// "[UNK]" first when includeSpecial.
func (l *TextVectorization) GetVocabulary(includeSpecial bool) []string {
	if l.lookup == nil {
		return nil
	}
	return l.lookup.GetVocabulary(includeSpecial)
}

// SetVocabulary replaces the vocabulary, as StringLookup.SetVocabulary.
func (l *TextVectorization) SetVocabulary(vocabulary []string, idf []float64) error {
	if l.err != nil {
		return l.err
	}
	return l.wrap(l.lookup.SetVocabulary(vocabulary, idf))
}

// VocabularySize is the number of indices, padding and OOV included.
func (l *TextVectorization) VocabularySize() int {
	if l.lookup == nil {
		return 0
	}
	return l.lookup.VocabularySize()
}

// GetConfig returns Keras' TextVectorization config. A Go standardize or
// split function is written as a Keras registered function named by
// StandardizeName / SplitName; TextVectorizationFromConfig needs the
// function back.
func (l *TextVectorization) GetConfig() map[string]any {
	fn := func(name, def string) any {
		if name == "" {
			name = def
		}
		return map[string]any{"module": "builtins", "class_name": "function", "config": name, "registered_name": "function"}
	}
	var std, split, ngrams, seq, maxTokens, vocab, idf any
	std, split = l.s.Standardize, l.s.Split
	if l.s.Standardize == "none" {
		std = nil
	}
	if l.s.StandardizeFunc != nil {
		std = fn(l.s.StandardizeName, "custom_standardize")
	}
	if l.s.Split == "none" {
		split = nil
	}
	if l.s.SplitFunc != nil {
		split = fn(l.s.SplitName, "custom_split")
	}
	if l.s.Ngrams > 0 {
		ngrams = l.s.Ngrams
	} else if l.s.NgramWidths != nil {
		ngrams = slices.Clone(l.s.NgramWidths)
	}
	if l.s.OutputSequenceLength > 0 {
		seq = l.s.OutputSequenceLength
	}
	if l.s.MaxTokens > 0 {
		maxTokens = l.s.MaxTokens
	}
	if l.s.Vocabulary != nil {
		vocab = slices.Clone(l.s.Vocabulary)
	}
	if l.s.IDFWeights != nil {
		idf = slices.Clone(l.s.IDFWeights)
	}
	return map[string]any{
		"name":                   l.s.Name,
		"trainable":              true,
		"dtype":                  textLayerDtype(),
		"max_tokens":             maxTokens,
		"standardize":            std,
		"split":                  split,
		"ngrams":                 ngrams,
		"output_mode":            l.s.OutputMode,
		"output_sequence_length": seq,
		"pad_to_max_tokens":      l.s.PadToMaxTokens,
		"sparse":                 false,
		"ragged":                 false,
		"vocabulary":             vocab,
		"idf_weights":            idf,
		"encoding":               "utf-8",
		"vocabulary_size":        l.VocabularySize(),
	}
}

// TextVectorizationFuncs gives TextVectorizationFromConfig the Go
// functions a config names as custom standardize or split functions.
type TextVectorizationFuncs struct {
	Standardize func(string) string
	Split       func(string) []string
}

// TextVectorizationFromConfig makes a TextVectorization from Keras' config
// (as JSON decodes it). A config naming a custom standardize or split
// function needs it in funcs. An adapted vocabulary is not in the config:
// load it with Lookup().LoadAssets (or SetVocabulary).
func TextVectorizationFromConfig(c map[string]any, funcs TextVectorizationFuncs) (*TextVectorization, error) {
	ls, err := lookupSettingsFromConfig("TextVectorization", c)
	if err != nil {
		return nil, err
	}
	s := TextVectorizationSettings{Name: ls.Name, MaxTokens: ls.MaxTokens, OutputMode: ls.OutputMode,
		PadToMaxTokens: ls.PadToMaxTokens, Vocabulary: ls.Vocabulary, IDFWeights: ls.IDFWeights}
	bad := func(k string) error { return fmt.Errorf("layers: TextVectorization config: bad %s %v", k, c[k]) }
	fnName := func(v any) string {
		m, _ := v.(map[string]any)
		n, _ := m["config"].(string)
		return n
	}
	switch v := c["standardize"].(type) {
	case nil:
		if _, ok := c["standardize"]; ok {
			s.Standardize = "none"
		}
	case string:
		s.Standardize = v
	case map[string]any:
		if funcs.Standardize == nil {
			return nil, fmt.Errorf("layers: TextVectorization config: standardize is the function %q: pass it in TextVectorizationFuncs", fnName(v))
		}
		s.Standardize, s.StandardizeFunc, s.StandardizeName = "none", funcs.Standardize, fnName(v)
	default:
		return nil, bad("standardize")
	}
	switch v := c["split"].(type) {
	case nil:
		if _, ok := c["split"]; ok {
			s.Split = "none"
		}
	case string:
		s.Split = v
	case map[string]any:
		if funcs.Split == nil {
			return nil, fmt.Errorf("layers: TextVectorization config: split is the function %q: pass it in TextVectorizationFuncs", fnName(v))
		}
		s.SplitFunc, s.SplitName = funcs.Split, fnName(v)
	default:
		return nil, bad("split")
	}
	intOf := func(v any) (int, bool) {
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) || f < 0 || f > math.MaxInt32 {
			return 0, false
		}
		return int(f), true
	}
	switch v := c["ngrams"].(type) {
	case nil:
	case float64:
		n, ok := intOf(v)
		if !ok {
			return nil, bad("ngrams")
		}
		s.Ngrams = n
	case []any:
		s.NgramWidths = []int{}
		for _, w := range v {
			n, ok := intOf(w)
			if !ok {
				return nil, bad("ngrams")
			}
			s.NgramWidths = append(s.NgramWidths, n)
		}
	default:
		return nil, bad("ngrams")
	}
	if v, ok := c["output_sequence_length"]; ok && v != nil {
		n, ok := intOf(v)
		if !ok {
			return nil, bad("output_sequence_length")
		}
		s.OutputSequenceLength = n
	}
	if v, ok := c["ragged"].(bool); ok && v {
		return nil, fmt.Errorf("layers: TextVectorization config: ragged=True: gokeras has no ragged tensors")
	}
	l := NewTextVectorization(s)
	return l, l.err
}
