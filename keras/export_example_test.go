package keras_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/export/onnx"
	"github.com/gokeras/gokeras/keras/layers"
)

// A model exported for onnxruntime and other ONNX runtimes, as Keras 3's
// model.export("cnn.onnx", format="onnx"). The file's input is named
// after the model's Input, its output after the last layer, both with a
// symbolic batch dimension:
//
//	import onnxruntime as ort
//	sess = ort.InferenceSession("cnn.onnx")
//	probs = sess.run(None, {"image": images})[0]   # images: (n, 28, 28, 1) float32
//
// A layer or a setting the exporter cannot write (here an LSTM with the
// activation relu6, which ONNX's LSTM node does not take) is an error
// naming the layer, and no file is written.
func ExampleModel_Export() {
	model, err := keras.NewSequential(
		layers.NewInputLayer([]int{28, 28, 1}, layers.WithName("image")),
		layers.NewConv2D(8, 3, layers.WithActivation("relu")),
		layers.NewMaxPooling2D(),
		layers.NewFlatten(),
		layers.NewDense(10, layers.WithActivation("softmax"), layers.WithName("probs")),
	)
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "export")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if err := model.Export(filepath.Join(dir, "cnn.onnx"), "onnx"); err != nil {
		panic(err)
	}
	fmt.Println("exported cnn.onnx")

	rnn := keras.MustSequential(layers.NewEmbedding(10, 3, layers.WithMaskZero(true), layers.WithInputShape(5)),
		layers.NewLSTM(4, layers.WithActivation("relu6"), layers.WithName("lstm")))
	err = rnn.Export(filepath.Join(dir, "rnn.onnx"), "onnx")
	fmt.Println(errors.Is(err, onnx.ErrUnsupported))
	var le *onnx.LayerError
	if errors.As(err, &le) {
		fmt.Println(le.Layer, le.Class)
	}
	// Output:
	// exported cnn.onnx
	// true
	// lstm LSTM
}
