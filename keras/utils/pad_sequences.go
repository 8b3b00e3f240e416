package utils

import (
	"fmt"

	"gorgonia.org/tensor"
)

// MaxPadElements is the most elements (sequences times length) the
// result of [PadSequences] may hold: 1<<30 float32, 4 GiB.
const MaxPadElements = 1 << 30

// PadConfig holds pad_sequences' arguments. The zero value is Keras'
// default: the longest sequence's length, padding and truncating at the
// front ("pre"), padding with 0.
type PadConfig struct {
	// MaxLen is the length of every row; 0 means the longest sequence's.
	MaxLen int
	// Padding is "pre" (default: values before the sequence) or "post".
	Padding string
	// Truncating is "pre" (default: drop the first ids of a longer
	// sequence, keeping its end) or "post" (keep its start).
	Truncating string
	// Value fills the padding.
	Value float32
}

// PadSequences is keras.utils.pad_sequences: it returns a float32 tensor
// (len(seqs), maxlen) whose row i is sequence i cut or padded to maxlen,
// ready for an Embedding layer (gokeras carries ids as float32; ids must
// be below 2**24, which float32 holds exactly). In Python and in Go:
//
//	x = keras.utils.pad_sequences(x_train, maxlen=200)
//
//	x, err := utils.PadSequences(train.X, utils.PadConfig{MaxLen: 200})
func PadSequences(seqs [][]int, cfg PadConfig) (*tensor.Dense, error) {
	for _, s := range []struct{ name, v string }{{"padding", cfg.Padding}, {"truncating", cfg.Truncating}} {
		if s.v != "" && s.v != "pre" && s.v != "post" {
			return nil, fmt.Errorf("utils: PadSequences: %s must be \"pre\" or \"post\", got %q", s.name, s.v)
		}
	}
	if cfg.MaxLen < 0 {
		return nil, fmt.Errorf("utils: PadSequences: maxlen %d is negative", cfg.MaxLen)
	}
	n := cfg.MaxLen
	if n == 0 {
		for _, s := range seqs {
			n = max(n, len(s))
		}
	}
	if n > 0 && len(seqs) > MaxPadElements/n {
		return nil, fmt.Errorf("utils: PadSequences: %d sequences of %d ids are more than %d values", len(seqs), n, MaxPadElements)
	}
	out := make([]float32, len(seqs)*n)
	for i, s := range seqs {
		row := out[i*n : (i+1)*n]
		if len(s) > n {
			if cfg.Truncating == "post" {
				s = s[:n]
			} else {
				s = s[len(s)-n:]
			}
		}
		off := n - len(s)
		if cfg.Padding == "post" {
			off = 0
		}
		for j := range row {
			row[j] = cfg.Value
		}
		for j, id := range s {
			if id >= 1<<24 || id <= -1<<24 {
				return nil, fmt.Errorf("utils: PadSequences: sequence %d: id %d does not fit a float32 exactly", i, id)
			}
			row[off+j] = float32(id)
		}
	}
	return tensor.New(tensor.WithShape(len(seqs), n), tensor.WithBacking(out)), nil
}
