package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Embedding is keras.layers.Embedding: it maps integer ids (carried as
// float32, any shape) to rows of a (input_dim, output_dim) table, so
// (batch, T) -> (batch, T, output_dim). An id outside [0, input_dim) makes
// the step fail with an error.
type Embedding struct {
	Base
	inputDim, outputDim int
	initializer         Initializer
	Embeddings          *ops.Variable
}

// NewEmbedding makes an Embedding layer for inputDim ids of outputDim
// values each. Options: WithEmbeddingsInitializer (default uniform in
// [-0.05, 0.05], as Keras), WithEmbeddingsRegularizer, WithMaskZero (id 0
// masks its timestep for the recurrent layers after it), WithInputShape,
// WithName.
func NewEmbedding(inputDim, outputDim int, opts ...Option) *Embedding {
	l := &Embedding{inputDim: inputDim, outputDim: outputDim}
	l.init("Embedding", []string{"embeddings_initializer", "embeddings_regularizer", "mask_zero"}, opts)
	l.initializer = l.cfg.more.embeddingsInit
	if l.initializer == nil {
		l.initializer = RandomUniform(-0.05, 0.05)
	}
	if (inputDim <= 0 || outputDim <= 0) && l.err == nil {
		l.err = fmt.Errorf("layers: Embedding %q: input_dim %d and output_dim %d must be positive", l.name, inputDim, outputDim)
	}
	return l
}

// Build implements Layer.
func (l *Embedding) Build(in []ops.Shape) error {
	if len(in) != 1 {
		return fmt.Errorf("needs 1 input, got %d", len(in))
	}
	l.Embeddings = l.AddWeight("embeddings", ops.Shape{l.inputDim, l.outputDim}, l.initializer, true, l.cfg.more.embeddingsReg)
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Embedding) Call(in []ops.Tensor, _ bool) ops.Tensor {
	y := ops.Gather(in[0].Trace().Read(l.Embeddings), in[0])
	if l.cfg.rnn.maskZero && in[0].Rank() == 2 {
		SetMask(y, notEqualMask(in[0], 0))
	}
	return y
}

// GetConfig implements Layer.
func (l *Embedding) GetConfig() map[string]any {
	m := l.baseConfig()
	m["input_dim"] = l.inputDim
	m["output_dim"] = l.outputDim
	m["embeddings_initializer"] = initName(l.initializer, "RandomUniform")
	m["embeddings_regularizer"] = regConfig(l.cfg.more.embeddingsReg)
	m["mask_zero"] = l.cfg.rnn.maskZero
	return m
}
