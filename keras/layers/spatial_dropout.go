package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// SpatialDropout is keras.layers.SpatialDropout1D, 2D and 3D: in training,
// a dropout of whole feature maps, one draw per sample and channel shared
// by every step or pixel (the mask of shape (batch, 1, ..., channels)),
// the kept ones scaled by 1/(1-rate), since neighbouring pixels of a map
// are too correlated for element dropout to regularize; in inference it
// is the identity. The inputs are channels last.
type SpatialDropout struct {
	Base
	seedGen
	rate float64
	rank int // of the input: 3, 4 or 5
}

func newSpatialDropout(class string, rank int, rate float64, opts []Option) *SpatialDropout {
	l := &SpatialDropout{rate: rate, rank: rank}
	l.init(class, []string{"seed"}, opts)
	l.initSeed(&l.Base)
	if !(rate >= 0 && rate < 1) && l.err == nil {
		l.err = fmt.Errorf("layers: %s %q: rate must be in [0, 1), got %v", class, l.name, rate)
	}
	return l
}

// NewSpatialDropout1D makes a SpatialDropout1D layer for (batch, steps,
// channels) inputs. Options: WithSeed, WithName.
func NewSpatialDropout1D(rate float64, opts ...Option) *SpatialDropout {
	return newSpatialDropout("SpatialDropout1D", 3, rate, opts)
}

// NewSpatialDropout2D makes a SpatialDropout2D layer for (batch, height,
// width, channels) inputs. Options: WithSeed, WithName, WithDataFormat
// ("channels_last").
func NewSpatialDropout2D(rate float64, opts ...Option) *SpatialDropout {
	return newSpatialDropout("SpatialDropout2D", 4, rate, opts)
}

// NewSpatialDropout3D makes a SpatialDropout3D layer for (batch, depth,
// height, width, channels) inputs. Options: WithSeed, WithName,
// WithDataFormat ("channels_last").
func NewSpatialDropout3D(rate float64, opts ...Option) *SpatialDropout {
	return newSpatialDropout("SpatialDropout3D", 5, rate, opts)
}

// Build implements Layer.
func (l *SpatialDropout) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != l.rank {
		return fmt.Errorf("needs one input of rank %d (channels last), got %v", l.rank, shapesStr(in))
	}
	if l.rate > 0 {
		l.generator(l.name)
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *SpatialDropout) Call(in []ops.Tensor, training bool) ops.Tensor {
	x := in[0]
	checkRank(l, x, l.rank)
	if !training || l.rate == 0 {
		return x
	}
	s := x.Shape()
	noise := make(ops.Shape, len(s))
	for i := range noise {
		noise[i] = 1
	}
	noise[0], noise[len(s)-1] = s[0], s[len(s)-1]
	ones := make([]float32, noise.Size())
	for i := range ones {
		ones[i] = 1
	}
	mask := ops.SeededDropout(x.Trace().Constant(noise, ones), float32(l.rate), l.generator(l.name))
	return ops.Mul(x, mask)
}

// GetConfig implements Layer.
func (l *SpatialDropout) GetConfig() map[string]any {
	m := l.baseConfig()
	// Keras' SpatialDropout configs have no trainable, and its
	// constructors take no such keyword: Keras refuses a file that has it.
	delete(m, "trainable")
	m["rate"] = l.rate
	m["seed"] = seedConfig(l.cfg)
	if l.rank > 3 {
		m["data_format"] = "channels_last"
	}
	return m
}
