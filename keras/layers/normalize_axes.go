package layers

import (
	"fmt"
	"slices"
)

// normalizeAxes resolves the axis= of UnitNormalization and
// RMSNormalization (one axis or a list, negative counting from the end)
// for an input of rank r: the axes sorted, none the batch.
func normalizeAxes(axes []int, r int) ([]int, error) {
	out := make([]int, 0, len(axes))
	for _, a := range axes {
		d := a
		if d < 0 {
			d += r
		}
		if d <= 0 || d >= r {
			return nil, fmt.Errorf("axis %d is out of range for an input of rank %d (or is the batch)", a, r)
		}
		if slices.Contains(out, d) {
			return nil, fmt.Errorf("axis %d is given twice", a)
		}
		out = append(out, d)
	}
	slices.Sort(out)
	return out, nil
}

// axisConfig is Keras' axis= of a config: an integer, or a list when
// given as several axes (listed).
func axisConfig(axes []int, listed bool) any {
	if len(axes) == 1 && !listed {
		return axes[0]
	}
	return intsAny(axes)
}

// axesOption reads WithAxis / WithAxes: the axes and whether they were
// given as a list; def when neither was given.
func axesOption(c *config, def int) ([]int, bool) {
	switch {
	case c.ml.axes != nil:
		return slices.Clone(c.ml.axes), true
	case c.set["axis"]:
		return []int{c.axis}, false
	}
	return []int{def}, false
}
