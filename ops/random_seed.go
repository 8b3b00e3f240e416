package ops

import (
	"math"
	"math/rand/v2"
)

// SeedGenerator is the state of a stream of random draws, as Keras 3's
// keras.random.SeedGenerator: a non-trainable variable of shape (2,)
// holding [seed, counter] that advances by one at every draw. A random op
// made with a generator draws from the state it reads at each replay (and
// from the replica it runs on), and a hook advances the state after the
// replay; so the draws are a function of the state alone, and a run
// restored from a checkpoint that holds the state draws what an
// uninterrupted run would have drawn.
//
// The variable stores float32, as every variable: the seed is folded to 24
// bits, and the counter counts to 2^24 before it wraps to 0 and moves the
// seed on by one (2^48 distinct draws).
type SeedGenerator struct {
	state *Variable
}

// seedSpan is the range of integers a float32 holds exactly.
const seedSpan = 1 << 24

// NewSeedGenerator makes a generator whose state variable is named name
// (Keras names it "<generator>/seed_generator_state") and starts at
// [seed, 0]. Made while a strategy is in scope, the state is mirrored like
// every variable: each replica advances its own copy, identically.
func NewSeedGenerator(name string, seed uint64) *SeedGenerator {
	s := (seed ^ seed>>24 ^ seed>>48) % seedSpan
	return &SeedGenerator{state: NewVariable(name, Shape{2}, []float32{float32(s), 0}, false)}
}

// State is the generator's state variable, [seed, counter]: checkpoints
// save and restore it.
func (g *SeedGenerator) State() *Variable { return g.state }

// Next returns a generator for the current state and advances the state
// (every copy), as keras.random.SeedGenerator.next outside a traced step.
func (g *SeedGenerator) Next() *rand.Rand {
	g.state.mu.Lock()
	defer g.state.mu.Unlock()
	st := g.state.copies[0]
	r := rand.New(rand.NewPCG(stateSeeds(st, 0, 0)))
	for _, c := range g.state.copies {
		advanceSeedState(c, 1)
	}
	return r
}

// advanceSeedState moves state [seed, counter] on by n draws.
func advanceSeedState(st []float32, n int) {
	c := int(st[1]) + n
	st[0] = float32((int(st[0]) + c/seedSpan) % seedSpan)
	st[1] = float32(c % seedSpan)
}

// stateSeeds maps state st advanced by k draws (the k-th draw of a step,
// as Keras' next() advances the state at each draw) and the replica
// drawing to the two seeds of a PCG generator.
func stateSeeds(st []float32, k, replica int) (uint64, uint64) {
	c := int(st[1]) + k
	seed := (int(st[0]) + c/seedSpan) % seedSpan
	c %= seedSpan
	return mix64(uint64(seed)<<20 ^ uint64(replica)), mix64(uint64(c) ^ 0x9e3779b97f4a7c15)
}

// mix64 is SplitMix64's finalizer: nearby inputs give unrelated outputs.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// seedDraw is one draw of a generator in a trace: the state tensor to
// give the op as an input, and the generator the op's kernel reseeds from
// that state at each replay.
type seedDraw struct {
	g       *SeedGenerator
	state   Tensor
	k       int // earlier draws of the same generator in this trace
	replica int
	pcg     *rand.PCG
	r       *rand.Rand
}

type seedDrawsKey struct{ g *SeedGenerator }

// draw makes one draw of g per replay of tr: the op reads the state (every
// draw of a replay reads the state before the step; the k-th one draws as
// from the state advanced k times). The op's maker calls advance once the
// op is in the trace.
func (g *SeedGenerator) draw(tr *Trace) *seedDraw {
	k := 0
	if !tr.Eager() { // an eager draw's hook has advanced the state already
		key := seedDrawsKey{g}
		k, _ = tr.Attr(key).(int)
		tr.SetAttr(key, k+1)
	}
	pcg := rand.NewPCG(0, 0)
	return &seedDraw{g: g, state: tr.Read(g.state), k: k, replica: tr.replica, pcg: pcg, r: rand.New(pcg)}
}

// advance registers the hook that moves the state on by one after each
// replay (in an eager trace, at once: after the op ran).
func (d *seedDraw) advance(tr *Trace) {
	g := d.g
	adv := func(rc ReplicaContext) error {
		if frozenReplays.Load() {
			return nil
		}
		r := 0
		if rc != nil {
			r = rc.ReplicaID()
		}
		advanceSeedState(g.state.Data(r), 1)
		return nil
	}
	tr.AddHook(Hook{
		Name:  g.state.name + "/advance",
		Run:   func(rc ReplicaContext, _ []Value) error { return adv(rc) },
		Empty: adv,
	})
}

// next reseeds the draw's generator from the state value st, read by the
// op as an input at this replay.
func (d *seedDraw) next(st []float32) *rand.Rand {
	d.pcg.Seed(stateSeeds(st, d.k, d.replica))
	return d.r
}

// normalFill fills out with normal values of mean and stddev from r.
func normalFill(out []float32, r *rand.Rand, mean, stddev float32) {
	for i := range out {
		out[i] = mean + stddev*float32(r.NormFloat64())
	}
}

// uniformFill fills out with values uniform in [lo, hi) from r.
func uniformFill(out []float32, r *rand.Rand, lo, hi float32) {
	for i := range out {
		v := lo + (hi-lo)*r.Float32()
		if v >= hi { // rounding of lo + (hi-lo)*u may reach hi
			v = math.Nextafter32(hi, lo)
		}
		out[i] = v
	}
}
