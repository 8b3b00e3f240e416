package layers_test

import (
	"fmt"

	"github.com/gokeras/gokeras/keras/layers"
)

// A TextVectorization adapted on a corpus turns sentences into padded
// token ids, the input of an Embedding.
func ExampleNewTextVectorization() {
	tv := layers.NewTextVectorization(layers.TextVectorizationSettings{OutputSequenceLength: 5})
	if err := tv.Adapt([]string{"The cat sat.", "The dog sat!", "A cat, a dog."}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q\n", tv.GetVocabulary(true))
	ids, err := tv.Call([]string{"The cat ran", "a dog"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ids.Shape(), ids.Data())
	// Output:
	// ["" "[UNK]" "the" "sat" "dog" "cat" "a"]
	// (2, 5) [2 5 1 0 0 6 4 0 0 0]
}

// A StringLookup with output_mode "multi_hot" encodes each sample's set of
// tokens.
func ExampleNewStringLookup() {
	sl := layers.NewStringLookup(layers.StringLookupSettings{OutputMode: "multi_hot", Vocabulary: []string{"red", "green", "blue"}})
	y, err := sl.CallRows([][]string{{"red", "blue"}, {"green", "pink"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(y.Shape(), y.Data())
	// Output:
	// (2, 4) [0 1 0 1 1 0 1 0]
}
