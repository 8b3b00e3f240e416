package onnx

import (
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
)

// TestTimeDistributedGraph: TimeDistributed(Dense) folds the steps into
// the batch (Reshape to (-1, features): the batch stays symbolic), runs
// the Dense converter (a Gemm on rank 2) and unfolds to (-1, steps,
// units); the input's mask goes on to the output (the masked mean
// after it).
func TestTimeDistributedGraph(t *testing.T) {
	ids := layers.Input([]int{5})
	e := layers.Apply(layers.NewEmbedding(9, 3, layers.WithMaskZero(true)), ids)
	dense := layers.NewDense(4)
	y := layers.Apply(layers.NewGlobalAveragePooling1D(), layers.Apply(layers.NewTimeDistributed(dense), e))
	d := export(t, ins(ids), ins(y))
	var shapes [][]int64
	for _, n := range d.nodes {
		if n.op == "Reshape" {
			in := d.inits[n.inputs[1]]
			s := make([]int64, len(in.raw)/8)
			for i := range s {
				s[i] = int64(binary.LittleEndian.Uint64(in.raw[8*i:]))
			}
			shapes = append(shapes, s)
		}
	}
	if !slices.Equal(shapes[0], []int64{-1, 3}) || !slices.Equal(shapes[1], []int64{-1, 5, 4}) || len(shapes) != 2 {
		t.Errorf("reshapes %v, want (-1, 3) and (-1, 5, 4)", shapes)
	}
	g := nodeOf(t, d, "Gemm")
	if k := d.inits[g.inputs[1]]; !slices.Equal(k.dims, []int64{3, 4}) || k.float(5) != dense.Kernel.Numpy()[5] {
		t.Errorf("inner Dense kernel %v", k.dims)
	}
	if d.count("Div") != 1 {
		t.Errorf("the pooling after TimeDistributed does not read the mask: %v", d.ops())
	}
}

// TestTimeDistributedRefusals: an inner layer without a converter is
// refused naming the wrapper, the inner layer and its class.
func TestTimeDistributedRefusals(t *testing.T) {
	for _, c := range []struct {
		inner layers.Layer
		msg   string
	}{
		{layers.NewUnitNormalization(), "TimeDistributed of a UnitNormalization layer"},
	} {
		x := layers.Input([]int{4, 3})
		td := layers.NewTimeDistributed(c.inner)
		_, err := Marshal(graphOf(t, ins(x), ins(layers.Apply(td, x))))
		var le *LayerError
		if !errors.As(err, &le) || le.Class != "TimeDistributed" || le.Layer != td.Name() || !errors.Is(err, ErrUnsupported) ||
			!strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), c.inner.Name()) {
			t.Errorf("TimeDistributed(%s): error %v; want an unsupported TimeDistributed %q naming %q and saying %q", c.inner.ClassName(), err, td.Name(), c.inner.Name(), c.msg)
		}
	}
}
