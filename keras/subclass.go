package keras

import (
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// ModelCaller is the call of a model written as a Go type, Keras'
// `class MyModel(keras.Model)` with its own call: the outputs for the
// inputs in a traced step. Misuse panics with an *ops.Error, which Fit,
// Evaluate and Predict return as an error.
type ModelCaller interface {
	Call(inputs []ops.Tensor, training bool) ops.Tensor
}

// Subclass makes the model of a Go type that computes its own call, as
// Keras' subclassed models (`class VAE(keras.Model)`):
//
//	type VAE struct {
//		layers.Base        // or *keras.Model, set to the result of Subclass
//		encoder *Encoder
//		decoder *Decoder
//	}
//
//	func (v *VAE) Call(in []ops.Tensor, training bool) ops.Tensor {
//		zMean, zLogVar, z := v.encoder.Encode(in[0], training)
//		ops.AddLoss(klLoss(zMean, zLogVar)) // self.add_loss(kl_loss)
//		return layers.Call(v.decoder, training, z)
//	}
//
//	vae, err := keras.Subclass(NewVAE(784, 64, 32))
//
// The layers, variables and seed generators in impl's fields, of any
// visibility, are tracked as Keras tracks attributes (see layers.Track):
// the model's weights, trainable split, losses and saved weights are
// theirs, with nothing listed by hand. The model builds from the data at
// its first Fit, Evaluate or Predict, or at once with
// [SubclassInputShape]; Compile may name no loss when the call adds its
// losses (ops.AddLoss). Its weights are saved at the paths of its fields
// from the root of the file, as Keras saves a subclassed model's, so
// SaveWeights/LoadWeights exchange files with Keras. Save writes Keras'
// config of a registered subclassed model (with the arguments of a type
// that implements [SubclassConfigurer]); LoadModel makes it again only if
// its class is registered ([RegisterSubclass]), as Keras needs the class.
// A seed generator's state travels in checkpoints, not in .keras files
// (neither in Keras').
func Subclass(impl ModelCaller, opts ...SubclassOption) (*Model, error) {
	if impl == nil || reflect.ValueOf(impl).Kind() == reflect.Pointer && reflect.ValueOf(impl).IsNil() {
		return nil, errors.New("keras: Subclass: nil model")
	}
	var c subclassConfig
	for _, o := range opts {
		o(&c)
	}
	// self is the model made here: the *Model the type embeds once it is
	// set, which is the model itself, not a part. Other models in its
	// fields (a pretrained base, as self.base = base_model) are parts.
	var self *Model
	l, ok := impl.(layers.Layer)
	if !ok {
		t := reflect.TypeOf(impl)
		if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
			return nil, fmt.Errorf("keras: Subclass: %T is not a pointer to a struct", impl)
		}
		a := &subclassLayer{Base: layers.NewBase(t.Elem().Name()), impl: impl}
		a.TrackFields(impl, func(x any) bool {
			switch x := x.(type) {
			case *Model:
				return x == self
			case *ModelLayer:
				return x.m == self
			}
			return false
		})
		l = a
	}
	m, err := NewSequential(l)
	if err != nil {
		return nil, fmt.Errorf("keras: Subclass: %w", err)
	}
	self = m
	m.className = l.ClassName()
	m.subclass = l
	m.name = layers.UniqueName(kerasSnake(l.ClassName()))
	if c.inputShape != nil && !m.Built() {
		if err := m.build(c.inputShape); err != nil {
			return nil, fmt.Errorf("keras: Subclass: %w", err)
		}
	}
	return m, nil
}

// SubclassConfigurer is a subclassed model type that gives the arguments
// its constructor takes, as a Keras subclassed model's get_config: Save
// writes them in the model's config beside "name" and "trainable", and
// the function given to [RegisterSubclass] gets them back. Values must be
// JSON's (numbers, strings, booleans, lists, maps).
type SubclassConfigurer interface {
	SubclassConfig() map[string]any
}

// subclassSerialize is a subclassed model's config as Keras writes a
// registered subclassed model's: its class name (also its registered
// name, so Keras' load_model finds a class passed as
// custom_objects={"Name": cls}), a config of its name, trainable flag and
// [SubclassConfigurer]'s arguments, its build and compile configs. Its
// weights are at its fields' paths (saving_structure.go).
func (m *Model) subclassSerialize() (map[string]any, error) {
	inner, err := m.subclassConfig()
	if err != nil {
		return nil, err
	}
	out := map[string]any{"module": nil, "class_name": m.className, "config": inner, "registered_name": m.className}
	if m.Built() {
		out["build_config"] = map[string]any{"input_shape": batchShape(m.inputs[0].Shape())}
	}
	if m.compiled {
		cc, err := m.compileConfig()
		if err != nil {
			return nil, err
		}
		out["compile_config"] = cc
	}
	return out, nil
}

// subclassConfig is a subclassed model's get_config: its name, trainable
// flag and [SubclassConfigurer]'s arguments.
func (m *Model) subclassConfig() (map[string]any, error) {
	inner := map[string]any{"name": m.name, "trainable": m.Trainable()}
	impl := any(m.subclass)
	if a, ok := m.subclass.(*subclassLayer); ok {
		impl = a.impl
	}
	if c, ok := impl.(SubclassConfigurer); ok {
		for k, v := range c.SubclassConfig() {
			if k == "name" || k == "trainable" {
				return nil, fmt.Errorf("model class %q: SubclassConfig sets %q, which the model's own config holds", m.className, k)
			}
			inner[k] = v
		}
	}
	return inner, nil
}

// MustSubclass is like [Subclass] but panics on error.
func MustSubclass(impl ModelCaller, opts ...SubclassOption) *Model {
	m, err := Subclass(impl, opts...)
	if err != nil {
		panic(err)
	}
	return m
}

// SubclassOption sets an argument of [Subclass].
type SubclassOption func(*subclassConfig)

type subclassConfig struct{ inputShape ops.Shape }

// SubclassInputShape builds the model at once for inputs of this shape
// (without the batch), as calling a Keras subclassed model on data or
// model.build((None, ...)) does.
func SubclassInputShape(shape ...int) SubclassOption {
	return func(c *subclassConfig) { c.inputShape = ops.Shape(shape).Clone() }
}

// subclassLayer is the layer of a subclassed model whose type does not
// embed layers.Base: its Base tracks the type's fields.
type subclassLayer struct {
	layers.Base
	impl ModelCaller
}

// Call implements layers.Layer.
func (a *subclassLayer) Call(in []ops.Tensor, training bool) ops.Tensor {
	return a.impl.Call(in, training)
}

// usable reports the misuse of a zero Model: a Go type embedding
// keras.Model (or a *keras.Model left nil) that was never made by a
// constructor. Every method that returns an error checks it first; the
// accessors (Weights, Layers, Name, ...) of a nil *Model return nothing,
// and the graph methods (Call, AsLayer of a nil model) panic with it as
// an *ops.Error.
func (m *Model) usable(op string) error {
	const hint = "a Go port of `class M(keras.Model)` embeds *keras.Model and sets it to keras.Subclass(m) (see Subclass)"
	if m == nil {
		return fmt.Errorf("keras: %s: nil *keras.Model: %s", op, hint)
	}
	if m.className == "" {
		return fmt.Errorf("keras: %s: the Model was not made by NewSequential, NewModel or Subclass: %s", op, hint)
	}
	return nil
}

// mustUsable is [Model.usable] for the methods that build a traced step
// and return no error: misuse panics with an *ops.Error, which Fit,
// Evaluate, Predict and the other boundaries return as an error.
func (m *Model) mustUsable(op string) {
	if err := m.usable(op); err != nil {
		panic(&ops.Error{Op: "keras", Msg: err.Error()})
	}
}

var subclassRegistry = struct {
	sync.Mutex
	m map[string]func(cfg map[string]any) (*Model, error)
}{m: map[string]func(cfg map[string]any) (*Model, error){}}

// RegisterSubclass registers the constructor of a subclassed model's
// class (its Go type's name, the model's class name), so that LoadModel
// and ModelFromConfig make it, as Keras loads a registered subclassed
// model: newModel gets the saved config and returns the model (made with
// [Subclass]); it is built for the saved input shape and its weights are
// loaded into it.
func RegisterSubclass(class string, newModel func(cfg map[string]any) (*Model, error)) {
	if class == "" || newModel == nil {
		panic("keras: RegisterSubclass: empty class name or nil function")
	}
	subclassRegistry.Lock()
	defer subclassRegistry.Unlock()
	subclassRegistry.m[class] = newModel
}

func registeredSubclass(class string) func(cfg map[string]any) (*Model, error) {
	subclassRegistry.Lock()
	defer subclassRegistry.Unlock()
	return subclassRegistry.m[class]
}

// subclassFromConfig makes a registered subclassed model from its saved
// config and builds it for the saved input shape (build_config).
func subclassFromConfig(class string, newModel func(cfg map[string]any) (*Model, error), top map[string]any) (*Model, error) {
	inner, _ := top["config"].(map[string]any)
	m, err := newModel(inner)
	if err != nil {
		return nil, fmt.Errorf("model class %q: %w", class, err)
	}
	if m == nil {
		return nil, fmt.Errorf("model class %q: its constructor returned no model", class)
	}
	if m.Built() {
		return m, nil
	}
	bc, _ := top["build_config"].(map[string]any)
	shape, err := inputShapeOf(bc["input_shape"])
	if err != nil {
		return nil, fmt.Errorf("model class %q: build_config: %w", class, err)
	}
	if shape == nil {
		return m, nil // built by its first call, as the saved one was not
	}
	if err := m.build(shape); err != nil {
		return nil, fmt.Errorf("model class %q: %w", class, err)
	}
	return m, nil
}

// inputShapeOf reads a saved input shape [null, d1, ...] without the batch;
// nil when none was saved.
func inputShapeOf(v any) (ops.Shape, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, nil
	}
	out := make(ops.Shape, 0, len(list)-1)
	for _, d := range list[1:] {
		n, ok := toInt(d)
		if !ok || n <= 0 || n > 1<<31 {
			return nil, fmt.Errorf("input shape %v: dimension %v is not a positive size", list, d)
		}
		out = append(out, n)
	}
	return out, nil
}
