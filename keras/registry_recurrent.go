package keras

import (
	"github.com/gokeras/gokeras/keras/layers"
)

// The recurrent layers and the layers around them, rebuilt from Keras'
// configs: LSTM, GRU, SimpleRNN (the cell's keys flat beside the RNN's),
// RNN over a built-in cell, Bidirectional and TimeDistributed (the wrapped
// layer as {"class_name", "config"}), RepeatVector and Masking.
func init() {
	builtin("LSTM", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewLSTM(c.int("units", 0), append(o, c.recurrentOptions(true)...)...)
	})
	builtin("GRU", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewGRU(c.int("units", 0), append(o, c.recurrentOptions(true)...)...)
	})
	builtin("SimpleRNN", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewSimpleRNN(c.int("units", 0), append(o, c.recurrentOptions(true)...)...)
	})
	builtin("RNN", func(c *cfgReader, o []layers.Option) layers.Layer {
		cell := c.cell("cell")
		if cell == nil {
			return nil
		}
		return layers.NewRNN(cell, append(o, c.recurrentOptions(false)...)...)
	})
	builtin("Bidirectional", func(c *cfgReader, o []layers.Option) layers.Layer {
		inner := c.layer("layer")
		if inner == nil {
			return nil
		}
		if c.present("merge_mode") {
			o = append(o, layers.WithMergeMode(c.str("merge_mode", "concat")))
		} else if _, ok := c.m["merge_mode"]; ok {
			c.fail("merge_mode None (a list of both outputs) is not supported")
		}
		if c.present("backward_layer") {
			if b := c.layer("backward_layer"); b != nil {
				o = append(o, layers.WithBackwardLayer(b))
			}
		}
		c.unsupported("weights")
		return layers.NewBidirectional(inner, o...)
	})
	builtin("TimeDistributed", func(c *cfgReader, o []layers.Option) layers.Layer {
		inner := c.layer("layer")
		if inner == nil {
			return nil
		}
		return layers.NewTimeDistributed(inner, o...)
	})
	builtin("RepeatVector", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewRepeatVector(c.int("n", 0), o...)
	})
	builtin("Masking", func(c *cfgReader, o []layers.Option) layers.Layer {
		if c.present("mask_value") {
			o = append(o, layers.WithMaskValue(c.float("mask_value", 0)))
		}
		return layers.NewMasking(o...)
	})
}

// recurrentOptions reads the keys of the built-in cells (withCell) and
// of the RNN layer.
func (c *cfgReader) recurrentOptions(withCell bool) []layers.Option {
	var o []layers.Option
	if withCell {
		o = append(o, c.cellOptions()...)
	}
	for _, k := range []struct {
		key string
		opt func(bool) layers.Option
	}{
		{"return_sequences", layers.WithReturnSequences},
		{"return_state", layers.WithReturnState},
		{"go_backwards", layers.WithGoBackwards},
		{"stateful", layers.WithStateful},
		{"unroll", layers.WithUnroll},
		{"zero_output_for_mask", layers.WithZeroOutputForMask},
	} {
		if c.present(k.key) {
			o = append(o, k.opt(c.bool(k.key, false)))
		}
	}
	return o
}

// cellOptions reads the keys of LSTMCell, GRUCell and SimpleRNNCell.
func (c *cfgReader) cellOptions() []layers.Option {
	o := c.kernelOptions()
	if c.present("recurrent_activation") {
		o = append(o, layers.WithRecurrentActivation(activationName(c.m["recurrent_activation"])))
	}
	if i := c.recurrentInitializer(); i != nil {
		o = append(o, layers.WithRecurrentInitializer(i))
	}
	if r := c.regularizer("recurrent_regularizer"); r != nil {
		o = append(o, layers.WithRecurrentRegularizer(r))
	}
	if c.present("unit_forget_bias") {
		o = append(o, layers.WithUnitForgetBias(c.bool("unit_forget_bias", true)))
	}
	if c.present("reset_after") {
		o = append(o, layers.WithResetAfter(c.bool("reset_after", true)))
	}
	if c.present("dropout") {
		o = append(o, layers.WithInputDropout(c.float("dropout", 0)))
	}
	if c.present("recurrent_dropout") {
		o = append(o, layers.WithRecurrentDropout(c.float("recurrent_dropout", 0)))
	}
	if c.present("seed") {
		o = append(o, layers.WithSeed(int64(c.int("seed", 0))))
	}
	if c.present("implementation") {
		if n := c.int("implementation", 2); n != 1 && n != 2 {
			c.fail("implementation must be 1 or 2, got %d", n)
		}
	}
	if c.present("use_cudnn") {
		if s, ok := c.m["use_cudnn"].(string); !ok || s != "auto" {
			if b, ok := c.m["use_cudnn"].(bool); !ok || b {
				c.fail("use_cudnn = %v is not supported", c.m["use_cudnn"])
			}
		}
	}
	o = append(o, c.weightOptions("recurrent_constraint")...) // registry_more_layers_constraints.go
	return o
}

// recurrentInitializer reads recurrent_initializer, Orthogonal included.
func (c *cfgReader) recurrentInitializer() layers.Initializer {
	const key = "recurrent_initializer"
	v := c.m[key]
	var class string
	var args map[string]any
	switch v := v.(type) {
	case nil:
		return nil
	case string:
		class = v
	case map[string]any:
		class, args = classAndConfig(v)
	}
	if class == "Orthogonal" || class == "orthogonal" {
		a := &cfgReader{m: args}
		g := a.float("gain", 1)
		if a.err != nil {
			c.fail("%s: %v", key, a.err)
		}
		return layers.Orthogonal(g)
	}
	return c.initializer(key, "")
}

// layer reads a nested layer {"class_name", "config"} through the registry.
func (c *cfgReader) layer(key string) layers.Layer {
	v, ok := c.m[key].(map[string]any)
	if !ok {
		c.fail("%s: want a layer {class_name, config}, got %v", key, c.m[key])
		return nil
	}
	class, cfg := classAndConfig(v)
	l, err := LayerFromConfig(class, cfg)
	if err != nil {
		c.fail("%s: %v", key, err)
		return nil
	}
	return l
}

// cell reads a built-in cell {"class_name", "config"}.
func (c *cfgReader) cell(key string) layers.Cell {
	v, ok := c.m[key].(map[string]any)
	if !ok {
		c.fail("%s: want a cell {class_name, config}, got %v", key, c.m[key])
		return nil
	}
	class, cfg := classAndConfig(v)
	r := &cfgReader{m: cfg}
	o := r.common()
	o = append(o, r.cellOptions()...)
	units := r.int("units", 0)
	var cell layers.Cell
	switch class {
	case "LSTMCell":
		cell = layers.NewLSTMCell(units, o...)
	case "GRUCell":
		cell = layers.NewGRUCell(units, o...)
	case "SimpleRNNCell":
		cell = layers.NewSimpleRNNCell(units, o...)
	default:
		c.fail("%s: cell class %q: only LSTMCell, GRUCell and SimpleRNNCell are rebuilt from configs; build an RNN over a user's cell in Go", key, class)
		return nil
	}
	if r.err != nil {
		c.fail("%s: %v", key, r.err)
		return nil
	}
	if err := cell.Err(); err != nil {
		c.fail("%s: %w", key, err)
		return nil
	}
	return cell
}
