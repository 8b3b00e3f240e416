package layers

// rnnConfig holds the keyword arguments of the recurrent layers and of
// the layers that make or carry masks (Embedding's mask_zero, Masking,
// Bidirectional).
type rnnConfig struct {
	recurrentActivation string
	recurrentInit       Initializer
	recurrentReg        Regularizer
	unitForgetBias      bool
	resetAfter          bool
	returnSequences     bool
	returnState         bool
	goBackwards         bool
	stateful            bool
	unroll              bool
	dropout             float64
	recurrentDropout    float64
	zeroOutputForMask   bool
	maskZero            bool
	maskValue           float64
	mergeMode           string
	backward            Layer
}

// WithRecurrentActivation sets the activation of a recurrent layer's gates
// (Keras' recurrent_activation; default "sigmoid").
func WithRecurrentActivation(name string) Option {
	return func(c *config) { c.rnn.recurrentActivation = name; c.mark("recurrent_activation") }
}

// WithRecurrentInitializer sets the initializer of the recurrent kernel
// (Keras' recurrent_initializer; default [Orthogonal]).
func WithRecurrentInitializer(i Initializer) Option {
	return func(c *config) { c.rnn.recurrentInit = i; c.mark("recurrent_initializer") }
}

// WithRecurrentRegularizer adds a penalty on the recurrent kernel to the
// model's loss (Keras' recurrent_regularizer).
func WithRecurrentRegularizer(r Regularizer) Option {
	return func(c *config) { c.rnn.recurrentReg = r; c.mark("recurrent_regularizer") }
}

// WithUnitForgetBias sets whether LSTM's forget-gate bias starts at 1
// (Keras' unit_forget_bias; default true).
func WithUnitForgetBias(b bool) Option {
	return func(c *config) { c.rnn.unitForgetBias = b; c.mark("unit_forget_bias") }
}

// WithResetAfter sets whether GRU applies its reset gate after the
// recurrent product (Keras' reset_after; default true, two biases).
func WithResetAfter(b bool) Option {
	return func(c *config) { c.rnn.resetAfter = b; c.mark("reset_after") }
}

// WithReturnSequences makes a recurrent layer return the output of every
// timestep, (batch, timesteps, units), instead of the last one (Keras'
// return_sequences; default false).
func WithReturnSequences(b bool) Option {
	return func(c *config) { c.rnn.returnSequences = b; c.mark("return_sequences") }
}

// WithReturnState makes a recurrent layer return its final states too
// (Keras' return_state; default false). Call still returns the output (a
// layer has one output in gokeras' functional API); [RNN.CallWithStates]
// and [Bidirectional.CallWithStates] return the states in a traced step.
func WithReturnState(b bool) Option {
	return func(c *config) { c.rnn.returnState = b; c.mark("return_state") }
}

// WithGoBackwards makes a recurrent layer read the sequence from its end
// and return the reversed sequence (Keras' go_backwards; default false).
func WithGoBackwards(b bool) Option {
	return func(c *config) { c.rnn.goBackwards = b; c.mark("go_backwards") }
}

// WithStateful makes a recurrent layer start each batch from the final
// states of the previous batch, until [RNN.ResetStates] (Keras' stateful;
// default false). States are kept per batch size.
func WithStateful(b bool) Option {
	return func(c *config) { c.rnn.stateful = b; c.mark("stateful") }
}

// WithUnroll is accepted for Keras' unroll: gokeras always unrolls the
// time loop in the trace (traces are per input shape), so it changes
// nothing.
func WithUnroll(b bool) Option {
	return func(c *config) { c.rnn.unroll = b; c.mark("unroll") }
}

// WithInputDropout sets the fraction of the inputs a recurrent
// layer drops in training (Keras' dropout=; default 0): one mask per
// sequence, the same at every timestep, as Keras.
func WithInputDropout(rate float64) Option {
	return func(c *config) { c.rnn.dropout = rate; c.mark("dropout") }
}

// WithRecurrentDropout sets the fraction of the previous output a
// recurrent layer drops before its recurrent product in training (Keras'
// recurrent_dropout; default 0): one mask per sequence.
func WithRecurrentDropout(rate float64) Option {
	return func(c *config) { c.rnn.recurrentDropout = rate; c.mark("recurrent_dropout") }
}

// WithZeroOutputForMask makes a recurrent layer that returns sequences
// output zeros at masked timesteps instead of the previous output (Keras'
// zero_output_for_mask; Bidirectional sets it when it returns sequences).
func WithZeroOutputForMask(b bool) Option {
	return func(c *config) { c.rnn.zeroOutputForMask = b; c.mark("zero_output_for_mask") }
}

// WithMaskZero makes Embedding mask the timesteps whose id is 0, so that
// the recurrent layers after it skip them (Keras' mask_zero; default
// false).
func WithMaskZero(b bool) Option {
	return func(c *config) { c.rnn.maskZero = b; c.mark("mask_zero") }
}

// WithMaskValue sets the value Masking masks: a timestep whose features
// all equal it is skipped (Keras' mask_value; default 0).
func WithMaskValue(v float64) Option {
	return func(c *config) { c.rnn.maskValue = v; c.mark("mask_value") }
}

// WithMergeMode sets how Bidirectional combines the forward and backward
// outputs: "concat" (default), "sum", "mul" or "ave" (Keras' merge_mode).
func WithMergeMode(m string) Option {
	return func(c *config) { c.rnn.mergeMode = m; c.mark("merge_mode") }
}

// WithBackwardLayer gives Bidirectional its backward layer (Keras'
// backward_layer), which must read backwards (WithGoBackwards(true)).
// Without it Bidirectional copies the forward layer (a built-in
// recurrent layer) reading backwards.
func WithBackwardLayer(l Layer) Option {
	return func(c *config) { c.rnn.backward = l; c.mark("backward_layer") }
}
