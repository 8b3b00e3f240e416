package optimizers_test

import (
	"fmt"

	"github.com/gokeras/gokeras/keras/optimizers"
)

// CosineDecayRestarts restarts the cosine every period, each period twice
// as long as the one before (t_mul 2) and starting half as high (m_mul
// 0.5).
func ExampleCosineDecayRestarts() {
	s, err := optimizers.CosineDecayRestarts(0.1, 10, 2, 0.5, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, step := range []int64{0, 5, 10, 20, 30} {
		fmt.Printf("step %d: %.4f\n", step, s.At(step))
	}
	// Output:
	// step 0: 0.1000
	// step 5: 0.0500
	// step 10: 0.0500
	// step 20: 0.0250
	// step 30: 0.0250
}
