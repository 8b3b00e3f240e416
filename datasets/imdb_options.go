package datasets

// textConfig holds the arguments of Keras' imdb.load_data and
// reuters.load_data. Unset fields take Keras' defaults (see resolve).
type textConfig struct {
	numWords, skipTop, maxLen int
	seed                      int64
	startChar, oovChar        int
	indexFrom                 int
	testSplit                 float64
	set                       map[string]bool
}

func (c *textConfig) mark(k string) {
	if c.set == nil {
		c.set = map[string]bool{}
	}
	c.set[k] = true
}

// resolve returns the config with Keras' defaults where nothing was set:
// seed 113, start_char 1, oov_char 2, index_from 3, test_split 0.2.
func (c textConfig) resolve() textConfig {
	def := func(k string, v *int, d int) {
		if !c.set[k] {
			*v = d
		}
	}
	def("start_char", &c.startChar, 1)
	def("oov_char", &c.oovChar, 2)
	def("index_from", &c.indexFrom, 3)
	if !c.set["seed"] {
		c.seed = 113
	}
	if !c.set["test_split"] {
		c.testSplit = 0.2
	}
	return c
}

// NumWords keeps the numWords most frequent words (ids below numWords
// after index_from); the others become the OOV id (Keras' num_words;
// default: every word).
func NumWords(n int) LoadOption {
	return func(c *loadConfig) { c.text.numWords = n; c.text.mark("num_words") }
}

// SkipTop turns the n most frequent words into the OOV id too (Keras'
// skip_top; default 0).
func SkipTop(n int) LoadOption {
	return func(c *loadConfig) { c.text.skipTop = n; c.text.mark("skip_top") }
}

// MaxLen drops the texts of maxLen ids or more, the start id included
// (Keras' maxlen, which keeps len < maxlen; default: keep all).
func MaxLen(n int) LoadOption {
	return func(c *loadConfig) { c.text.maxLen = n; c.text.mark("maxlen") }
}

// ShuffleSeed seeds the shuffle of the texts, as numpy's
// RandomState(seed).shuffle (Keras' seed; default 113).
func ShuffleSeed(seed int64) LoadOption {
	return func(c *loadConfig) { c.text.seed = seed; c.text.mark("seed") }
}

// StartChar sets the id that starts every text (Keras' start_char;
// default 1); a negative id starts texts with nothing (start_char=None).
func StartChar(id int) LoadOption {
	return func(c *loadConfig) { c.text.startChar = id; c.text.mark("start_char") }
}

// OOVChar sets the id of words left out by NumWords and SkipTop (Keras'
// oov_char; default 2); a negative id drops those words
// (oov_char=None).
func OOVChar(id int) LoadOption {
	return func(c *loadConfig) { c.text.oovChar = id; c.text.mark("oov_char") }
}

// IndexFrom shifts every word id by n (Keras' index_from; default 3, so
// that ids 0, 1 and 2 stay for padding, start and OOV).
func IndexFrom(n int) LoadOption {
	return func(c *loadConfig) { c.text.indexFrom = n; c.text.mark("index_from") }
}

// TestSplit sets the fraction of Reuters' texts held out for the test
// split (Keras' test_split; default 0.2).
func TestSplit(f float64) LoadOption {
	return func(c *loadConfig) { c.text.testSplit = f; c.text.mark("test_split") }
}
