// Package registry resolves Keras names ("mse", "SparseCategoricalAccuracy",
// "sparse_categorical_crossentropy") to constructors, for the Get functions
// of keras/losses and keras/metrics.
package registry

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gokeras/gokeras/ops"
)

// Lookup finds name (directly or through aliases) in ctors and calls the
// constructor with opts. Constructors reject bad options by panicking with
// an *ops.Error; Lookup returns it as the error. kind names the family in
// the unknown-name error ("loss", "metric"); pkg prefixes it ("losses").
func Lookup[T any, O any](pkg, kind, name string, ctors map[string]func(...O) T, aliases map[string]string, opts []O) (v T, err error) {
	key := name
	if a, ok := aliases[name]; ok {
		key = a
	}
	ctor, ok := ctors[key]
	if !ok {
		known := make([]string, 0, len(ctors)+len(aliases))
		for k := range ctors {
			known = append(known, k)
		}
		for k := range aliases {
			known = append(known, k)
		}
		slices.Sort(known)
		return v, fmt.Errorf("%s: unknown %s %q (known: %s)", pkg, kind, name, strings.Join(known, ", "))
	}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*ops.Error)
			if !ok {
				panic(r)
			}
			var zero T
			v, err = zero, e
		}
	}()
	return ctor(opts...), nil
}
