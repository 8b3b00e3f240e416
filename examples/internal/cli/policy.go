package cli

import (
	"flag"
	"fmt"
	"os"

	"github.com/gokeras/gokeras/keras/mixedprecision"
)

// PolicyFlag defines -policy on flag.CommandLine: the Keras dtype policy
// the example's layers are made under, as
// keras.mixed_precision.set_global_policy. Apply it with MustSetPolicy
// after flag.Parse.
func PolicyFlag() *string {
	return flag.String("policy", "float32", "dtype policy of the layers (keras.mixed_precision.set_global_policy): float32, mixed_bfloat16 or mixed_float16 (with dynamic loss scaling)")
}

// SetPolicy sets the global dtype policy from the -policy value; an
// unknown name is an error naming the flag and the valid policies.
func SetPolicy(name string) error {
	if err := mixedprecision.SetGlobalPolicy(name); err != nil {
		return fmt.Errorf("-policy %q: %w", name, err)
	}
	return nil
}

// MustSetPolicy is SetPolicy that, on an error, prints it to stderr and
// exits with status 2, before any work, as MustCheck.
func MustSetPolicy(name string) {
	if err := SetPolicy(name); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", flag.CommandLine.Name(), err)
		os.Exit(2)
	}
}
