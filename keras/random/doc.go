// Package random is keras.random: random tensors drawn from seed
// generators whose state is a variable, as in Keras 3.
//
// # Overview
//
// A [SeedGenerator] holds its state, [seed, counter], in a non-trainable
// variable that advances by one at every draw. [Normal] and [Uniform]
// draw concrete tensors at once; [NormalIn] and [UniformIn] add the draw
// to a traced step (a custom train step, a keras.Function), where it
// draws afresh at every replay. The seed of a draw is an option:
//
//	gen := random.NewSeedGenerator(1337)
//	x, err := random.Normal([]int{2, 3}, random.Generator(gen)) // advances gen
//	y, err := random.Uniform([]int{4}, random.MinVal(-1), random.MaxVal(1), random.Seed(7))
//
// With [Seed] (an integer) a draw is stateless: the same seed gives the
// same values at every call, as Keras' seed=7. With no seed option, draws
// come from the package's global generator, seeded from the global random
// state and made afresh by layers.SetRandomSeed, as
// keras.utils.set_random_seed resets Keras' global generator.
//
// Dropout and the random augmentation layers draw from generators of
// their own (layers.Seeded); keras.Checkpoint saves their states, so a
// training run resumed from a checkpoint draws the same masks as an
// uninterrupted one.
package random
