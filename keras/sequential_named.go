package keras

import "github.com/gokeras/gokeras/keras/layers"

// NewNamedSequential is [NewSequential] with the model's name given, as
// keras.Sequential(layers, name=name): the name a nested Sequential
// shows in its outer model's layers and summary (ConvNeXt's
// "convnext_tiny_stem").
func NewNamedSequential(name string, ls ...layers.Layer) (*Model, error) {
	m, err := NewSequential()
	if err != nil {
		return nil, err
	}
	m.name = name
	for _, l := range ls {
		if err := m.Add(l); err != nil {
			return nil, err
		}
	}
	return m, nil
}
