package layers

import (
	"fmt"
	"slices"

	"github.com/gokeras/gokeras/ops"
)

// HashingSettings are the arguments of keras.layers.Hashing beside
// num_bins. The zero value is Keras' default: no mask value, no salt
// (FarmHash Fingerprint64), output "int".
type HashingSettings struct {
	// MaskValue, when not nil, goes to bin 0 and the other values to bins
	// 1..num_bins-1.
	MaskValue *int64
	// Salt, when not nil, switches to SipHash-2-4 keyed by it (Keras'
	// salt; a single integer s is [s, s]).
	Salt *[2]uint64
	// OutputMode is "int" (the default), "one_hot", "multi_hot" or
	// "count" of the bins (see CategoryEncoding).
	OutputMode string
}

// Hashing is keras.layers.Hashing for integer inputs (float32 carrying
// integers; the fraction is dropped): each value's decimal string hashed
// as TensorFlow's to_hash_bucket_fast (FarmHash Fingerprint64) or, with a
// salt, to_hash_bucket_strong (SipHash-2-4), modulo num_bins, as Keras
// does with integer tensors. Keras hashes string tensors directly; gokeras'
// float32 graph carries no strings, and float inputs would hash Keras'
// float formatting, which this layer does not reproduce. No gradient.
//
// Python: keras.layers.Hashing(num_bins=3, salt=133)
// Go:     layers.NewHashing(3, layers.HashingSettings{Salt: &[2]uint64{133, 133}})
type Hashing struct {
	Base
	numBins int
	s       HashingSettings
}

// NewHashing makes a Hashing layer. Options: WithName, WithInputShape.
func NewHashing(numBins int, s HashingSettings, opts ...Option) *Hashing {
	if s.OutputMode == "" {
		s.OutputMode = "int"
	}
	l := &Hashing{numBins: numBins, s: s}
	l.init("Hashing", nil, opts)
	switch {
	case l.err != nil:
	case numBins <= 0 || numBins > 1<<24:
		l.err = fmt.Errorf("layers: Hashing %q: num_bins must be in [1, 2^24], got %d", l.name, numBins)
	case !slices.Contains([]string{"int", "one_hot", "multi_hot", "count"}, s.OutputMode):
		l.err = fmt.Errorf("layers: Hashing %q: output_mode %q is not one of int, one_hot, multi_hot, count", l.name, s.OutputMode)
	}
	return l
}

// Build implements Layer.
func (l *Hashing) Build(in []ops.Shape) error {
	if err := checkEncodable(in[0], l.s.OutputMode); err != nil {
		return err
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Hashing) Call(in []ops.Tensor, _ bool) ops.Tensor {
	if err := checkEncodable(in[0].Shape(), l.s.OutputMode); err != nil {
		panic(&ops.Error{Op: "Hashing " + l.name, Msg: err.Error()})
	}
	a := ops.HashBucketAttrs{NumBins: l.numBins}
	if l.s.Salt != nil {
		a.Salt, a.Strong = *l.s.Salt, true
	}
	if l.s.MaskValue != nil {
		a.Mask, a.HasMask = *l.s.MaskValue, true
	}
	return encodeCategorical(ops.HashBucket(in[0], a), l.s.OutputMode, l.numBins)
}

// GetConfig implements Layer.
func (l *Hashing) GetConfig() map[string]any {
	m := l.baseConfig()
	m["num_bins"] = l.numBins
	m["salt"], m["mask_value"] = nil, nil
	if l.s.Salt != nil {
		m["salt"] = []any{int(l.s.Salt[0]), int(l.s.Salt[1])}
	}
	if l.s.MaskValue != nil {
		m["mask_value"] = int(*l.s.MaskValue)
	}
	m["output_mode"] = l.s.OutputMode
	m["sparse"] = false
	return m
}
