package onnx

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// FuzzConvertConfig: any config (as JSON) under any supported class,
// with weights of plausible shapes, converts or returns an error: never a
// panic, and what converts is a valid graph. A model loaded from a file
// hands the exporter the configs its layers report.
func FuzzConvertConfig(f *testing.F) {
	for i, cfg := range []string{
		`{"units": 4, "activation": "relu"}`,
		`{"filters": 4, "kernel_size": [3, 3], "strides": [2, 2], "padding": "same", "dilation_rate": 1, "groups": 1}`,
		`{"kernel_size": 3, "depth_multiplier": 1, "padding": "same", "use_bias": false}`,
		`{"pool_size": [2, 2], "strides": null, "padding": "valid"}`,
		`{"padding": [[1, 2], [0, 3]]}`, `{"cropping": [1, 1]}`, `{"target_shape": [2, -1]}`,
		`{"axis": -1, "epsilon": 0.001, "center": true, "scale": false}`, `{"axis": [1], "mean": [0.5, 1], "variance": 2, "invert": true}`,
		`{"scale": [1, 2], "offset": 0.5}`, `{"max_value": 6, "negative_slope": 0.1, "threshold": 0.5}`,
		`{"size": [2, 3], "interpolation": "bilinear"}`, `{"input_dim": 10, "output_dim": 2, "mask_zero": true}`,
		`{"filters": 4, "kernel_size": 3, "strides": 2, "output_padding": [1, 0], "padding": "valid"}`,
		`{"filters": 4, "kernel_size": [3], "padding": "causal", "dilation_rate": [2], "groups": 2}`,
		`{"filters": 4, "kernel_size": [3, 3, 3], "strides": [1, 2, 1], "padding": "same"}`, `{"pool_size": [2, 2, 2], "strides": null, "padding": "same"}`,
		`{"padding": [[1, 0], [0, 2], [1, 1]], "cropping": [[0, 1], [1, 1], [2, 0]], "size": [1, 2, 2], "depth_multiplier": 2, "kernel_size": 3}`,
		`{"units": 1, "return_sequences": true, "go_backwards": true, "activation": "relu", "recurrent_activation": "sigmoid", "reset_after": false}`,
	} {
		f.Add([]byte(cfg), uint8(i))
	}
	classes := SupportedClasses()
	weights := map[string]ops.Shape{
		"kernel": {3, 3, 2, 4}, "bias": {4}, "gamma": {2}, "beta": {2}, "moving_mean": {2}, "moving_variance": {2},
		"embeddings": {10, 2}, "depthwise_kernel": {3, 3, 2, 1}, "pointwise_kernel": {1, 1, 2, 4}, "mean": {2}, "variance": {2},
		"recurrent_kernel": {1, 4},
	}
	f.Fuzz(func(t *testing.T, data []byte, class uint8) {
		var cfg map[string]any
		if json.Unmarshal(data, &cfg) != nil || cfg == nil {
			return
		}
		c := classes[int(class)%len(classes)]
		// The 1-D and 3-D layers get a sequence or a volume and kernels
		// of their rank, so that their converters run past the input.
		x := layers.Input([]int{4, 4, 2})
		kernel := weights["kernel"]
		switch {
		case strings.HasSuffix(c, "1D"):
			x, kernel = layers.Input([]int{6, 2}), ops.Shape{3, 2, 4}
		case strings.HasSuffix(c, "3D"):
			x, kernel = layers.Input([]int{4, 4, 4, 2}), ops.Shape{3, 3, 3, 2, 4}
		case rnnKinds[c].op != "": // an LSTM of 1 unit fits
			x, kernel = layers.Input([]int{6, 2}), ops.Shape{2, 4}
		}
		l := &stubLayer{Base: layers.NewBase(c), class: c, cfg: cfg}
		for name, s := range weights {
			if name == "kernel" {
				s = kernel
			}
			l.AddWeight(name, s, layers.Ones(), true, nil)
		}
		y := layers.Apply(l, x, x)
		g := graphOf(t, ins(x), ins(y))
		out, err := Marshal(g)
		if err == nil {
			decode(t, out)
		}
	})
}
