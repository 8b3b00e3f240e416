package utils_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/utils"
)

func ExamplePlotModel() {
	inputs := layers.Input([]int{784}, layers.WithName("digits"))
	x := layers.Apply(layers.NewDense(64, layers.WithActivation("relu"), layers.WithName("dense_1")), inputs)
	outputs := layers.Apply(layers.NewDense(10, layers.WithName("predictions")), x)
	model, err := keras.NewModel([]*layers.KerasTensor{inputs}, []*layers.KerasTensor{outputs})
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "plot")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	// keras.utils.plot_model(model, "model.svg", show_shapes=True)
	path := filepath.Join(dir, "model.svg")
	if err := utils.PlotModel(model, path, utils.PlotOptions{ShowShapes: true}); err != nil {
		panic(err)
	}
	svg, _ := os.ReadFile(path)
	for _, s := range []string{"digits (InputLayer)", "dense_1 (Dense)", "Output shape: (None, 64)", "predictions (Dense)"} {
		fmt.Println(s, strings.Contains(string(svg), s))
	}
	// Output:
	// digits (InputLayer) true
	// dense_1 (Dense) true
	// Output shape: (None, 64) true
	// predictions (Dense) true
}
