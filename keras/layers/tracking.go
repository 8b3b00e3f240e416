package layers

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"unsafe"

	"github.com/gokeras/gokeras/ops"
)

// Tracking of sublayers and variables: what Keras does when a layer's
// __init__ assigns `self.dense = Dense(...)` or `self.w = self.add_weight(...)`.
//
// A user's layer embeds [Base] and keeps its parts in fields of any
// visibility: layers (Dense, a model used as a layer, another user
// layer), *ops.Variable, and slices, arrays, maps with string keys and
// structs of them. The first time the framework meets the layer (Apply,
// OutputShape, Call, a model holding it) its Base learns which value
// embeds it, and from then on walks those fields: Weights, the trainable
// split, SetTrainable, regularization losses, seed generators (Dropout
// inside) and saving include the parts, in field order, as Keras orders
// its tracked attributes. Built-in layers list their parts themselves and
// are not walked.

// baseHolder is every type that embeds Base: the method is promoted.
type baseHolder interface{ layerBase() *Base }

func (b *Base) layerBase() *Base { return b }

var (
	baseType     = reflect.TypeFor[Base]()
	layerType    = reflect.TypeFor[Layer]()
	variableType = reflect.TypeFor[*ops.Variable]()
	seedGenType  = reflect.TypeFor[*ops.SeedGenerator]()
	thisPackage  = baseType.PkgPath()
)

// maxTrackDepth bounds the walk into nested containers of a layer's
// fields (a cycle through values, or a pathological type).
const maxTrackDepth = 8

// Track makes l's Base track the layers and variables in l's fields (see
// the package's tracking above). The framework does it the first time it
// meets l; a layer whose weights are asked for before that (built by hand
// with its Build) calls Track(l) itself. It does nothing for built-in
// layers and for types that do not embed Base.
func Track(l Layer) {
	h, ok := l.(baseHolder)
	if !ok {
		return
	}
	b := h.layerBase()
	if b.self != nil {
		return
	}
	t := reflect.TypeOf(l)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct || t.Elem().PkgPath() == thisPackage {
		return
	}
	b.self = l
}

// TrackFields makes b track the layers, variables and seed generators in
// the fields of obj, a pointer to a struct, leaving out the values for
// which skip (if not nil) is true: what a layer that does not embed its
// Base in the struct holding its parts uses (keras.Subclass does, for a
// model type embedding *keras.Model).
func (b *Base) TrackFields(obj any, skip func(any) bool) {
	if t := reflect.TypeOf(obj); t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic(&ops.Error{Op: "layers.TrackFields", Msg: fmt.Sprintf("needs a pointer to a struct, got %T", obj)})
	}
	b.self, b.skip = obj, skip
}

// trackedPart is one part found in a layer's fields: a sublayer, a
// variable or a seed generator, with the attribute name Keras would save
// it under.
type trackedPart struct {
	attr  string
	layer Layer
	v     *ops.Variable
	gen   *ops.SeedGenerator
}

// parts walks the fields of the layer embedding b, in declaration order,
// each part once. Nil for a layer that is not tracked.
func (b *Base) parts() []trackedPart {
	if b.self == nil {
		return nil
	}
	w := &partWalker{self: b.self, skip: b.skip, seen: map[any]bool{}}
	w.structFields(reflect.ValueOf(b.self).Elem(), "", 0)
	return w.out
}

type partWalker struct {
	self any
	skip func(any) bool
	seen map[any]bool
	out  []trackedPart
}

// structFields visits the fields of struct value v (addressable).
func (w *partWalker) structFields(v reflect.Value, prefix string, depth int) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type == baseType {
			continue // the layer's own bookkeeping
		}
		fv := v.Field(i)
		if !fv.CanInterface() {
			if !fv.CanAddr() {
				continue
			}
			fv = reflect.NewAt(fv.Type(), unsafe.Pointer(fv.UnsafeAddr())).Elem()
		}
		name := f.Tag.Get("keras")
		if name == "-" {
			continue
		}
		if name == "" {
			name = snake(f.Name)
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			// An embedded helper struct: its fields are the layer's own.
			w.structFields(fv, prefix, depth+1)
			continue
		}
		w.value(fv, prefix+name, depth+1)
	}
}

// mayHold reports whether values of type t can hold a layer or a
// variable, so that slices of numbers are never walked element by element.
func mayHold(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface, reflect.Pointer:
		return true
	case reflect.Slice, reflect.Array:
		return mayHold(t.Elem())
	case reflect.Map:
		return t.Key().Kind() == reflect.String && mayHold(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if mayHold(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

func (w *partWalker) value(v reflect.Value, attr string, depth int) {
	if depth > maxTrackDepth || !mayHold(v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return
		}
	}
	if w.skip != nil && v.CanInterface() && w.skip(v.Interface()) {
		return
	}
	if v.Type() == seedGenType {
		g := v.Interface().(*ops.SeedGenerator)
		if !w.seen[g] {
			w.seen[g] = true
			w.out = append(w.out, trackedPart{attr: attr, gen: g})
		}
		return
	}
	if v.Type() == variableType {
		p := v.Interface().(*ops.Variable)
		if !w.seen[p] {
			w.seen[p] = true
			w.out = append(w.out, trackedPart{attr: attr, v: p})
		}
		return
	}
	if v.Kind() != reflect.Struct && v.Type().Implements(layerType) {
		l := v.Interface().(Layer)
		w.layer(l, attr)
		return
	}
	// A model (keras.Model is not a Layer; its AsLayer is).
	if m := v.MethodByName("AsLayer"); m.IsValid() && m.Type().NumIn() == 0 && m.Type().NumOut() == 1 && m.Type().Out(0).Implements(layerType) {
		w.layer(m.Call(nil)[0].Interface().(Layer), attr)
		return
	}
	switch v.Kind() {
	case reflect.Interface:
		w.value(v.Elem(), attr, depth+1)
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			w.value(v.Index(i), fmt.Sprintf("%s/%d", attr, i), depth+1)
		}
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return cmp.Compare(a.String(), b.String()) })
		for _, k := range keys {
			w.value(v.MapIndex(k), attr+"/"+k.String(), depth+1)
		}
	case reflect.Struct:
		if !v.CanAddr() {
			c := reflect.New(v.Type()).Elem()
			c.Set(v)
			v = c
		}
		w.structFields(v, attr+"/", depth+1)
	}
}

func (w *partWalker) layer(l Layer, attr string) {
	if l == nil || any(l) == w.self || w.skip != nil && w.skip(l) {
		return
	}
	if rv := reflect.ValueOf(l); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return
	}
	if w.seen[l] {
		return
	}
	w.seen[l] = true
	Track(l)
	w.out = append(w.out, trackedPart{attr: attr, layer: l})
}

// trackedSeedGenerators is the seed generators a tracked layer's fields
// hold.
func (b *Base) trackedSeedGenerators() []*ops.SeedGenerator {
	var out []*ops.SeedGenerator
	for _, p := range b.parts() {
		if p.gen != nil {
			out = append(out, p.gen)
		}
	}
	return out
}

// Sublayers returns the layers that l's fields hold, in field order, each
// once: Keras' layer._layers. It is nil for built-in layers.
func Sublayers(l Layer) []Layer {
	h, ok := l.(baseHolder)
	if !ok {
		return nil
	}
	Track(l)
	var out []Layer
	for _, p := range h.layerBase().parts() {
		if p.layer != nil {
			out = append(out, p.layer)
		}
	}
	return out
}

// TrackedChildren returns what saving writes below a tracked layer, as
// Keras' saving walks a layer's attributes: its own variables (made with
// AddWeight, or held in its fields), and each sublayer under its
// attribute name (the field's `keras:"name"` tag, else the snake case of
// the field's name), in the sorted order of those names. ok is false
// for a layer that is not tracked.
func TrackedChildren(l Layer) (own []*ops.Variable, attrs []string, children []Layer, ok bool) {
	h, isBase := l.(baseHolder)
	if !isBase {
		return nil, nil, nil, false
	}
	Track(l)
	b := h.layerBase()
	if b.self == nil {
		return nil, nil, nil, false
	}
	own = b.ownWeights()
	type child struct {
		attr string
		l    Layer
	}
	var cs []child
	for _, p := range b.parts() {
		if p.layer != nil {
			cs = append(cs, child{p.attr, p.layer})
		}
	}
	slices.SortStableFunc(cs, func(a, b child) int { return cmp.Compare(a.attr, b.attr) })
	for _, c := range cs {
		attrs = append(attrs, c.attr)
		children = append(children, c.l)
	}
	return own, attrs, children, true
}

// ownWeights is the layer's own weights: those AddWeight made, trainable
// first, then variables held in its fields that AddWeight did not make.
func (b *Base) ownWeights() []*ops.Variable {
	var tr, non []*ops.Variable
	for _, w := range b.weights {
		if w.Trainable() {
			tr = append(tr, w)
		} else {
			non = append(non, w)
		}
	}
	out := append(tr, non...)
	for _, p := range b.parts() {
		if p.v != nil && !slices.Contains(out, p.v) {
			out = append(out, p.v)
		}
	}
	return out
}

// trackedWeights is Keras' layer.weights of a tracked layer: its own,
// then each sublayer's in field order, each variable once.
func (b *Base) trackedWeights() []*ops.Variable {
	out := b.ownWeights()
	seen := map[*ops.Variable]bool{}
	for _, v := range out {
		seen[v] = true
	}
	for _, p := range b.parts() {
		if p.layer == nil {
			continue
		}
		for _, v := range p.layer.Weights() {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}
