package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// Seeded is implemented by layers that draw random numbers (Dropout and
// the random augmentation layers) from seed generators, Keras 3's
// layer._seed_generators. Each generator's state is a non-trainable
// variable that advances at every draw; checkpoints save it, so a run
// restored from a checkpoint draws what an uninterrupted run would have
// drawn. The states are not weights: as in Keras, Weights, get_weights
// and .keras files leave them out.
type Seeded interface {
	SeedGenerators() []*ops.SeedGenerator
}

// SeedGenerators returns the seed generators of l (none unless l is
// [Seeded]).
func SeedGenerators(l Layer) []*ops.SeedGenerator {
	if s, ok := l.(Seeded); ok {
		return s.SeedGenerators()
	}
	// A user's layer: the generators in its fields, then its sublayers'
	// (a Dropout inside).
	var out []*ops.SeedGenerator
	if h, ok := l.(baseHolder); ok {
		Track(l)
		out = h.layerBase().trackedSeedGenerators()
	}
	for _, sub := range Sublayers(l) {
		out = append(out, SeedGenerators(sub)...)
	}
	return out
}

// seedGen is the seed generator of a random layer, as Keras' layers make
// self.seed_generator = SeedGenerator(seed) in __init__. The seed is
// fixed when the layer is made (WithSeed, or drawn from the layer's own
// stream, which SetRandomSeed seeds); the state variable is made in
// Build, under the model's strategy, so that it is mirrored like weights.
type seedGen struct {
	seed uint64
	gen  *ops.SeedGenerator
}

func (s *seedGen) initSeed(b *Base) {
	if b.cfg != nil && b.cfg.hasSeed {
		s.seed = uint64(b.cfg.seed)
		return
	}
	s.seed = b.rng.Uint64()
}

// generator returns the generator, making it on first use.
func (s *seedGen) generator(layer string) *ops.SeedGenerator {
	if s.gen == nil {
		s.gen = ops.NewSeedGenerator(layer+"/seed_generator_state", s.seed)
	}
	return s.gen
}

// SeedGenerators implements [Seeded].
func (s *seedGen) SeedGenerators() []*ops.SeedGenerator {
	if s.gen == nil {
		return nil
	}
	return []*ops.SeedGenerator{s.gen}
}
