package keras

import "github.com/gokeras/gokeras/keras/layers"

// ConvLSTM1D and ConvLSTM2D, rebuilt from Keras' configs: the window of
// a convolution and the keys of an LSTM (the cell's and the RNN's).
func init() {
	for _, class := range []string{"ConvLSTM1D", "ConvLSTM2D"} {
		builtin(class, func(c *cfgReader, o []layers.Option) layers.Layer {
			o, k := c.convWindow(o)
			o = append(o, c.recurrentOptions(true)...)
			if class == "ConvLSTM1D" {
				return layers.NewConvLSTM1D(c.int("filters", 0), k, o...)
			}
			return layers.NewConvLSTM2D(c.int("filters", 0), k, o...)
		})
	}
}
