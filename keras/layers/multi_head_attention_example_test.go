package layers_test

import (
	"fmt"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

// A self-attention block in a functional model, as in Keras:
//
//	x = keras.Input((10, 16))
//	y = keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)(x, x)
func ExampleNewMultiHeadAttention() {
	layers.ClearSession()
	x := layers.Input([]int{10, 16})
	mha := layers.NewMultiHeadAttention(2, 8)
	y := layers.Apply(mha, x, x)
	m, err := keras.NewModel([]*layers.KerasTensor{x}, []*layers.KerasTensor{y})
	if err != nil {
		panic(err)
	}
	for _, w := range m.Weights() {
		fmt.Println(w.Name(), w.Shape())
	}
	fmt.Println(y.Shape())
	// Output:
	// multi_head_attention/query/kernel (16, 2, 8)
	// multi_head_attention/query/bias (2, 8)
	// multi_head_attention/key/kernel (16, 2, 8)
	// multi_head_attention/key/bias (2, 8)
	// multi_head_attention/value/kernel (16, 2, 8)
	// multi_head_attention/value/bias (2, 8)
	// multi_head_attention/attention_output/kernel (2, 8, 16)
	// multi_head_attention/attention_output/bias (16,)
	// (None, 10, 16)
}
