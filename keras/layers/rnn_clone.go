package layers

import (
	"fmt"
	"math/rand/v2"

	"github.com/gokeras/gokeras/ops"
)

// recurrent is what Bidirectional needs of the layers it wraps.
type recurrent interface {
	Layer
	CallWithStates(x ops.Tensor, initial []ops.Tensor, training bool) (ops.Tensor, []ops.Tensor)
	rnnOptions() rnnConfig
	// cloneAs makes a new layer of the same class and arguments under
	// another name, reading in the given direction, with
	// zero_output_for_mask set as given (Bidirectional's copies).
	cloneAs(name string, goBackwards, zeroOutputForMask bool) (recurrent, error)
}

func (l *RNN) rnnOptions() rnnConfig { return l.cfg.rnn }

// clonedConfig copies the layer's parsed arguments for a copy of it.
func (l *RNN) clonedConfig(name string, goBackwards, zeroOut bool) *config {
	c := *l.cfg
	c.set = map[string]bool{}
	for k, v := range l.cfg.set {
		c.set[k] = v
	}
	c.name = name
	c.rnn.goBackwards = goBackwards
	c.rnn.zeroOutputForMask = zeroOut
	c.set["go_backwards"], c.set["zero_output_for_mask"] = true, true
	return &c
}

// initWith sets up the Base of a layer from an already parsed config.
func (b *Base) initWith(class string, c *config) {
	b.class, b.cfg, b.trainable = class, c, c.trainable
	b.name = c.name
	if b.name == "" {
		b.name = UniqueName(snake(class))
	}
	seed := nextSeed()
	if c.hasSeed {
		seed = uint64(c.seed)
	}
	b.rng = rand.New(rand.NewPCG(seed, 0x5851f42d4c957f2d))
}

func (l *RNN) cloneAs(name string, back, zero bool) (recurrent, error) {
	return nil, fmt.Errorf("layers: %s %q: an RNN over a user's cell cannot be copied; give Bidirectional the backward layer (WithBackwardLayer)", l.class, l.name)
}

func (l *LSTM) cloneAs(name string, back, zero bool) (recurrent, error) {
	n := &LSTM{}
	n.initWith("LSTM", l.clonedConfig(name, back, zero))
	n.Cell = newLSTMCell(l.Cell.units, n.name, n.cfg, nil)
	n.initRNN(n.Cell)
	return n, n.err
}

func (l *GRU) cloneAs(name string, back, zero bool) (recurrent, error) {
	n := &GRU{}
	n.initWith("GRU", l.clonedConfig(name, back, zero))
	n.Cell = newGRUCell(l.Cell.units, n.name, n.cfg, nil)
	n.initRNN(n.Cell)
	return n, n.err
}

func (l *SimpleRNN) cloneAs(name string, back, zero bool) (recurrent, error) {
	n := &SimpleRNN{}
	n.initWith("SimpleRNN", l.clonedConfig(name, back, zero))
	n.Cell = newSimpleRNNCell(l.Cell.units, n.name, n.cfg, nil)
	n.initRNN(n.Cell)
	return n, n.err
}
