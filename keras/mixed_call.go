package keras

import (
	"github.com/gokeras/gokeras/keras/mixedprecision"
)

// policyLayer is a layer with a dtype policy: every layer embedding
// layers.Base. How a layer computes under its policy is layers.Call's
// (keras/layers/mixed_call.go).
type policyLayer interface {
	DTypePolicy() mixedprecision.DTypePolicy
}
