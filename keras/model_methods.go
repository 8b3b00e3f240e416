package keras

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gokeras/gokeras/keras/layers"
	"gorgonia.org/tensor"
)

// CountParams returns the number of values in the model's weights,
// trainable or not, as Keras' model.count_params().
func (m *Model) CountParams() int {
	if m == nil {
		return 0
	}
	n := 0
	for _, w := range m.Weights() {
		n += w.Shape().Size()
	}
	return n
}

// GetLayer returns the layer named name, as Keras' model.get_layer(name).
func (m *Model) GetLayer(name string) (layers.Layer, error) {
	if err := m.usable("GetLayer"); err != nil {
		return nil, err
	}
	for _, l := range m.Layers() {
		if l.Name() == name {
			return l, nil
		}
	}
	names := make([]string, 0, len(m.Layers()))
	for _, l := range m.Layers() {
		names = append(names, l.Name())
	}
	return nil, fmt.Errorf("keras: GetLayer: no layer named %q in model %q (it has %s)", name, m.name, strings.Join(names, ", "))
}

// ToJSON returns the model's architecture as Keras' model.to_json():
// {"class_name": ..., "config": ...}, the config.json of a .keras file.
// [ModelFromJSON] makes a new model from it.
func (m *Model) ToJSON() (string, error) {
	if err := m.usable("ToJSON"); err != nil {
		return "", err
	}
	cfg, err := m.serialize()
	if err != nil {
		return "", fmt.Errorf("keras: ToJSON: %w", err)
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return "", fmt.Errorf("keras: ToJSON: %w", err)
	}
	return string(b), nil
}

// maxModelJSON bounds what ModelFromJSON reads: a model's architecture,
// not its weights.
const maxModelJSON = 64 << 20

// ModelFromJSON makes a model of fresh weights from the JSON of
// [Model.ToJSON] or of Keras' model.to_json(), as
// keras.models.model_from_json.
func ModelFromJSON(s string) (*Model, error) {
	if len(s) > maxModelJSON {
		return nil, fmt.Errorf("keras: ModelFromJSON: %d bytes, more than the %d a model's architecture takes", len(s), maxModelJSON)
	}
	var cfg map[string]any
	if err := json.Unmarshal([]byte(s), &cfg); err != nil {
		return nil, fmt.Errorf("keras: ModelFromJSON: %w", err)
	}
	if _, ok := cfg["class_name"].(string); !ok {
		return nil, fmt.Errorf("keras: ModelFromJSON: no \"class_name\": not a model's JSON")
	}
	return ModelFromConfig(cfg)
}

// batchRows is the number of examples in one batch of x (a tensor, or a
// slice or map of them for several inputs).
func batchRows(x any) (int, error) {
	switch t := x.(type) {
	case *tensor.Dense:
		if t != nil && len(t.Shape()) > 0 {
			return t.Shape()[0], nil
		}
	case []*tensor.Dense:
		if len(t) > 0 {
			return batchRows(t[0])
		}
	case map[string]*tensor.Dense:
		for _, v := range t {
			return batchRows(v)
		}
	}
	return 0, fmt.Errorf("a batch must be a *tensor.Dense or a slice or map of them, got %T", x)
}

// OnBatchOption sets an argument of [Model.TrainOnBatch] or
// [Model.TestOnBatch] beside x and y.
type OnBatchOption func(*onBatchConfig)

type onBatchConfig struct {
	sampleWeight any
	classWeight  map[int]float64
}

// SampleWeight is train_on_batch's and test_on_batch's sample_weight: one
// weight per example of the batch, as [FitConfig.SampleWeight].
func SampleWeight(sw any) OnBatchOption {
	return func(c *onBatchConfig) { c.sampleWeight = sw }
}

// ClassWeight is train_on_batch's class_weight: class index -> weight,
// as [FitConfig.ClassWeight]; not with SampleWeight.
func ClassWeight(cw map[int]float64) OnBatchOption {
	return func(c *onBatchConfig) { c.classWeight = cw }
}

func onBatchOptions(opts []OnBatchOption) onBatchConfig {
	var c onBatchConfig
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// TrainOnBatch runs one training step on the batch (x, y) and returns the
// logs, as Keras' model.train_on_batch(x, y, sample_weight, class_weight,
// return_dict=True): the metrics are reset first, as Keras 3 does at every
// call, so the logs are this batch's, computed before the update; the
// model's History is left alone.
func (m *Model) TrainOnBatch(x, y any, opts ...OnBatchOption) (Logs, error) {
	if err := m.usable("TrainOnBatch"); err != nil {
		return nil, err
	}
	n, err := batchRows(x)
	if err != nil {
		return nil, fmt.Errorf("keras: TrainOnBatch: %w", err)
	}
	c := onBatchOptions(opts)
	keep := m.History
	defer func() { m.History = keep }()
	h, err := m.Fit(x, y, FitConfig{BatchSize: n, NoShuffle: true, Verbose: VerboseSilent, SampleWeight: c.sampleWeight, ClassWeight: c.classWeight})
	if err != nil {
		return nil, fmt.Errorf("keras: TrainOnBatch: %w", err)
	}
	logs := Logs{}
	for k, v := range h.History {
		logs[k] = v[len(v)-1]
	}
	return logs, nil
}

// TestOnBatch evaluates the model on one batch, as Keras'
// model.test_on_batch(x, y, sample_weight, return_dict=True). A
// ClassWeight is refused, as test_on_batch has none.
func (m *Model) TestOnBatch(x, y any, opts ...OnBatchOption) (Logs, error) {
	if err := m.usable("TestOnBatch"); err != nil {
		return nil, err
	}
	n, err := batchRows(x)
	if err != nil {
		return nil, fmt.Errorf("keras: TestOnBatch: %w", err)
	}
	c := onBatchOptions(opts)
	if c.classWeight != nil {
		return nil, fmt.Errorf("keras: TestOnBatch: no class weights (Keras' test_on_batch takes sample_weight only)")
	}
	return m.Evaluate(x, y, EvaluateConfig{BatchSize: n, Verbose: VerboseSilent, SampleWeight: c.sampleWeight})
}

// PredictOnBatch returns the model's output for one batch, as Keras'
// model.predict_on_batch(x).
func (m *Model) PredictOnBatch(x any) (*tensor.Dense, error) {
	if err := m.usable("PredictOnBatch"); err != nil {
		return nil, err
	}
	n, err := batchRows(x)
	if err != nil {
		return nil, fmt.Errorf("keras: PredictOnBatch: %w", err)
	}
	return m.Predict(x, PredictConfig{BatchSize: n, Verbose: VerboseSilent})
}
