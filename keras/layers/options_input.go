package layers

import "fmt"

// inputConfig holds the options only Input takes.
type inputConfig struct {
	dtype string
}

// WithDtype sets an Input's dtype, as keras.Input(..., dtype=...):
// "float32" (the default), or "int32" / "int64" for integer ids (an
// Embedding's input). The values travel as float32 whatever the dtype;
// integers are exact up to 2^24. For every other layer it is Keras'
// dtype=: the name of a dtype policy such as "float32" or
// "mixed_bfloat16" (see WithPolicy, package mixedprecision).
func WithDtype(dtype string) Option {
	return func(c *config) { c.input.dtype = dtype; c.mark("dtype") }
}

func checkInputDtype(d string) error {
	switch d {
	case "", "float32", "int32", "int64":
		return nil
	}
	return fmt.Errorf("dtype %q is not supported; want \"float32\", \"int32\" or \"int64\"", d)
}
