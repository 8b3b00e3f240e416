package random_test

import (
	"fmt"

	"github.com/gokeras/gokeras/keras/random"
)

func ExampleSeedGenerator() {
	gen := random.NewSeedGenerator(1337)
	a, _ := random.Normal([]int{2, 3}, random.Generator(gen))
	b, _ := random.Normal([]int{2, 3}, random.Generator(gen))
	fmt.Println(a.Shape(), gen.State().Numpy(), a.Data().([]float32)[0] != b.Data().([]float32)[0])

	// A stateless seed gives the same values at every call.
	u1, _ := random.Uniform([]int{3}, random.MinVal(-1), random.MaxVal(1), random.Seed(7))
	u2, _ := random.Uniform([]int{3}, random.MinVal(-1), random.MaxVal(1), random.Seed(7))
	fmt.Println(u1.Data().([]float32)[2] == u2.Data().([]float32)[2])
	// Output:
	// (2, 3) [1337 2] true
	// true
}
