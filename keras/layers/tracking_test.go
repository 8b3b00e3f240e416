package layers_test

import (
	"math"
	"slices"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/mixedprecision"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// linear is the guide's Linear layer ("Making new layers and models via
// subclassing"): its weights made in Build with AddWeight.
type linear struct {
	layers.Base
	units int
	w, b  *ops.Variable
}

func newLinear(units int) *linear {
	return &linear{Base: layers.NewBase("Linear"), units: units}
}

func (l *linear) Build(in []ops.Shape) error {
	l.w = l.AddWeight("w", ops.Shape{in[0][len(in[0])-1], l.units}, layers.RandomNormal(0, 0.05), true, nil)
	l.b = l.AddWeight("b", ops.Shape{l.units}, layers.RandomNormal(0, 0.05), true, nil)
	return nil
}

func (l *linear) Call(in []ops.Tensor, _ bool) ops.Tensor {
	y := ops.MatMul(in[0], in[0].Trace().Read(l.w), false, false)
	return ops.Add(y, ops.BroadcastTo(in[0].Trace().Read(l.b), y.Shape()))
}

// mlpBlock is the guide's MLPBlock: three Linear layers in unexported
// fields, nothing listed by hand.
type mlpBlock struct {
	layers.Base
	linear1, linear2, linear3 *linear
}

func newMLPBlock() *mlpBlock {
	return &mlpBlock{Base: layers.NewBase("MLPBlock"), linear1: newLinear(32), linear2: newLinear(32), linear3: newLinear(1)}
}

func (m *mlpBlock) Call(in []ops.Tensor, training bool) ops.Tensor {
	x := ops.Relu(layers.Call(m.linear1, training, in[0]))
	x = ops.Relu(layers.Call(m.linear2, training, x))
	return layers.Call(m.linear3, training, x)
}

// The guide's MLPBlock: its sublayers are built at its first call and
// their weights are its weights (6, all trainable), in field order;
// freezing it freezes them.
func TestCompositeLayerTracksSublayers(t *testing.T) {
	mlp := newMLPBlock()
	out, err := layers.OutputShape(mlp, []ops.Shape{{-1, 64}})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Equal(ops.Shape{-1, 1}) {
		t.Errorf("output shape %v", out)
	}
	var want []*ops.Variable
	for _, l := range []*linear{mlp.linear1, mlp.linear2, mlp.linear3} {
		want = append(want, l.w, l.b)
	}
	if got := mlp.Weights(); !slices.Equal(got, want) {
		t.Errorf("weights %v, want %v", got, want)
	}
	if n := len(mlp.TrainableWeights()); n != 6 {
		t.Errorf("%d trainable weights, want 6", n)
	}
	if got := layers.Sublayers(mlp); len(got) != 3 {
		t.Errorf("%d sublayers, want 3", len(got))
	}
	mlp.SetTrainable(false)
	if n, m := len(mlp.TrainableWeights()), len(mlp.NonTrainableWeights()); n != 0 || m != 6 {
		t.Errorf("frozen: %d trainable, %d non-trainable; want 0 and 6", n, m)
	}
	if mlp.linear2.Trainable() {
		t.Error("freezing the block left its sublayer trainable")
	}
	mlp.SetTrainable(true)
	if n := len(mlp.TrainableWeights()); n != 6 {
		t.Errorf("unfrozen: %d trainable, want 6", n)
	}
}

// container holds parts in every kind of field the walk follows.
type container struct {
	layers.Base
	list    []layers.Layer
	byName  map[string]*linear
	nested  struct{ inner *linear }
	own     *ops.Variable
	gen     *ops.SeedGenerator
	dropout *layers.Dropout
	bn      *layers.BatchNormalization
	ignored *linear `keras:"-"`
	numbers []float32
	self    *container // a cycle back to itself
}

func (c *container) Call(in []ops.Tensor, training bool) ops.Tensor {
	x := in[0]
	for _, l := range c.list {
		x = layers.Call(l, training, x)
	}
	x = layers.Call(c.byName["a"], training, x)
	x = layers.Call(c.byName["b"], training, x)
	x = layers.Call(c.nested.inner, training, x)
	x = layers.Call(c.dropout, training, x)
	return layers.Call(c.bn, training, x)
}

// Slices, maps (in key order), nested structs, variables, seed generators
// and built-in layers in fields are tracked, each once; a `keras:"-"`
// field and slices of numbers are not; a frozen BatchNormalization inside
// keeps its moving statistics non-trainable after unfreezing.
func TestCompositeLayerFieldKinds(t *testing.T) {
	c := &container{
		Base:    layers.NewBase("Container"),
		list:    []layers.Layer{newLinear(4), newLinear(4)},
		byName:  map[string]*linear{"b": newLinear(4), "a": newLinear(4)},
		own:     ops.NewVariable("container/own", ops.Shape{2}, []float32{1, 2}, true),
		gen:     ops.NewSeedGenerator("container/seed", 7),
		dropout: layers.NewDropout(0.5),
		bn:      layers.NewBatchNormalization(),
		ignored: newLinear(3),
		numbers: make([]float32, 1<<20),
	}
	c.nested.inner = newLinear(4)
	c.self = c
	if _, err := layers.OutputShape(c, []ops.Shape{{-1, 4}}); err != nil {
		t.Fatal(err)
	}
	ws := c.Weights()
	// own, then 2 list + 2 map + 1 nested Linear (2 each), then BN's 4.
	if len(ws) != 1+10+4 {
		t.Fatalf("%d weights, want 15: %v", len(ws), ws)
	}
	if ws[0] != c.own {
		t.Errorf("first weight %v, want the layer's own variable", ws[0])
	}
	if ws[5] != c.byName["a"].w {
		t.Errorf("map parts not in key order: weight 5 is %v", ws[5])
	}
	if slices.Contains(ws, c.ignored.w) {
		t.Error(`a keras:"-" field was tracked`)
	}
	gens := layers.SeedGenerators(c)
	if len(gens) != 2 || gens[0] != c.gen {
		t.Errorf("seed generators %v: want the field's and the Dropout's", gens)
	}
	c.SetTrainable(false)
	c.SetTrainable(true)
	if n := len(c.NonTrainableWeights()); n != 2 {
		t.Errorf("%d non-trainable weights after unfreezing, want BN's moving statistics", n)
	}
	_, attrs, children, ok := layers.TrackedChildren(c)
	if !ok || len(children) != 7 {
		t.Fatalf("TrackedChildren: ok %v, %d children %v", ok, len(children), attrs)
	}
	if !slices.IsSorted(attrs) || attrs[0] != "bn" {
		t.Errorf("attribute names %v: want sorted snake-case field names", attrs)
	}
}

// Under mixed_bfloat16 a sublayer called with layers.Call computes as
// Keras' __call__ autocasts it: its output is rounded to bfloat16.
func TestCallAutocastsSublayers(t *testing.T) {
	if err := mixedprecision.SetGlobalPolicy("mixed_bfloat16"); err != nil {
		t.Fatal(err)
	}
	defer mixedprecision.SetGlobalPolicy("float32")
	mlp := newMLPBlock()
	x := make([]float32, 2*64)
	for i := range x {
		x[i] = float32(i%7) * 0.123
	}
	in := ops.ConvertToTensor(tensor.New(tensor.WithShape(2, 64), tensor.WithBacking(x)))
	y := layers.Call(mlp, false, in)
	for _, f := range y.Numpy().Data {
		if math.Float32bits(f)&0xffff != 0 {
			t.Fatalf("output %v is not a bfloat16 value: the sublayer was not autocast", f)
		}
	}
}
