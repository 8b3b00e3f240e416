package datasets

import "fmt"

var reutersSpec = textSpec{
	name: "reuters", file: "reuters.npz",
	sha256:    "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916",
	indexFile: "reuters_word_index.json",
}

// LoadReuters loads Keras' Reuters newswire topic dataset, as
// keras.datasets.reuters.load_data: 11,228 newswires as word ids (by
// frequency, as LoadIMDB) labelled with one of 46 topics, shuffled as
// Keras shuffles them and split into train and test by TestSplit
// (default 0.2). In Python and in Go:
//
//	(x_train, y_train), (x_test, y_test) = keras.datasets.reuters.load_data(num_words=10000)
//
//	train, test, err := datasets.LoadReuters(datasets.NumWords(10000))
//
// It reads reuters.npz from the places LoadIMDB searches (the reuters
// subfolder of a $GOKERAS_DATASETS entry) and takes the same options, and
// TestSplit.
func LoadReuters(opts ...LoadOption) (train, test TextPair, err error) {
	cfg := newLoadConfig(opts)
	tc := cfg.text.resolve()
	if err := tc.check("reuters"); err != nil {
		return TextPair{}, TextPair{}, err
	}
	read := func(p string) (TextPair, error) {
		seqs, labels, err := readSequenceNPZ(p, []string{"x"}, []string{"y"})
		if err != nil {
			return TextPair{}, err
		}
		if len(seqs["x"]) != len(labels["y"]) {
			return TextPair{}, formatErrorf(p, "%d texts in x but %d labels in y", len(seqs["x"]), len(labels["y"]))
		}
		return TextPair{seqs["x"], labels["y"]}, nil
	}
	path, err := reutersSpec.find(cfg, reutersSpec.file, func(p string) error { _, err := read(p); return err })
	if err != nil {
		return TextPair{}, TextPair{}, err
	}
	all, err := read(path)
	if err != nil {
		return TextPair{}, TextPair{}, err
	}
	all = permute(all, kerasPermutation(newMT19937(uint32(tc.seed)), len(all.Y)))
	all.X = tc.shift(all.X)
	if tc.maxLen > 0 {
		all = tc.dropLong(all)
	}
	all.X = tc.limitWords(all.X)
	idx := int(float64(len(all.X)) * (1 - tc.testSplit))
	if idx < 0 || idx > len(all.X) {
		return TextPair{}, TextPair{}, fmt.Errorf("datasets: reuters: TestSplit(%v) leaves %d of %d texts for training", tc.testSplit, idx, len(all.X))
	}
	return TextPair{all.X[:idx], all.Y[:idx]}, TextPair{all.X[idx:], all.Y[idx:]}, nil
}

// ReutersWordIndex returns the Reuters word index, as
// keras.datasets.reuters.get_word_index (see IMDBWordIndex).
func ReutersWordIndex(opts ...LoadOption) (map[string]int, error) {
	return reutersSpec.wordIndex(newLoadConfig(opts))
}
