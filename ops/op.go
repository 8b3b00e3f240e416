package ops

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Op is every operation of gokeras as a gorgonia Op. Shapes are fixed when
// the op is made (a trace is per input shape), so the forward kernel works on
// flat float32 buffers and an executor can preallocate every output once.
//
// Kind and Attrs identify what the op computes; an executor for another
// device dispatches on them.
type Op struct {
	name  string
	ins   []Shape
	out   Shape
	attrs any
	// fwd computes the output into out from the inputs. out has the
	// length of the output shape and may hold garbage: fwd overwrites it.
	fwd func(out []float32, in [][]float32)
	// grad returns the gradient of each input given the output's
	// gradient dy, built from ops; nil entries mark inputs with no
	// gradient (those also have wrt false).
	grad func(in []Tensor, y, dy Tensor) []Tensor
	wrt  []bool
	tr   *Trace
	// bf16 marks a kernel that rounds its output to bfloat16 as it
	// writes it (cast_fused.go): the op is CastToBFloat16 of its plain
	// variant, fused.
	bf16 bool
	// roundedBF16, when set, builds the variant of this op whose kernel
	// rounds its output to bfloat16 (bf16), from this op's inputs.
	roundedBF16 func(in []Tensor) Tensor
	// rows, when set, says the kernel reads only the rows of input
	// rows[0] (rank 2) that input rows[1] names (Gather): see RowsRead.
	rows *[2]int
}

var (
	_ gorgonia.Op   = (*Op)(nil)
	_ gorgonia.SDOp = (*Op)(nil)
)

// Kind is the op's name, such as "Conv2D".
func (o *Op) Kind() string { return o.name }

// RowsRead reports whether the kernel reads, of its input table (a rank-2
// table of rows), only the rows its input ids names (float32 ids,
// truncated, as Gather reads them), so that an executor may hand it a
// table of those rows alone, in increasing order, with ids renumbered into
// it: the output is the same.
func (o *Op) RowsRead() (table, ids int, ok bool) {
	if o.rows == nil {
		return 0, 0, false
	}
	return o.rows[0], o.rows[1], true
}

// Attrs returns the op's attributes (a struct specific to Kind).
func (o *Op) Attrs() any { return o.attrs }

// RoundsBFloat16 reports whether the op's kernel rounds its output to
// bfloat16 (ties to even, as [CastToBFloat16]): the op of this Kind and
// Attrs followed by that cast, fused into one pass (cast_fused.go). An
// executor for another device runs the cast after the op or falls back
// to the CPU kernel.
func (o *Op) RoundsBFloat16() bool { return o.bf16 }

// InputShapes returns the shapes of the op's inputs.
func (o *Op) InputShapes() []Shape { return o.ins }

// OutputShape returns the op's output shape.
func (o *Op) OutputShape() Shape { return o.out }

// Forward runs the op's CPU kernel: out must have OutputShape().Size()
// elements and in one buffer per input.
func (o *Op) Forward(out []float32, in [][]float32) { o.fwd(out, in) }

func typeOfRank(r int) hm.Type {
	if r == 0 {
		return tensor.Float32
	}
	return gorgonia.TensorType{Dims: r, Of: tensor.Float32}
}

// Arity implements gorgonia.Op.
func (o *Op) Arity() int { return len(o.ins) }

// Type implements gorgonia.Op. gorgonia returns function types to a pool
// after use, so a fresh one is built on every call.
func (o *Op) Type() hm.Type {
	ts := make([]hm.Type, 0, len(o.ins)+1)
	for _, s := range o.ins {
		ts = append(ts, typeOfRank(len(s)))
	}
	ts = append(ts, typeOfRank(len(o.out)))
	if len(ts) == 1 {
		return ts[0]
	}
	return hm.NewFnType(ts...)
}

// InferShape implements gorgonia.Op.
func (o *Op) InferShape(...gorgonia.DimSizer) (tensor.Shape, error) {
	if len(o.out) == 0 {
		return tensor.ScalarShape(), nil
	}
	return tensor.Shape(o.out.Clone()), nil
}

// Do implements gorgonia.Op, so gorgonia's own machines can run our graphs.
func (o *Op) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	in := make([][]float32, len(vals))
	for i, v := range vals {
		f, err := floats(v)
		if err != nil {
			return nil, fmt.Errorf("ops: %s: input %d: %w", o.name, i, err)
		}
		in[i] = f
	}
	out := make([]float32, o.out.Size())
	o.fwd(out, in)
	if len(o.out) == 0 {
		f := gorgonia.F32(out[0])
		return &f, nil
	}
	return tensor.New(tensor.WithShape(o.out...), tensor.WithBacking(out)), nil
}

func floats(v gorgonia.Value) ([]float32, error) {
	switch v := v.(type) {
	case *gorgonia.F32:
		return []float32{float32(*v)}, nil
	case *tensor.Dense:
		if f, ok := v.Data().([]float32); ok {
			return f, nil
		}
		if f, ok := v.Data().(float32); ok {
			return []float32{f}, nil
		}
	}
	return nil, fmt.Errorf("not a float32 value: %T", v)
}

// ReturnsPtr implements gorgonia.Op.
func (o *Op) ReturnsPtr() bool { return false }

// CallsExtern implements gorgonia.Op.
func (o *Op) CallsExtern() bool { return false }

// OverwritesInput implements gorgonia.Op.
func (o *Op) OverwritesInput() int { return -1 }

// WriteHash implements gorgonia.Op. The hash covers everything that
// determines the result, since gorgonia merges nodes with equal hashes.
func (o *Op) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "%s%v->%v%+v", o.name, o.ins, o.out, o.attrs)
	if o.bf16 {
		fmt.Fprint(h, " bf16")
	}
}

// Hashcode implements gorgonia.Op.
func (o *Op) Hashcode() uint32 {
	h := fnv.New32a()
	o.WriteHash(h)
	return h.Sum32()
}

func (o *Op) String() string {
	if o.bf16 {
		return fmt.Sprintf("%s%+v bf16", o.name, o.attrs)
	}
	return fmt.Sprintf("%s%+v", o.name, o.attrs)
}

// DiffWRT implements gorgonia.SDOp.
func (o *Op) DiffWRT(n int) []bool {
	if o.wrt != nil {
		return o.wrt
	}
	w := make([]bool, n)
	for i := range w {
		w[i] = o.grad != nil
	}
	return w
}

// SymDiff implements gorgonia.SDOp by calling the op's gradient builder.
func (o *Op) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (ret gorgonia.Nodes, err error) {
	if o.grad == nil {
		return nil, fmt.Errorf("ops: %s has no gradient", o.name)
	}
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(*Error); ok {
				err = e
				return
			}
			panic(r)
		}
	}()
	in := make([]Tensor, len(inputs))
	for i, n := range inputs {
		in[i] = o.tr.wrap(n)
	}
	gs := o.grad(in, o.tr.wrap(output), o.tr.wrap(grad))
	ret = make(gorgonia.Nodes, len(gs))
	for i, g := range gs {
		if g.n != nil {
			if !g.Shape().Equal(o.ins[i]) {
				return nil, fmt.Errorf("ops: %s: gradient %d has shape %v, want %v", o.name, i, g.Shape(), o.ins[i])
			}
			ret[i] = g.n
		}
	}
	return ret, nil
}

// apply adds op o applied to inputs to the trace.
func (tr *Trace) apply(o *Op, inputs ...Tensor) Tensor {
	inputs = tr.adoptAll(inputs) // eager tensors of other traces become constants (eager.go)
	o.tr = tr
	o.ins = make([]Shape, len(inputs))
	nodes := make([]*gorgonia.Node, len(inputs))
	for i, t := range inputs {
		o.ins[i] = t.Shape()
		nodes[i] = t.n
	}
	if o.wrt == nil {
		o.wrt = make([]bool, len(inputs))
		for i := range o.wrt {
			o.wrt[i] = o.grad != nil
		}
	}
	n, err := gorgonia.ApplyOp(o, nodes...)
	if err != nil {
		fail(o.name, "%v", err)
	}
	if tr.eager != nil {
		tr.computeEager(o, n)
	}
	return tr.wrap(n)
}

// ApplyOp is how packages outside ops (kernels of their own, tests) add an op:
// name and attrs identify it, out is the output shape, fwd the forward
// kernel and grad the symbolic gradient (nil: not differentiable).
func ApplyOp(name string, attrs any, out Shape, fwd func(out []float32, in [][]float32),
	grad func(in []Tensor, y, dy Tensor) []Tensor, inputs ...Tensor) Tensor {
	tr := sameTrace(name, inputs...)
	return tr.apply(&Op{name: name, attrs: attrs, out: out.Clone(), fwd: fwd, grad: grad}, inputs...)
}
