package engine

import (
	"sync"

	"github.com/gokeras/gokeras/ops"
)

// Strategy is what package keras needs of a distribution strategy:
// how many replicas, and a way to run one function per replica
// concurrently with a replica context whose collectives connect them.
// Package distribute implements it; [Default] is the no-op strategy.
type Strategy interface {
	NumReplicasInSync() int
	// RunReplicas calls fn once per replica, concurrently, and waits. If a
	// replica fails, the collectives of the others return an error instead
	// of waiting for it, and RunReplicas returns the first error.
	RunReplicas(fn func(rc ops.ReplicaContext) error) error
}

type defaultStrategy struct{}

func (defaultStrategy) NumReplicasInSync() int { return 1 }
func (defaultStrategy) RunReplicas(fn func(ops.ReplicaContext) error) error {
	return fn(Single{})
}

// Default is the strategy used outside any scope: one replica, the
// collectives are identities (tf.distribute's default strategy).
func Default() Strategy { return defaultStrategy{} }

var (
	scopeMu sync.Mutex
	scopes  []Strategy
)

func init() {
	ops.ReplicasInScope = func() int { return CurrentStrategy().NumReplicasInSync() }
}

// EnterScope makes s the current strategy until exit is called, like
// `with strategy.scope():`. Scopes nest.
func EnterScope(s Strategy) (exit func()) {
	scopeMu.Lock()
	scopes = append(scopes, s)
	depth := len(scopes)
	scopeMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			scopeMu.Lock()
			defer scopeMu.Unlock()
			if len(scopes) >= depth {
				scopes = scopes[:depth-1]
			}
		})
	}
}

// CurrentStrategy returns the strategy in scope, or [Default].
func CurrentStrategy() Strategy {
	scopeMu.Lock()
	defer scopeMu.Unlock()
	if len(scopes) == 0 {
		return defaultStrategy{}
	}
	return scopes[len(scopes)-1]
}

// Hooks returns the program's hooks, for replicas that run the Empty
// variant of a step.
func (p *Program) Hooks() []ops.Hook {
	out := make([]ops.Hook, len(p.hooks))
	for i, h := range p.hooks {
		out[i] = h.hook
	}
	return out
}

// RunEmpty runs the Empty variant of every hook of p for a replica that got
// no data this step.
func (p *Program) RunEmpty(rc ops.ReplicaContext) error {
	// The other replicas meet the graph's collectives first, in step
	// order; this replica contributes zeros to each.
	for _, st := range p.steps {
		if st.kind == kindOp && st.op.Kind() == "AllReduceSum" {
			if err := rc.AllReduceSum([][]float32{make([]float32, st.shape.Size())}); err != nil {
				return err
			}
		}
	}
	for _, h := range p.hooks {
		if h.hook.Empty != nil {
			if err := h.hook.Empty(rc); err != nil {
				return err
			}
		}
	}
	return nil
}
