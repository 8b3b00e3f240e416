package layers

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/gokeras/gokeras/keras/mixedprecision"
	"github.com/gokeras/gokeras/ops"
)

// Operation is a keras.ops call in a functional graph: Keras 3 records
// `x + 3.0`, `ops.not_equal(tokens, 0)` or `ops.any(m, axis=-1)` made on
// symbolic tensors as nodes of the model, each an operation (a class of
// keras.src.ops, such as NotEqual or Any) with its own config (the op's
// constructor arguments: axis, keepdims, ...) and the arguments of its
// call, tensors and constants mixed ([x, 3.0]; [x, [slice, 0]] for
// x[:, 0]). Keras tells such a node from the layer of the same name (the
// Add operation from the Add layer) by its module, keras.src.ops.numpy
// rather than keras.layers.
//
// An Operation holds the call's arguments with [OpTensor] placeholders
// where its input tensors go: its inputs are the tensors of the call in
// the order the arguments list them. It has no weights. It computes in
// its inputs' precision, as Keras' operations do (no autocast under a
// mixed dtype policy). [CallOp] makes one and calls it on symbolic
// tensors; [OperationClasses] lists the classes gokeras computes.
type Operation struct {
	Base
	spec   *opSpec
	config map[string]any // the op's constructor arguments, without "name"
	args   []any
	kwargs map[string]any
	nIn    int
	run    opRun
}

// OpTensor is the place of an Operation's i-th input tensor among its
// call arguments.
type OpTensor int

// OpSlice is a Python slice among an Operation's arguments (the key of
// x[1:3] or x[::2]); a nil bound is Python's None.
type OpSlice struct{ Start, Stop, Step *int }

// OpEllipsis is Python's Ellipsis (x[..., 0]) among an Operation's
// arguments.
type OpEllipsis struct{}

// OpArray is a constant array among an Operation's arguments: a NumPy
// array or a tensor of the saved graph (Keras' __numpy__ and __tensor__),
// its values row-major.
type OpArray struct {
	Shape  []int
	Values []float64
	Dtype  string
}

// opRun computes an operation on its positional call arguments, tensors
// (ops.Tensor) and constants.
type opRun func(args []any) ops.Tensor

// opSpec is what gokeras knows of an operation class.
type opSpec struct {
	class, module string
	// params are the names of the call's arguments, in order; the first
	// required of them are needed.
	params   []string
	required int
	// config lists the constructor arguments the class takes besides
	// name, with their defaults (nil: None).
	config map[string]any
	// make reads the config (every key present, defaults filled in) and
	// returns the computation.
	make func(c *opConfig) (opRun, error)
}

var opSpecs = map[string]*opSpec{}

// defineOp registers an operation class (op_*.go files, at init).
func defineOp(s *opSpec) {
	if opSpecs[s.class] != nil {
		panic("layers: operation " + s.class + " defined twice")
	}
	opSpecs[s.class] = s
}

// OperationClasses lists the Keras operation classes an [Operation] can
// be, sorted.
func OperationClasses() []string {
	out := make([]string, 0, len(opSpecs))
	for c := range opSpecs {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// OperationModule returns the Keras module of an operation class
// ("keras.src.ops.numpy" for NotEqual), "" for a class gokeras does not
// know as an operation.
func OperationModule(class string) string {
	if s := opSpecs[class]; s != nil {
		return s.module
	}
	return ""
}

// NewOperation makes the operation of Keras class class with its config
// (the op's constructor arguments; "name" names the node) and the
// arguments of its call: args positional, kwargs by name, with an
// [OpTensor] where each input tensor goes (numbered from 0 in the order
// the arguments list them) and constants elsewhere: numbers, booleans,
// strings, nil, nested []any, [OpSlice], [OpEllipsis], [OpArray].
// Options: WithName. Errors (an unknown class or config key, a value of
// the wrong kind, a missing argument) are the layer's Err.
func NewOperation(class string, config map[string]any, args []any, kwargs map[string]any, opts ...Option) *Operation {
	o := &Operation{config: map[string]any{}}
	name, _ := config["name"].(string)
	if name != "" {
		opts = append([]Option{WithName(name)}, opts...)
	}
	o.init(class, nil, opts)
	o.trainable = true
	o.built = true
	o.policy = mixedprecision.MustPolicy("float32")
	fail := func(format string, a ...any) {
		if o.err == nil {
			o.err = fmt.Errorf("layers: operation %s %q: %s", class, o.name, fmt.Sprintf(format, a...))
		}
	}
	s := opSpecs[class]
	if s == nil {
		fail("not an operation gokeras computes (known: %s)", strings.Join(OperationClasses(), ", "))
		return o
	}
	o.spec = s
	for k, v := range config {
		if k == "name" {
			continue
		}
		if _, ok := s.config[k]; !ok {
			fail("config %q is not an argument of %s (it takes %s)", k, class, keyList(s.config))
			return o
		}
		o.config[k] = cloneArg(v)
	}
	for k, def := range s.config {
		if _, ok := o.config[k]; !ok {
			o.config[k] = def
		}
	}
	o.args = make([]any, len(args))
	for i, a := range args {
		o.args[i] = cloneArg(a)
	}
	o.kwargs = map[string]any{}
	for k, v := range kwargs {
		o.kwargs[k] = cloneArg(v)
	}
	seen := map[int]bool{}
	var bad error
	walkArgs(append(slices.Clone(o.args), mapValues(o.kwargs)...), func(v any) {
		if t, ok := v.(OpTensor); ok {
			if t < 0 || seen[int(t)] {
				bad = fmt.Errorf("input %d appears twice or is negative", int(t))
			}
			seen[int(t)] = true
		}
	})
	for i := range len(seen) {
		if !seen[i] && bad == nil {
			bad = fmt.Errorf("inputs are not numbered 0..%d", len(seen)-1)
		}
	}
	if bad != nil {
		fail("arguments: %v", bad)
		return o
	}
	o.nIn = len(seen)
	if o.nIn == 0 {
		fail("its call has no tensor argument")
		return o
	}
	if _, err := o.positional(o.args); err != nil {
		fail("%v", err)
		return o
	}
	c := &opConfig{m: o.config}
	run, err := s.make(c)
	if err == nil {
		err = c.err
	}
	if err != nil {
		fail("%v", err)
		return o
	}
	o.run = run
	return o
}

func keyList(m map[string]any) string {
	if len(m) == 0 {
		return "only name"
	}
	return strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}

func mapValues(m map[string]any) []any {
	out := make([]any, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	return out
}

// positional orders the call's arguments by the class's parameters: the
// positional ones, then the keyword ones in their places.
func (o *Operation) positional(args []any) ([]any, error) {
	s := o.spec
	if len(args) > len(s.params) {
		return nil, fmt.Errorf("takes %d arguments (%s), got %d", len(s.params), strings.Join(s.params, ", "), len(args))
	}
	out := make([]any, len(s.params))
	given := make([]bool, len(s.params))
	for i, a := range args {
		out[i], given[i] = a, true
	}
	for _, k := range slices.Sorted(maps.Keys(o.kwargs)) {
		i := slices.Index(s.params, k)
		if i < 0 {
			return nil, fmt.Errorf("keyword argument %q is not one of %s", k, strings.Join(s.params, ", "))
		}
		if given[i] {
			return nil, fmt.Errorf("argument %q given twice", k)
		}
		out[i], given[i] = o.kwargs[k], true
	}
	for i := range s.required {
		if !given[i] {
			return nil, fmt.Errorf("argument %q is missing", s.params[i])
		}
	}
	return out, nil
}

// cloneArg copies an argument tree, so that an Operation owns its own.
func cloneArg(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneArg(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = cloneArg(e)
		}
		return out
	case OpArray:
		return OpArray{Shape: slices.Clone(x.Shape), Values: slices.Clone(x.Values), Dtype: x.Dtype}
	case []int:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	}
	return v
}

// walkArgs calls f on every leaf of an argument tree.
func walkArgs(v any, f func(any)) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			walkArgs(e, f)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			walkArgs(x[k], f)
		}
	default:
		f(v)
	}
}

// fill replaces the placeholders of an argument tree with the tensors.
func fill(v any, in []ops.Tensor) any {
	switch x := v.(type) {
	case OpTensor:
		return in[int(x)]
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = fill(e, in)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = fill(e, in)
		}
		return out
	}
	return v
}

// Module returns the Keras module of the operation's class, as its
// config entry names it ("keras.src.ops.numpy").
func (o *Operation) Module() string {
	if o.spec == nil {
		return ""
	}
	return o.spec.module
}

// NumInputs is how many tensors the operation takes.
func (o *Operation) NumInputs() int { return o.nIn }

// CallArguments returns copies of the call's arguments, with an
// [OpTensor] where each input goes: what a saved node records.
func (o *Operation) CallArguments() (args []any, kwargs map[string]any) {
	args = make([]any, len(o.args))
	for i, a := range o.args {
		args[i] = cloneArg(a)
	}
	kwargs = map[string]any{}
	for k, v := range o.kwargs {
		kwargs[k] = cloneArg(v)
	}
	return args, kwargs
}

// SameCall reports whether args and kwargs are this operation's call
// arguments (a second node of one operation must be the same call on
// other tensors).
func (o *Operation) SameCall(args []any, kwargs map[string]any) bool {
	return argKey(o.args) == argKey(args) && argKey(o.kwargs) == argKey(kwargs)
}

// argKey prints an argument tree canonically: slices by their bounds (not
// their pointers), maps in key order, numbers by value.
func argKey(v any) string {
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			b.WriteString("[")
			for i, e := range x {
				if i > 0 {
					b.WriteString(",")
				}
				walk(e)
			}
			b.WriteString("]")
		case map[string]any:
			b.WriteString("{")
			for i, k := range slices.Sorted(maps.Keys(x)) {
				if i > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, "%q:", k)
				walk(x[k])
			}
			b.WriteString("}")
		case OpSlice:
			bound := func(p *int) string {
				if p == nil {
					return "None"
				}
				return fmt.Sprint(*p)
			}
			fmt.Fprintf(&b, "slice(%s,%s,%s)", bound(x.Start), bound(x.Stop), bound(x.Step))
		case OpTensor:
			fmt.Fprintf(&b, "T%d", int(x))
		default:
			if f, ok := argFloat(v); ok {
				if _, isBool := v.(bool); !isBool {
					fmt.Fprintf(&b, "%v", f)
					return
				}
			}
			fmt.Fprintf(&b, "%T:%v", v, v)
		}
	}
	walk(v)
	return b.String()
}

// Build implements Layer.
func (o *Operation) Build(in []ops.Shape) error {
	if o.err != nil {
		return o.err
	}
	if len(in) != o.nIn {
		return fmt.Errorf("takes %d tensors, got %d", o.nIn, len(in))
	}
	return nil
}

// Call implements Layer: the operation on its input tensors.
func (o *Operation) Call(in []ops.Tensor, _ bool) ops.Tensor {
	if o.err != nil {
		panic(&ops.Error{Op: o.opName(), Msg: o.err.Error()})
	}
	if len(in) != o.nIn {
		panic(&ops.Error{Op: o.opName(), Msg: fmt.Sprintf("takes %d tensors, got %d", o.nIn, len(in))})
	}
	pos, err := o.positional(o.args)
	if err != nil {
		panic(&ops.Error{Op: o.opName(), Msg: err.Error()})
	}
	y := o.run(fill(pos, in).([]any))
	// A model's tensors are batch-major, and Predict stacks its outputs
	// along the batch: an operation over the batch axis (a reduction of
	// every axis, a reshape or transpose moving the batch, x[0]) makes a
	// graph gokeras cannot run, said here rather than by a wrong stack.
	b := in[0].Shape()
	if len(b) > 0 {
		if ys := y.Shape(); len(ys) == 0 || ys[0] != b[0] {
			panic(&ops.Error{Op: o.opName(), Msg: fmt.Sprintf("its output %v does not keep the batch axis of its input %v (gokeras' models keep the batch first)", ys, b)})
		}
	}
	return y
}

func (o *Operation) opName() string { return fmt.Sprintf("operation %s %q", o.class, o.name) }

// GetConfig implements Layer: the name and the op's constructor
// arguments, as Keras' Operation.get_config.
func (o *Operation) GetConfig() map[string]any {
	cfg := map[string]any{"name": o.name}
	for k, v := range o.config {
		cfg[k] = cloneArg(v)
	}
	return cfg
}

// DTypePolicy is float32 whatever the global policy: an operation
// computes in its inputs' precision, without a layer's autocast.
func (o *Operation) DTypePolicy() mixedprecision.DTypePolicy { return o.policy }

// CallOp calls the Keras operation class on symbolic arguments, as a
// keras.ops function called on KerasTensors records a node in Keras 3:
// CallOp("Add", nil, x, 3.0) is `x + 3.0`, CallOp("Any",
// map[string]any{"axis": -1}, m) is `ops.any(m, axis=-1)`. Arguments are
// *KerasTensor values, constants (numbers, booleans, nil, strings,
// [OpSlice], [OpEllipsis], [OpArray]) or []any lists of them
// (Concatenate's list of tensors). Errors are kept in the result, as
// [Apply] keeps them.
func CallOp(class string, config map[string]any, args ...any) *KerasTensor {
	var ins []*KerasTensor
	var conv func(v any) any
	conv = func(v any) any {
		switch x := v.(type) {
		case *KerasTensor:
			ins = append(ins, x)
			return OpTensor(len(ins) - 1)
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = conv(e)
			}
			return out
		case []*KerasTensor:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = conv(e)
			}
			return out
		case int:
			return float64(x)
		case float32:
			return float64(x)
		}
		return v
	}
	targs := make([]any, len(args))
	for i, a := range args {
		targs[i] = conv(a)
	}
	o := NewOperation(class, config, targs, nil)
	if err := o.Err(); err != nil {
		return &KerasTensor{err: err}
	}
	return Apply(o, ins...)
}
