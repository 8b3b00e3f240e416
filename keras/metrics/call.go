package metrics

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// Call updates m with concrete labels and predictions and returns its
// result, as calling a Keras metric does (`m(y_true, y_pred)`: update_state,
// then result). yTrue and yPred are *tensor.Dense or ops.Value.
func Call(m LabelMetric, yTrue, yPred any) (float64, error) {
	t, err := concrete(yTrue)
	if err != nil {
		return 0, fmt.Errorf("metrics: %s: y_true: %w", m.Name(), err)
	}
	p, err := concrete(yPred)
	if err != nil {
		return 0, fmt.Errorf("metrics: %s: y_pred: %w", m.Name(), err)
	}
	if err := m.Update(t, p); err != nil {
		return 0, err
	}
	return m.Result(), nil
}

func concrete(x any) (ops.Value, error) {
	switch v := x.(type) {
	case ops.Value:
		return v, nil
	case *tensor.Dense:
		if v == nil {
			return ops.Value{}, fmt.Errorf("nil tensor")
		}
		return ops.ValueOf(v)
	}
	return ops.Value{}, fmt.Errorf("want a *tensor.Dense or an ops.Value, got %T", x)
}
