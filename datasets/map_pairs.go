package datasets

import (
	"fmt"

	"gorgonia.org/tensor"
)

// MapPairs is Map for a dataset of (x, y) pairs, such as the (images,
// labels) batches of keras/utils.ImageDatasetFromDirectory: fn gets the
// two tensors of an element and returns the two of the new element, as
// tf.data's ds.map(lambda x, y: ...) unpacks a tuple:
//
//	ds = ds.map(lambda x, y: (tf.image.resize(x, (180, 180)), y))
//
//	ds = ds.MapPairs(func(x, y *tensor.Dense) (*tensor.Dense, *tensor.Dense, error) {
//		x, err := datasets.Resize(x, 180, 180)
//		return x, y, err
//	})
//
// An element with other than two tensors ends the pass with an error that
// says how many it has. As with Map, fn must not modify its inputs in
// place.
func (d *Dataset) MapPairs(fn func(x, y *tensor.Dense) (*tensor.Dense, *tensor.Dense, error)) *Dataset {
	if fn == nil {
		return d.Map(nil)
	}
	return d.Map(func(e Element) (Element, error) {
		if len(e) != 2 {
			return nil, fmt.Errorf("datasets: MapPairs: the element has %d tensor(s), not an (x, y) pair", len(e))
		}
		x, y, err := fn(e[0], e[1])
		if err != nil {
			return nil, err
		}
		return Element{x, y}, nil
	})
}
