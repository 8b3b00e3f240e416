package main

import (
	"fmt"
	"math/rand/v2"

	"github.com/gokeras/gokeras/examples/internal/models"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/applications"
	"gorgonia.org/tensor"
)

// models -model picks: the tutorial's CNN on the dataset, or on
// synthetic 32x32x3 images the seed ResNet (2.79 M parameters in 66
// gradients, 11.2 MB a step) or keras.applications' ResNet50 (23.6 M
// parameters in 214 gradients, 94 MB a step: the size of the ResNet-50
// that published scaling figures use, at CIFAR's image size), for
// measuring how the all-reduce scales with a model of many layers
// (-profile, tools/netcluster.sh).
var modelNames = []string{"cnn", "resnet_seed", "resnet50"}

// buildModel builds -model.
func buildModel(name string) (*keras.Model, error) {
	switch name {
	case "cnn":
		return buildCNNModel()
	case "resnet_seed":
		return models.ResNetSeed()
	case "resnet50":
		// Random weights, 10 classes, logits (the loss is from_logits).
		return applications.ResNet50(applications.WithWeights(""), applications.WithInputShape(32, 32, 3),
			applications.WithClasses(10), applications.WithClassifierActivation("linear"))
	}
	return nil, fmt.Errorf("-model %q: want one of %v", name, modelNames)
}

// syntheticImages is n random 32x32x3 images in [0, 1) and labels 0..9,
// the same on every worker for a seed (the strategy shards them).
func syntheticImages(n int, seed uint64) (x, y *tensor.Dense) {
	r := rand.New(rand.NewPCG(seed, 33))
	xs := make([]float32, n*32*32*3)
	for i := range xs {
		xs[i] = r.Float32()
	}
	ys := make([]float32, n)
	for i := range ys {
		ys[i] = float32(r.IntN(10))
	}
	return tensor.New(tensor.WithShape(n, 32, 32, 3), tensor.WithBacking(xs)),
		tensor.New(tensor.WithShape(n), tensor.WithBacking(ys))
}
