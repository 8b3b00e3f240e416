package datasets

import "fmt"

// RandomStatePermutation returns the order in which numpy's
// np.random.RandomState(seed).shuffle leaves a sequence of n items: item
// perm[i] of the original sequence ends at position i. Keras shuffles with
// it where a seed is given (the file lists of image_dataset_from_directory
// and text_dataset_from_directory, the windows of
// timeseries_dataset_from_array, the examples of the dataset loaders), so a
// port that shuffles with the same seed sees Keras' order. numpy takes seeds
// from 0 to 2**32-1; others are an error.
func RandomStatePermutation(seed int64, n int) ([]int, error) {
	if seed < 0 || seed > 1<<32-1 {
		return nil, fmt.Errorf("datasets: RandomStatePermutation: seed %d, want 0 to 2**32-1 as numpy's RandomState", seed)
	}
	if n < 0 || int64(n) > 1<<32 {
		return nil, fmt.Errorf("datasets: RandomStatePermutation: %d items, want 0 to 2**32", n)
	}
	return kerasPermutation(newMT19937(uint32(seed)), n), nil
}
