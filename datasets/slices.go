package datasets

import (
	"errors"
	"fmt"
	"sort"

	"gorgonia.org/tensor"
)

// FromTensorSliceMap is tf.data.Dataset.from_tensor_slices over a dict
// ({"image": x, "label": y}): the i-th element holds row i of every
// tensor, as [FromTensorSlices] slices a tuple. An Element is a tuple, so
// the components come in the order of keys, which is returned: the map's
// keys sorted, as tf.nest orders a dict's entries.
func FromTensorSliceMap(m map[string]*tensor.Dense) (ds *Dataset, keys []string, err error) {
	if len(m) == 0 {
		return nil, nil, errors.New("datasets: FromTensorSliceMap: no tensors")
	}
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ts := make([]*tensor.Dense, len(keys))
	for i, k := range keys {
		if m[k] == nil {
			return nil, nil, fmt.Errorf("datasets: FromTensorSliceMap: tensor %q is nil", k)
		}
		ts[i] = m[k]
	}
	ds, err = FromTensorSlices(ts...)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (keys in order: %v)", err, keys)
	}
	return ds, keys, nil
}
