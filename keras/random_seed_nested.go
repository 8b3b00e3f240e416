package keras

import (
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// SeedGenerators implements layers.Seeded: the seed generators of the
// nested model's layers (its Dropout, its random augmentation), so that
// checkpoints of the outer model save their states too.
func (l *ModelLayer) SeedGenerators() []*ops.SeedGenerator {
	var out []*ops.SeedGenerator
	for _, x := range l.m.Layers() {
		out = append(out, layers.SeedGenerators(x)...)
	}
	return out
}
