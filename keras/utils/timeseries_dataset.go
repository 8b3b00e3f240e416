package utils

import (
	"fmt"

	"github.com/gokeras/gokeras/datasets"
	"gorgonia.org/tensor"
)

// TimeseriesConfig is timeseries_dataset_from_array's keyword arguments.
// The zero value is Keras' defaults: windows starting at every step, every
// step sampled, batches of 128, in order, over the whole array.
type TimeseriesConfig struct {
	// SequenceStride is the step between the starts of successive windows
	// (default 1); SamplingRate the step between the rows of a window
	// (default 1).
	SequenceStride int
	SamplingRate   int
	// BatchSize is the batch size (default 128); NoBatch is Keras'
	// batch_size=None: the dataset yields single windows.
	BatchSize int
	NoBatch   bool
	// Shuffle shuffles the windows: their starts once by numpy's
	// RandomState(Seed), as Keras does, then each pass again (Keras'
	// tf.data shuffle of batch*8 windows; Dataset.Shuffle here, whose
	// orders are not TensorFlow's). Seed nil draws one.
	Shuffle bool
	Seed    *int64
	// StartIndex and EndIndex limit the windows to the rows from
	// StartIndex to EndIndex (exclusive), as Keras' start_index and
	// end_index; EndIndex 0 is the end of the data.
	StartIndex int
	EndIndex   int
}

// TimeseriesDatasetFromArray is keras.utils.timeseries_dataset_from_array:
// a dataset of sliding windows over the rows of data (axis 0 is time). The
// window starting at row i holds rows i, i+SamplingRate, ...,
// i+(sequenceLength-1)*SamplingRate, and its target, when targets is not
// nil, is targets[i]: a window of data[i:i+10] predicts targets[i]. Windows
// start every SequenceStride rows. Elements are (windows, targets), or
// windows alone without targets, in data's and targets' dtypes, batched
// into (batch, sequenceLength, features...).
//
//	dataset = keras.utils.timeseries_dataset_from_array(
//	    data, targets, sequence_length=10, batch_size=128)
//
//	dataset, err := utils.TimeseriesDatasetFromArray(data, targets, 10, utils.TimeseriesConfig{BatchSize: 128})
//
// As in Keras, StartIndex, EndIndex, SamplingRate and SequenceStride must
// lie within the data (EndIndex below its length); a window that does not
// fit is an error here, where Keras returns an empty dataset.
func TimeseriesDatasetFromArray(data, targets *tensor.Dense, sequenceLength int, cfg TimeseriesConfig) (*datasets.Dataset, error) {
	const what = "utils: TimeseriesDatasetFromArray"
	if data == nil {
		return nil, fmt.Errorf("%s: nil data", what)
	}
	if data.Dims() == 0 {
		return nil, fmt.Errorf("%s: data is a scalar; want one row per time step", what)
	}
	n := data.Shape()[0]
	stride, rate := cfg.SequenceStride, cfg.SamplingRate
	if stride == 0 {
		stride = 1
	}
	if rate == 0 {
		rate = 1
	}
	start, end := cfg.StartIndex, cfg.EndIndex
	switch {
	case sequenceLength <= 0:
		return nil, fmt.Errorf("%s: sequence_length %d, want > 0", what, sequenceLength)
	case start < 0:
		return nil, fmt.Errorf("%s: StartIndex %d, want 0 or greater", what, start)
	case start > 0 && start >= n:
		return nil, fmt.Errorf("%s: StartIndex %d, want lower than the length of the data, %d", what, start, n)
	case end != 0 && start > 0 && end <= start:
		return nil, fmt.Errorf("%s: EndIndex %d, want higher than StartIndex %d", what, end, start)
	case end != 0 && end >= n:
		return nil, fmt.Errorf("%s: EndIndex %d, want lower than the length of the data, %d", what, end, n)
	case end < 0:
		return nil, fmt.Errorf("%s: EndIndex %d, want higher than 0 (or 0 for the end)", what, end)
	case rate <= 0 || rate >= n:
		return nil, fmt.Errorf("%s: SamplingRate %d, want between 0 and the length of the data, %d", what, rate, n)
	case stride <= 0 || stride >= n:
		return nil, fmt.Errorf("%s: SequenceStride %d, want between 0 and the length of the data, %d", what, stride, n)
	case cfg.BatchSize < 0:
		return nil, fmt.Errorf("%s: BatchSize %d, want > 0 (or NoBatch)", what, cfg.BatchSize)
	}
	if end == 0 {
		end = n
	}
	numSeqs := end - start - (sequenceLength-1)*rate
	var tgt rows
	if targets != nil {
		if targets.Dims() == 0 {
			return nil, fmt.Errorf("%s: targets is a scalar; want one per time step", what)
		}
		// Keras takes min(num_seqs, len(targets)) and then fails reading
		// targets past their end when StartIndex > 0; the windows kept here
		// are those whose target exists.
		numSeqs = min(numSeqs, targets.Shape()[0]-start)
		var err error
		if tgt, err = rowsOf(targets); err != nil {
			return nil, fmt.Errorf("%s: targets: %w", what, err)
		}
	}
	if numSeqs <= 0 {
		return nil, fmt.Errorf("%s: no window of %d rows sampled every %d fits in rows %d to %d", what, sequenceLength, rate, start, end)
	}
	src, err := rowsOf(data)
	if err != nil {
		return nil, fmt.Errorf("%s: data: %w", what, err)
	}
	var pos []int32
	for p := 0; p < numSeqs; p += stride {
		pos = append(pos, int32(p))
	}
	seed := drawSeed(cfg.Seed)
	if cfg.Shuffle {
		perm, err := datasets.RandomStatePermutation(seed, len(pos))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		pos = permuted(pos, perm)
	}
	ds, err := datasets.FromTensorSlices(tensor.New(tensor.WithShape(len(pos)), tensor.WithBacking(pos)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	batch := cfg.BatchSize
	if batch == 0 {
		batch = 128
	}
	if cfg.Shuffle {
		buf := batch * 8
		if cfg.NoBatch {
			buf = 1024
		}
		ds = ds.Shuffle(buf, seed)
	}
	if !cfg.NoBatch {
		ds = ds.Batch(batch)
	}
	return ds.Map(func(e datasets.Element) (datasets.Element, error) {
		var ps []int32
		switch v := e[0].Data().(type) {
		case []int32:
			ps = v
		case int32:
			ps = []int32{v}
		}
		idx := make([]int, 0, len(ps)*sequenceLength)
		for _, p := range ps {
			for j := range sequenceLength {
				idx = append(idx, start+int(p)+j*rate)
			}
		}
		shape := []int{len(ps), sequenceLength}
		if cfg.NoBatch {
			shape = shape[1:]
		}
		out := datasets.Element{src.gather(idx, shape)}
		if targets != nil {
			ti := make([]int, len(ps))
			for i, p := range ps {
				ti[i] = start + int(p)
			}
			out = append(out, tgt.gather(ti, shape[:len(shape)-1]))
		}
		return out, nil
	}), nil
}
