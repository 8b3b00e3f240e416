package onnx

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
)

// The converters' graphs for particular layers: kernel orders, integer
// inputs, operation nodes, Dense on images.

// TestKernelLayouts: depthwise, separable and transposed convolution
// kernels in ONNX's orders.
func TestKernelLayouts(t *testing.T) {
	x := layers.Input([]int{5, 5, 3})
	dw := layers.NewDepthwiseConv2D(3, layers.WithDepthMultiplier(2))
	sep := layers.NewSeparableConv2D(4, 2, layers.WithDepthMultiplier(2))
	tr := layers.NewConv2DTranspose(2, 3, layers.WithStrides(2), layers.WithPadding("same"))
	y := layers.Apply(tr, layers.Apply(sep, layers.Apply(dw, x)))
	d := export(t, ins(x), ins(y))
	var convs []decodedNode
	for _, n := range d.nodes {
		if n.op == "Conv" || n.op == "ConvTranspose" {
			convs = append(convs, n)
		}
	}
	if len(convs) != 4 {
		t.Fatalf("ops %v", d.ops())
	}
	// Depthwise: group 3, W (6, 1, 3, 3), W[c*2+m][0][y][x] = K[y][x][c][m].
	w := d.inits[convs[0].inputs[1]]
	k := dw.DepthwiseKernel.Numpy()
	if convs[0].ints["group"][0] != 3 || !slices.Equal(w.dims, []int64{6, 1, 3, 3}) {
		t.Fatalf("depthwise: group %v, W %v", convs[0].ints["group"], w.dims)
	}
	for c := range 3 {
		for m := range 2 {
			if got, want := w.float(((c*2+m)*3+1)*3+2), k[((1*3+2)*3+c)*2+m]; got != want {
				t.Errorf("depthwise W[%d][0][1][2] = %v, K[1][2][%d][%d] = %v", c*2+m, got, c, m, want)
			}
		}
	}
	// Separable on the 6 channels: a depthwise Conv without bias (group
	// 6, 12 channels out), then a 1x1 Conv (4, 12, 1, 1) with the bias.
	if len(convs[1].inputs) != 2 || convs[1].ints["group"][0] != 6 || len(convs[2].inputs) != 3 || !slices.Equal(d.inits[convs[2].inputs[1]].dims, []int64{4, 12, 1, 1}) {
		t.Errorf("separable: %v / %v", convs[1], convs[2])
	}
	// Transposed: W (in 4, out 2, 3, 3), W[c][f][y][x] = K[y][x][f][c];
	// 2x2 -> 4x4 "same": Keras' output is 4, ONNX's uncropped 2*(2-1)+3 = 5, so pad 0 before and 1 after.
	ct := convs[3]
	w = d.inits[ct.inputs[1]]
	k = tr.Kernel.Numpy()
	if !slices.Equal(w.dims, []int64{4, 2, 3, 3}) || w.float(((3*2+1)*3+0)*3+2) != k[((0*3+2)*2+1)*4+3] {
		t.Errorf("transposed kernel %v", w.dims)
	}
	if !slices.Equal(ct.ints["pads"], []int64{0, 0, 1, 1}) || ct.ints["output_padding"] != nil {
		t.Errorf("ConvTranspose pads %v, output_padding %v", ct.ints["pads"], ct.ints["output_padding"])
	}
}

// TestGroupedKernel: hwioToOIHW of a grouped kernel (kh, kw, in/groups,
// filters) keeps each filter's slice of input channels.
func TestGroupedKernel(t *testing.T) {
	const kh, kw, in, out = 2, 3, 2, 6
	k := make([]float32, kh*kw*in*out)
	for i := range k {
		k[i] = float32(i)
	}
	w := hwioToOIHW(k, kh, kw, in, out)
	for o := range out {
		for i := range in {
			for y := range kh {
				for x := range kw {
					if w[((o*in+i)*kh+y)*kw+x] != k[((y*kw+x)*in+i)*out+o] {
						t.Fatalf("W[%d][%d][%d][%d] is not K[%d][%d][%d][%d]", o, i, y, x, y, x, i, o)
					}
				}
			}
		}
	}
}

// TestEmbeddingInputs: int32 ids stay the graph's int32 input and
// Gather reads them; float ids are cast to int64; mask_zero feeds a
// masked average.
func TestEmbeddingInputs(t *testing.T) {
	ids := layers.Input([]int{5}, layers.WithDtype("int32"))
	e := layers.Apply(layers.NewEmbedding(10, 3, layers.WithMaskZero(true)), ids)
	y := layers.Apply(layers.NewGlobalAveragePooling1D(), e)
	d := export(t, ins(ids), ins(y))
	if d.inputs[0].dtype != typeInt32 {
		t.Errorf("input type %d, want int32", d.inputs[0].dtype)
	}
	gather := d.nodes[slices.IndexFunc(d.nodes, func(n decodedNode) bool { return n.op == "Gather" })]
	if gather.inputs[1] != d.inputs[0].name {
		t.Errorf("Gather reads %q, not the ids", gather.inputs[1])
	}
	if d.count("ReduceMean") != 0 || d.count("Equal") != 1 || d.count("Div") != 1 {
		t.Errorf("masked average: ops %v", d.ops())
	}

	f := layers.Input([]int{5})
	y = layers.Apply(layers.NewEmbedding(10, 3), f)
	d = export(t, ins(f), ins(y))
	if d.inputs[0].dtype != typeFloat || d.nodes[0].op != "Cast" || d.nodes[0].ints["to"][0] != int64(typeInt64) {
		t.Errorf("float ids: input type %d, ops %v", d.inputs[0].dtype, d.ops())
	}
}

// TestOperationNodes: keras.ops calls in the graph are converted as the
// operations they are (Add(x, 3.0) is x + 3, not the Add layer of one
// input), constants in the call's order, and an operation without a
// converter is refused by name.
func TestOperationNodes(t *testing.T) {
	x := layers.Input([]int{3})
	a := layers.CallOp("Add", nil, x, 3.0)
	b := layers.CallOp("Subtract", nil, 2.0, a)
	y := layers.CallOp("Multiply", nil, b, a)
	d := export(t, ins(x), ins(y))
	if !slices.Equal(d.ops(), []string{"Add", "Sub", "Mul"}) {
		t.Fatalf("ops %v", d.ops())
	}
	if c := d.inits[d.nodes[0].inputs[1]]; d.nodes[0].inputs[0] != d.inputs[0].name || c.float(0) != 3 || len(c.dims) != 0 {
		t.Errorf("x + 3: inputs %v", d.nodes[0].inputs)
	}
	if c, ok := d.inits[d.nodes[1].inputs[0]]; !ok || c.float(0) != 2 || d.nodes[1].inputs[1] != d.nodes[0].outputs[0] {
		t.Errorf("2 - a: inputs %v", d.nodes[1].inputs)
	}
	if !slices.Equal(d.nodes[2].inputs, []string{d.nodes[1].outputs[0], d.nodes[0].outputs[0]}) {
		t.Errorf("b * a: inputs %v", d.nodes[2].inputs)
	}

	s := layers.CallOp("Rsqrt", nil, x)
	_, err := Marshal(graphOf(t, ins(x), ins(s)))
	var le *LayerError
	if !errors.As(err, &le) || le.Class != "Rsqrt" || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "operation") {
		t.Errorf("Rsqrt operation: error %v", err)
	}
	if !slices.Contains(SupportedOperations(), "Add") || slices.Contains(SupportedOperations(), "Rsqrt") {
		t.Errorf("SupportedOperations %v", SupportedOperations())
	}
}

// TestDenseOnImages: Dense on a channels-first image is a 1x1 Conv (no
// transposes around it), and Flatten of a one-pixel image needs no
// transpose back.
func TestDenseOnImages(t *testing.T) {
	x := layers.Input([]int{4, 4, 2})
	h := layers.Apply(layers.NewConv2D(3, 3), x)
	dense := layers.NewDense(5, layers.WithActivation("softmax"))
	h = layers.Apply(dense, h)
	h = layers.Apply(layers.NewGlobalMaxPooling2D(layers.WithKeepDims(true)), h)
	y := layers.Apply(layers.NewFlatten(), h)
	d := export(t, ins(x), ins(y))
	want := []string{"Transpose", "Conv", "Conv", "Softmax", "GlobalMaxPool", "Flatten"}
	if !slices.Equal(d.ops(), want) {
		t.Fatalf("ops %v, want %v", d.ops(), want)
	}
	w := d.inits[d.nodes[2].inputs[1]]
	k := dense.Kernel.Numpy()
	if !slices.Equal(w.dims, []int64{5, 3, 1, 1}) || w.float(4*3+1) != k[1*5+4] {
		t.Errorf("Dense as Conv: kernel %v", w.dims)
	}
	if d.nodes[3].ints["axis"][0] != 1 {
		t.Errorf("softmax over the channels on axis %v", d.nodes[3].ints["axis"])
	}
}
