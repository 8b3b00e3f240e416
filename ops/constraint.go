package ops

import (
	"runtime"
	"sync"
	"weak"
)

// Constraint is a projection of a variable's value that optimizers apply
// after every update, as Keras' variable.constraint, which a layer's
// kernel_constraint= attaches to its kernel (keras.constraints.MaxNorm,
// NonNeg, UnitNorm, MinMaxNorm). It is not part of the graph: gradients
// see the projected value of the step before, as in Keras, where
// optimizer.apply assigns constraint(variable) once the gradients are
// applied.
type Constraint interface {
	// Project replaces w, the values of one copy of a variable of shape
	// s, by their projection, in place. s is the variable's own: Project
	// must not change it.
	Project(w []float32, s Shape)
}

// variableConstraints maps a variable to its constraint. The variables
// are held weakly: attaching a constraint keeps no variable alive (the
// entry goes when its variable is collected).
var variableConstraints = struct {
	sync.RWMutex
	m map[weak.Pointer[Variable]]Constraint
}{m: map[weak.Pointer[Variable]]Constraint{}}

// SetConstraint attaches c to v (nil detaches it): optimizers project
// each copy of v they update with c after the update.
func SetConstraint(v *Variable, c Constraint) {
	if v == nil {
		fail("SetConstraint", "nil variable")
	}
	wp := weak.Make(v)
	variableConstraints.Lock()
	_, had := variableConstraints.m[wp]
	if c == nil {
		delete(variableConstraints.m, wp)
	} else {
		variableConstraints.m[wp] = c
	}
	variableConstraints.Unlock()
	if c != nil && !had {
		runtime.AddCleanup(v, func(wp weak.Pointer[Variable]) {
			variableConstraints.Lock()
			delete(variableConstraints.m, wp)
			variableConstraints.Unlock()
		}, wp)
	}
}

// VariableConstraint returns the constraint attached to v, or nil.
func VariableConstraint(v *Variable) Constraint {
	if v == nil {
		return nil
	}
	variableConstraints.RLock()
	defer variableConstraints.RUnlock()
	return variableConstraints.m[weak.Make(v)]
}

// ApplyConstraint projects copy r of v with its constraint, if it has
// one: what an optimizer does after updating that copy.
func ApplyConstraint(v *Variable, r int) {
	if c := VariableConstraint(v); c != nil {
		c.Project(v.Data(r), v.shape)
	}
}
