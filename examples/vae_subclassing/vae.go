package main

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// Sampling is the guide's layer that draws z from (z_mean, z_log_var):
//
//	class Sampling(layers.Layer):
//	    def __init__(self, **kwargs):
//	        super().__init__(**kwargs)
//	        self.seed_generator = keras.random.SeedGenerator(1337)
//
//	    def call(self, inputs):
//	        z_mean, z_log_var = inputs
//	        epsilon = keras.random.normal(shape=ops.shape(z_mean), seed=self.seed_generator)
//	        return z_mean + ops.exp(0.5 * z_log_var) * epsilon
type Sampling struct {
	layers.Base
	seedGenerator *ops.SeedGenerator
}

// NewSampling makes the layer with the guide's seed.
func NewSampling() *Sampling {
	return &Sampling{Base: layers.NewBase("Sampling"), seedGenerator: ops.NewSeedGenerator("sampling/seed_generator", 1337)}
}

// Call implements layers.Layer.
func (s *Sampling) Call(in []ops.Tensor, _ bool) ops.Tensor {
	zMean, zLogVar := in[0], in[1]
	epsilon := ops.RandomNormal(zMean.Trace(), zMean.Shape(), 0, 1, s.seedGenerator)
	return ops.Add(zMean, ops.Mul(ops.Exp(ops.Scale(zLogVar, 0.5)), epsilon))
}

// Encoder maps MNIST digits to a triplet (z_mean, z_log_var, z). Its
// parts are plain fields: nothing lists their weights.
//
//	class Encoder(layers.Layer):
//	    def __init__(self, latent_dim=32, intermediate_dim=64, name="encoder", **kwargs):
//	        super().__init__(name=name, **kwargs)
//	        self.dense_proj = layers.Dense(intermediate_dim, activation="relu")
//	        self.dense_mean = layers.Dense(latent_dim)
//	        self.dense_log_var = layers.Dense(latent_dim)
//	        self.sampling = Sampling()
type Encoder struct {
	layers.Base
	denseProj   *layers.Dense
	denseMean   *layers.Dense
	denseLogVar *layers.Dense
	sampling    *Sampling
}

// NewEncoder makes the encoder.
func NewEncoder(latentDim, intermediateDim int) *Encoder {
	return &Encoder{
		Base:        layers.NewBase("Encoder", layers.WithName("encoder")),
		denseProj:   layers.NewDense(intermediateDim, layers.WithActivation("relu")),
		denseMean:   layers.NewDense(latentDim),
		denseLogVar: layers.NewDense(latentDim),
		sampling:    NewSampling(),
	}
}

// Encode is the guide's call, returning the triplet (a Go method, since a
// Layer's Call has one output).
func (e *Encoder) Encode(x ops.Tensor, training bool) (zMean, zLogVar, z ops.Tensor) {
	h := layers.Call(e.denseProj, training, x)
	zMean = layers.Call(e.denseMean, training, h)
	zLogVar = layers.Call(e.denseLogVar, training, h)
	z = layers.Call(e.sampling, training, zMean, zLogVar)
	return zMean, zLogVar, z
}

// Call implements layers.Layer: z.
func (e *Encoder) Call(in []ops.Tensor, training bool) ops.Tensor {
	_, _, z := e.Encode(in[0], training)
	return z
}

// Decoder converts z back into a readable digit.
//
//	class Decoder(layers.Layer):
//	    def __init__(self, original_dim, intermediate_dim=64, name="decoder", **kwargs):
//	        super().__init__(name=name, **kwargs)
//	        self.dense_proj = layers.Dense(intermediate_dim, activation="relu")
//	        self.dense_output = layers.Dense(original_dim, activation="sigmoid")
type Decoder struct {
	layers.Base
	denseProj   *layers.Dense
	denseOutput *layers.Dense
}

// NewDecoder makes the decoder.
func NewDecoder(originalDim, intermediateDim int) *Decoder {
	return &Decoder{
		Base:        layers.NewBase("Decoder", layers.WithName("decoder")),
		denseProj:   layers.NewDense(intermediateDim, layers.WithActivation("relu")),
		denseOutput: layers.NewDense(originalDim, layers.WithActivation("sigmoid")),
	}
}

// Call implements layers.Layer.
func (d *Decoder) Call(in []ops.Tensor, training bool) ops.Tensor {
	return layers.Call(d.denseOutput, training, layers.Call(d.denseProj, training, in[0]))
}

// VariationalAutoEncoder combines the encoder and decoder into a model
// for training, as the guide's `class VariationalAutoEncoder(keras.Model)`:
// a Go type embedding *keras.Model, set by keras.Subclass.
type VariationalAutoEncoder struct {
	*keras.Model
	encoder *Encoder
	decoder *Decoder
	// The constructor's arguments, which SubclassConfig saves (the
	// guide's self.original_dim).
	originalDim, intermediateDim, latentDim int
}

// NewVariationalAutoEncoder makes the model.
func NewVariationalAutoEncoder(originalDim, intermediateDim, latentDim int) (*VariationalAutoEncoder, error) {
	v := &VariationalAutoEncoder{encoder: NewEncoder(latentDim, intermediateDim), decoder: NewDecoder(originalDim, intermediateDim),
		originalDim: originalDim, intermediateDim: intermediateDim, latentDim: latentDim}
	m, err := keras.Subclass(v, keras.SubclassInputShape(originalDim))
	if err != nil {
		return nil, err
	}
	v.Model = m
	return v, nil
}

// SubclassConfig implements keras.SubclassConfigurer: the constructor's
// arguments, saved in the model's config as a Keras get_config would give
// them, so that the registered constructor (init) and a Python class of
// the same arguments make the model again from a .keras file.
func (v *VariationalAutoEncoder) SubclassConfig() map[string]any {
	return map[string]any{"original_dim": v.originalDim, "intermediate_dim": v.intermediateDim, "latent_dim": v.latentDim}
}

// Call is the guide's call, adding the KL divergence regularization loss:
//
//	def call(self, inputs):
//	    z_mean, z_log_var, z = self.encoder(inputs)
//	    reconstructed = self.decoder(z)
//	    kl_loss = -0.5 * ops.mean(z_log_var - ops.square(z_mean) - ops.exp(z_log_var) + 1)
//	    self.add_loss(kl_loss)
//	    return reconstructed
func (v *VariationalAutoEncoder) Call(in []ops.Tensor, training bool) ops.Tensor {
	zMean, zLogVar, z := v.encoder.Encode(in[0], training)
	reconstructed := layers.Call(v.decoder, training, z)
	kl := ops.Scale(ops.Mean(ops.AddScalar(ops.Sub(ops.Sub(zLogVar, ops.Square(zMean)), ops.Exp(zLogVar)), 1), false), -0.5)
	ops.AddLoss(kl)
	return reconstructed
}

// The guide's dimensions, which the example trains with.
const (
	originalDim     = 784
	intermediateDim = 64
	latentDim       = 32
)

// init registers the model's class, so that keras.LoadModel makes a
// VariationalAutoEncoder of a saved file again from the arguments its
// config holds (SubclassConfig), as Keras loads a subclassed model whose
// class it knows; the weights, at the paths of its fields, are then
// loaded into it.
func init() {
	keras.RegisterSubclass("VariationalAutoEncoder", func(cfg map[string]any) (*keras.Model, error) {
		dims := map[string]int{"original_dim": originalDim, "intermediate_dim": intermediateDim, "latent_dim": latentDim}
		for k := range dims {
			if v, ok := cfg[k]; ok {
				f, isNum := v.(float64)
				if !isNum || f != math.Trunc(f) || f < 1 || f > 1<<20 {
					return nil, fmt.Errorf("VariationalAutoEncoder: config %s = %v is not a positive size", k, v)
				}
				dims[k] = int(f)
			}
		}
		v, err := NewVariationalAutoEncoder(dims["original_dim"], dims["intermediate_dim"], dims["latent_dim"])
		if err != nil {
			return nil, err
		}
		return v.Model, nil
	})
}
