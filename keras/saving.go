package keras

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
	"github.com/sbinet/npyio/npy"
)

// Saving and loading.
//
// Weights files (.weights.npz) are NumPy npz archives: one float32 array
// per weight, keyed by the variable's name ("dense/kernel"), with the
// variable's shape, so that numpy.load reads them. Model files (.keras) are
// Keras 3's zip layout: config.json, metadata.json and model.weights.npz.
// Checkpoints are npz archives holding the weights, the optimizer's
// variables under "optimizer/" and the epoch.
//
// Every file is written to a temporary file in the destination's directory,
// synced and renamed over the destination: readers see the old file or the
// new one, never a partial one.

// KerasVersion is what metadata.json of a .keras file records.
const KerasVersion = "3.x-compatible (gokeras)"

// Keys of the npz archives besides the model's weights.
const (
	optimizerPrefix   = "optimizer/"
	ckptEpochKey      = "checkpoint/epoch"
	ckptLRKey         = "checkpoint/learning_rate"
	ckptInputShapeKey = "checkpoint/input_shape"
)

// Members of a .keras archive.
const (
	kerasConfigFile   = "config.json"
	kerasMetadataFile = "metadata.json"
	kerasWeightsFile  = "model.weights.npz"
)

// warnf reports what Keras reports as warnings (a model loaded without its
// compile configuration). A variable so that tests can observe it.
var warnf = log.Printf

// SaveWeights writes the model's weights to path, an npz archive NumPy
// reads (Keras' save_weights; the name should end in .weights.npz): one
// float32 array per weight, keyed by the variable name ("dense/kernel").
func (m *Model) SaveWeights(path string) error {
	if !strings.HasSuffix(path, ".npz") {
		return fmt.Errorf("keras: SaveWeights %s: the file name must end in .weights.npz (an npz archive)", path)
	}
	if !m.Built() {
		return fmt.Errorf("keras: SaveWeights %s: %w", path, m.notBuilt())
	}
	err := writeFileAtomic(path, func(w io.Writer) error {
		nw := newNPZWriter(w)
		if err := m.writeWeights(nw); err != nil {
			return err
		}
		return nw.close()
	})
	if err != nil {
		return fmt.Errorf("keras: SaveWeights %s: %w", path, err)
	}
	return nil
}

// LoadWeights sets the model's weights from a file written by
// [Model.SaveWeights] (or [Model.SaveCheckpoint], or the weights of a
// .keras file), matching arrays to weights by name. Every weight must be in
// the file with the weight's shape; arrays the model has no weight for are
// ignored. Nothing is assigned unless every weight is found. Every replica
// copy of a mirrored weight is set.
func (m *Model) LoadWeights(path string) error {
	if err := m.loadWeights(path); err != nil {
		return fmt.Errorf("keras: LoadWeights %s: %w", path, err)
	}
	return nil
}

func (m *Model) loadWeights(path string) error {
	if !m.Built() {
		return m.notBuilt()
	}
	var r *npzReader
	if strings.HasSuffix(path, ".keras") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			return fmt.Errorf("not a .keras (zip) archive: %w", err)
		}
		defer zr.Close()
		b, err := readZipMember(&zr.Reader, kerasWeightsFile)
		if err != nil {
			return err
		}
		if r, err = newNPZReader(bytes.NewReader(b), int64(len(b))); err != nil {
			return fmt.Errorf("%s: %w", kerasWeightsFile, err)
		}
	} else {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		if r, err = newNPZReader(f, st.Size()); err != nil {
			return err
		}
	}
	ws, err := m.namedWeights()
	if err != nil {
		return err
	}
	vals, err := readVariables(r, "", ws)
	if err != nil {
		return err
	}
	return assignAll(ws, vals)
}

// SaveCheckpoint writes the model's weights, its optimizer's variables
// (iterations and slots) and the epoch to resume at to one npz archive. The
// epoch is the number of epochs the model's last Fit completed (per
// [Model.History]): what [Model.RestoreCheckpoint] returns and
// FitConfig.InitialEpoch takes. Use [Model.SaveCheckpointEpoch] to record
// another.
func (m *Model) SaveCheckpoint(path string) error {
	return m.SaveCheckpointEpoch(path, m.completedEpochs())
}

// SaveCheckpointEpoch is [Model.SaveCheckpoint] recording epoch as the
// epoch to resume at.
func (m *Model) SaveCheckpointEpoch(path string, epoch int) error {
	if !strings.HasSuffix(path, ".npz") {
		return fmt.Errorf("keras: SaveCheckpoint %s: the file name must end in .npz", path)
	}
	if !m.Built() {
		return fmt.Errorf("keras: SaveCheckpoint %s: %w", path, m.notBuilt())
	}
	if epoch < 0 {
		return fmt.Errorf("keras: SaveCheckpoint %s: negative epoch %d", path, epoch)
	}
	err := writeFileAtomic(path, func(w io.Writer) error {
		nw := newNPZWriter(w)
		if err := m.writeWeights(nw); err != nil {
			return err
		}
		if err := m.writeOptimizer(nw); err != nil {
			return err
		}
		if err := nw.addInt64(ckptEpochKey, nil, []int64{int64(epoch)}); err != nil {
			return err
		}
		if lr, ok := m.constantLearningRate(); ok {
			if err := nw.addFloat64(ckptLRKey, nil, []float64{lr}); err != nil {
				return err
			}
		}
		if len(m.inputs) == 1 {
			s := m.inputs[0].Shape()[1:]
			dims := make([]int64, len(s))
			for i, d := range s {
				dims[i] = int64(d)
			}
			if err := nw.addInt64(ckptInputShapeKey, []int{len(dims)}, dims); err != nil {
				return err
			}
		}
		return nw.close()
	})
	if err != nil {
		return fmt.Errorf("keras: SaveCheckpoint %s: %w", path, err)
	}
	return nil
}

// RestoreCheckpoint restores what [Model.SaveCheckpoint] wrote: the
// weights, the optimizer's variables (creating the optimizer's slots if it
// has not trained yet) and its learning rate when it is a constant, and
// returns the epoch to resume at (pass it as FitConfig.InitialEpoch). A
// Sequential model not built yet is built from the input shape the
// checkpoint records. Nothing is assigned unless every weight and optimizer
// variable is found with its shape.
func (m *Model) RestoreCheckpoint(path string) (epoch int, err error) {
	epoch, err = m.restoreCheckpoint(path)
	if err != nil {
		return 0, fmt.Errorf("keras: RestoreCheckpoint %s: %w", path, err)
	}
	return epoch, nil
}

func (m *Model) restoreCheckpoint(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	r, err := newNPZReader(f, st.Size())
	if err != nil {
		return 0, err
	}
	if !r.has(ckptEpochKey) {
		return 0, fmt.Errorf("no %q array: not a checkpoint (use LoadWeights for weights files)", ckptEpochKey)
	}
	a, err := r.read(ckptEpochKey)
	if err != nil {
		return 0, err
	}
	ep, err := a.int64s()
	if err != nil || len(ep) != 1 || ep[0] < 0 {
		return 0, fmt.Errorf("%q is not a non-negative integer scalar", ckptEpochKey)
	}
	if !m.Built() && m.sequential && r.has(ckptInputShapeKey) {
		a, err := r.read(ckptInputShapeKey)
		if err != nil {
			return 0, err
		}
		dims, err := a.int64s()
		if err != nil {
			return 0, fmt.Errorf("%s: %w", ckptInputShapeKey, err)
		}
		shape := make(ops.Shape, len(dims))
		for i, d := range dims {
			if d <= 0 {
				return 0, fmt.Errorf("%s: bad input shape %v", ckptInputShapeKey, dims)
			}
			shape[i] = int(d)
		}
		if err := m.build(shape); err != nil {
			return 0, err
		}
	}
	if !m.Built() {
		return 0, m.notBuilt()
	}
	ws, err := m.namedWeights()
	if err != nil {
		return 0, err
	}
	vals, err := readVariables(r, "", ws)
	if err != nil {
		return 0, err
	}
	restoreOpt, err := m.prepareOptimizerRestore(r)
	if err != nil {
		return 0, err
	}
	lr := math.NaN()
	if r.has(ckptLRKey) {
		a, err := r.read(ckptLRKey)
		if err != nil {
			return 0, err
		}
		v, err := a.float64s()
		if err != nil || len(v) != 1 {
			return 0, fmt.Errorf("%q is not a scalar", ckptLRKey)
		}
		lr = v[0]
	}
	if err := assignAll(ws, vals); err != nil {
		return 0, err
	}
	if err := restoreOpt(); err != nil {
		return 0, err
	}
	if _, constant := m.constantLearningRate(); constant && !math.IsNaN(lr) {
		m.optimizer.SetLearningRate(lr)
	}
	return int(ep[0]), nil
}

// completedEpochs is the epoch after the last one the last Fit recorded.
func (m *Model) completedEpochs() int {
	if h := m.History; h != nil && len(h.Epoch) > 0 {
		return h.Epoch[len(h.Epoch)-1] + 1
	}
	return 0
}

// constantLearningRate returns the optimizer's learning rate when it is a
// constant rather than a schedule.
func (m *Model) constantLearningRate() (float64, bool) {
	if m.optimizer == nil {
		return 0, false
	}
	if _, ok := m.optimizer.GetConfig()["learning_rate"].(float64); !ok {
		return 0, false
	}
	return m.optimizer.CurrentLearningRate(), true
}

func (m *Model) notBuilt() error {
	return fmt.Errorf("model %s is not built yet, so it has no weights: give its first layer an input shape (layers.WithInputShape), or call Fit or Predict first", m.name)
}

// namedWeights returns the model's weights, checking that their names,
// the keys of the files, are unique.
func (m *Model) namedWeights() ([]*ops.Variable, error) {
	ws := m.Weights()
	seen := make(map[string]bool, len(ws))
	for _, w := range ws {
		if seen[w.Name()] {
			return nil, fmt.Errorf("two weights are named %q: give the layers distinct names", w.Name())
		}
		seen[w.Name()] = true
	}
	return ws, nil
}

func (m *Model) writeWeights(nw *npzWriter) error {
	ws, err := m.namedWeights()
	if err != nil {
		return err
	}
	for _, w := range ws {
		if err := nw.addFloat32(w.Name(), w.Shape(), w.Numpy()); err != nil {
			return err
		}
	}
	return nil
}

func (m *Model) writeOptimizer(nw *npzWriter) error {
	if m.optimizer == nil {
		return nil
	}
	for _, v := range m.optimizer.Variables() {
		if err := nw.addFloat32(optimizerPrefix+v.Name(), v.Shape(), v.Numpy()); err != nil {
			return err
		}
	}
	return nil
}

// readVariables reads prefix+name for every variable, checking shapes,
// without assigning anything.
func readVariables(r *npzReader, prefix string, vars []*ops.Variable) ([][]float32, error) {
	out := make([][]float32, len(vars))
	for i, v := range vars {
		key := prefix + v.Name()
		if !r.has(key) {
			return nil, fmt.Errorf("weight %q is missing from the file, which holds %s", key, r.describe())
		}
		a, err := r.read(key)
		if err != nil {
			return nil, err
		}
		if !slices.Equal(a.shape, []int(v.Shape())) {
			return nil, fmt.Errorf("weight %q has shape %s in the file but %s in the model", key, shapeStr(a.shape), shapeStr(v.Shape()))
		}
		if out[i], err = a.float32s(); err != nil {
			return nil, fmt.Errorf("weight %q: %w", key, err)
		}
	}
	return out, nil
}

func assignAll(vars []*ops.Variable, vals [][]float32) error {
	for i, v := range vars {
		if err := v.Assign(vals[i]); err != nil {
			return err
		}
	}
	return nil
}

// prepareOptimizerRestore checks the optimizer variables of r against the
// model's optimizer and returns the function that assigns them. An
// optimizer that has not trained yet has no slot variables: they are
// created here, by one update with zero gradients whose effects (on the
// weights, through weight decay, and on the step count) are undone.
// Slots the file lacks (they did not exist when it was written) are reset
// to zero.
func (m *Model) prepareOptimizerRestore(r *npzReader) (func() error, error) {
	nothing := func() error { return nil }
	opt := m.optimizer
	var fileKeys []string
	for _, k := range r.keys {
		if strings.HasPrefix(k, optimizerPrefix) {
			fileKeys = append(fileKeys, k)
		}
	}
	if opt == nil || len(fileKeys) == 0 {
		return nothing, nil
	}
	have := map[string]bool{}
	for _, v := range opt.Variables() {
		have[v.Name()] = true
	}
	for _, k := range fileKeys {
		if !have[strings.TrimPrefix(k, optimizerPrefix)] {
			if err := m.createOptimizerSlots(); err != nil {
				return nil, err
			}
			break
		}
	}
	vars := opt.Variables()
	names := map[string]bool{}
	vals := make([][]float32, len(vars))
	for i, v := range vars {
		names[v.Name()] = true
		key := optimizerPrefix + v.Name()
		if !r.has(key) {
			if i == 0 { // the iteration counter
				return nil, fmt.Errorf("optimizer variable %q is missing from the file, which holds %s (was it saved with another optimizer?)", key, r.describe())
			}
			vals[i] = make([]float32, v.Shape().Size())
			continue
		}
		got, err := readVariables(r, optimizerPrefix, []*ops.Variable{v})
		if err != nil {
			return nil, fmt.Errorf("optimizer %s: %w", opt.Name(), err)
		}
		vals[i] = got[0]
	}
	for _, k := range fileKeys {
		if !names[strings.TrimPrefix(k, optimizerPrefix)] {
			return nil, fmt.Errorf("the file holds optimizer variable %q, which optimizer %s does not have (was it saved with another optimizer?)", k, opt.Name())
		}
	}
	return func() error { return assignAll(vars, vals) }, nil
}

// createOptimizerSlots makes the optimizer create its slot variables for
// the model's trainable weights, leaving weights and step count as they were.
func (m *Model) createOptimizerSlots() error {
	opt := m.optimizer
	vars := m.TrainableVariables()
	if len(vars) == 0 {
		return nil
	}
	touched := append(m.Weights(), opt.Variables()...)
	saved := make([][]float32, len(touched))
	for i, v := range touched {
		saved[i] = v.Numpy()
	}
	grads := make([][]float32, len(vars))
	for i, v := range vars {
		grads[i] = make([]float32, v.Shape().Size())
	}
	err := opt.Apply(nil, grads, vars)
	if aerr := assignAll(touched, saved); err == nil {
		err = aerr
	}
	if err != nil {
		return fmt.Errorf("creating the slot variables of optimizer %s: %w", opt.Name(), err)
	}
	return nil
}

// Save writes the model to path, a Keras 3 .keras archive (Keras'
// model.save): config.json (the architecture, each layer's config and the
// compile configuration), metadata.json and model.weights.npz (the weights
// as [Model.SaveWeights] writes them, plus the optimizer's variables).
// [LoadModel] reads it back.
func (m *Model) Save(path string) error {
	if !strings.HasSuffix(path, ".keras") {
		return fmt.Errorf("keras: Save %s: the file name must end in .keras (use SaveWeights for .weights.npz files)", path)
	}
	if err := m.save(path); err != nil {
		return fmt.Errorf("keras: Save %s: %w", path, err)
	}
	return nil
}

func (m *Model) save(path string) error {
	cfg, err := m.serialize()
	if err != nil {
		return err
	}
	cfgJSON, err := json.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	metaJSON, err := json.Marshal(map[string]any{
		"keras_version": KerasVersion,
		"date_saved":    time.Now().Format("2006-01-02@15:04:05"),
	})
	if err != nil {
		return err
	}
	var wb bytes.Buffer
	nw := newNPZWriter(&wb)
	if m.Built() {
		if err := m.writeWeights(nw); err != nil {
			return err
		}
		if err := m.writeOptimizer(nw); err != nil {
			return err
		}
	}
	if err := nw.close(); err != nil {
		return err
	}
	return writeFileAtomic(path, func(w io.Writer) error {
		zw := zip.NewWriter(w)
		for _, f := range []struct {
			name   string
			data   []byte
			method uint16
		}{
			{kerasMetadataFile, metaJSON, zip.Deflate},
			{kerasConfigFile, cfgJSON, zip.Deflate},
			{kerasWeightsFile, wb.Bytes(), zip.Store},
		} {
			fw, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: f.method, Modified: time.Now()})
			if err != nil {
				return err
			}
			if _, err := fw.Write(f.data); err != nil {
				return err
			}
		}
		return zw.Close()
	})
}

// LoadModel reads a model written by [Model.Save]: it rebuilds the model
// from its config (layers by class name through the [RegisterLayer]
// registry), compiles it as it was compiled when the compile configuration
// can be rebuilt (otherwise it warns and returns the model uncompiled, as
// Keras does), and sets its weights and optimizer state.
func LoadModel(path string) (*Model, error) {
	m, err := loadModel(path)
	if err != nil {
		return nil, fmt.Errorf("keras: LoadModel %s: %w", path, err)
	}
	return m, nil
}

func loadModel(path string) (*Model, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("not a .keras (zip) archive: %w", err)
	}
	defer zr.Close()
	cfgJSON, err := readZipMember(&zr.Reader, kerasConfigFile)
	if err != nil {
		return nil, err
	}
	var top map[string]any
	if err := json.Unmarshal(cfgJSON, &top); err != nil {
		return nil, fmt.Errorf("%s: %w", kerasConfigFile, err)
	}
	m, err := modelFromConfig(top)
	if err != nil {
		return nil, err
	}
	if cc, ok := top["compile_config"].(map[string]any); ok {
		if err := m.compileFromConfig(cc); err != nil {
			warnf("keras: LoadModel %s: the model is returned uncompiled: its compile configuration cannot be rebuilt: %v", path, err)
		}
	}
	wb, err := readZipMember(&zr.Reader, kerasWeightsFile)
	if err != nil {
		return nil, err
	}
	r, err := newNPZReader(bytes.NewReader(wb), int64(len(wb)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kerasWeightsFile, err)
	}
	if !m.Built() {
		if len(r.keys) > 0 {
			return nil, fmt.Errorf("the file holds weights but its config gives no input shape to build model %s", m.name)
		}
		return m, nil
	}
	ws, err := m.namedWeights()
	if err != nil {
		return nil, err
	}
	vals, err := readVariables(r, "", ws)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kerasWeightsFile, err)
	}
	restoreOpt := func() error { return nil }
	if m.compiled {
		if restoreOpt, err = m.prepareOptimizerRestore(r); err != nil {
			return nil, fmt.Errorf("%s: %w", kerasWeightsFile, err)
		}
	}
	if err := assignAll(ws, vals); err != nil {
		return nil, err
	}
	if err := restoreOpt(); err != nil {
		return nil, err
	}
	return m, nil
}

func readZipMember(zr *zip.Reader, name string) ([]byte, error) {
	for _, f := range zr.File {
		if f.Name != name {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		defer rc.Close()
		b, err := io.ReadAll(rc) // reading to the end checks the CRC
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("the archive has no %s", name)
}

// ---- model config ----

// serialize returns the content of config.json.
func (m *Model) serialize() (map[string]any, error) {
	var inner map[string]any
	var err error
	if m.sequential {
		inner, err = m.sequentialConfig()
	} else {
		inner, err = m.functionalConfig()
	}
	if err != nil {
		return nil, err
	}
	out := map[string]any{"module": "keras", "class_name": m.className, "config": inner, "registered_name": nil}
	if m.Built() && len(m.inputs) == 1 {
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

// batchShape is a symbolic shape as Keras serialises it: None for -1.
func batchShape(s ops.Shape) []any {
	out := make([]any, len(s))
	for i, d := range s {
		if d >= 0 {
			out[i] = d
		}
	}
	return out
}

func nodeInputShape(n *layers.CallNode) any {
	if len(n.Inputs) == 1 {
		return batchShape(n.Inputs[0].Shape())
	}
	shapes := make([]any, len(n.Inputs))
	for i, in := range n.Inputs {
		shapes[i] = batchShape(in.Shape())
	}
	return shapes
}

func layerEntry(l layers.Layer, inputShape any) map[string]any {
	e := map[string]any{"module": "keras.layers", "class_name": l.ClassName(), "config": l.GetConfig(), "registered_name": nil}
	if inputShape != nil {
		e["build_config"] = map[string]any{"input_shape": inputShape}
	}
	return e
}

func inputLayerEntry(in *layers.KerasTensor) map[string]any {
	return map[string]any{"module": "keras.layers", "class_name": "InputLayer", "registered_name": nil,
		"config": map[string]any{"batch_shape": batchShape(in.Shape()), "dtype": "float32", "sparse": false, "name": in.Node().Layer.Name()}}
}

func (m *Model) sequentialConfig() (map[string]any, error) {
	entries := []any{}
	inner := map[string]any{"name": m.name, "trainable": true, "dtype": "float32"}
	seen := map[string]bool{}
	add := func(l layers.Layer, shape any) error {
		if seen[l.Name()] {
			return fmt.Errorf("two layers are named %q (or a layer is used twice): a Sequential model saves each layer once", l.Name())
		}
		seen[l.Name()] = true
		entries = append(entries, layerEntry(l, shape))
		return nil
	}
	if m.Built() {
		entries = append(entries, inputLayerEntry(m.inputs[0]))
		inner["build_input_shape"] = batchShape(m.inputs[0].Shape())
		for _, n := range m.nodes {
			if err := add(n.Layer, nodeInputShape(n)); err != nil {
				return nil, err
			}
		}
	} else {
		for _, l := range m.pending {
			if err := add(l, nil); err != nil {
				return nil, err
			}
		}
	}
	inner["layers"] = entries
	return inner, nil
}

func (m *Model) functionalConfig() (map[string]any, error) {
	// Each call of a layer is one of its inbound nodes, numbered in the
	// order the model calls it.
	pos := map[*layers.CallNode]int{}
	calls := map[layers.Layer][]*layers.CallNode{}
	for _, n := range m.nodes {
		pos[n] = len(calls[n.Layer])
		calls[n.Layer] = append(calls[n.Layer], n)
	}
	ref := func(t *layers.KerasTensor) []any {
		n := t.Node()
		if n.IsInput {
			return []any{n.Layer.Name(), 0, 0}
		}
		return []any{n.Layer.Name(), pos[n], 0}
	}
	tensorArg := func(t *layers.KerasTensor) map[string]any {
		return map[string]any{"class_name": "__keras_tensor__", "config": map[string]any{
			"shape": batchShape(t.Shape()), "dtype": "float32", "keras_history": ref(t)}}
	}
	inputOf := map[layers.Layer]*layers.KerasTensor{}
	for _, in := range m.inputs {
		inputOf[in.Node().Layer] = in
	}
	// Layers in model.layers order, the InputLayers where Keras puts them.
	seen := map[string]bool{}
	entries := []any{}
	for _, l := range m.ordered {
		if seen[l.Name()] {
			return nil, fmt.Errorf("two layers are named %q: give the layers distinct names", l.Name())
		}
		seen[l.Name()] = true
		if in, ok := inputOf[l]; ok {
			e := inputLayerEntry(in)
			e["name"] = l.Name()
			e["inbound_nodes"] = []any{}
			entries = append(entries, e)
			continue
		}
		ns := calls[l]
		e := layerEntry(l, nodeInputShape(ns[0]))
		e["name"] = l.Name()
		inbound := make([]any, len(ns))
		for i, n := range ns {
			var args []any
			if len(n.Inputs) == 1 {
				args = []any{tensorArg(n.Inputs[0])}
			} else {
				list := make([]any, len(n.Inputs))
				for j, in := range n.Inputs {
					list[j] = tensorArg(in)
				}
				args = []any{list}
			}
			inbound[i] = map[string]any{"args": args, "kwargs": map[string]any{}}
		}
		e["inbound_nodes"] = inbound
		entries = append(entries, e)
	}
	ins := make([]any, len(m.inputs))
	for i, in := range m.inputs {
		ins[i] = ref(in)
	}
	outs := make([]any, len(m.outputs))
	for i, o := range m.outputs {
		outs[i] = ref(o)
	}
	return map[string]any{"name": m.name, "trainable": true, "layers": entries, "input_layers": ins, "output_layers": outs}, nil
}

func modelFromConfig(top map[string]any) (*Model, error) {
	class, _ := top["class_name"].(string)
	inner, ok := top["config"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: no model config", kerasConfigFile)
	}
	switch class {
	case "Sequential":
		return sequentialFromConfig(inner, top)
	case "Functional", "Model":
		return functionalFromConfig(inner)
	}
	return nil, fmt.Errorf("%s: model class %q is not supported (Sequential and Functional are)", kerasConfigFile, class)
}

func sequentialFromConfig(cfg, top map[string]any) (*Model, error) {
	entries, _ := cfg["layers"].([]any)
	var shape []int
	var ls []layers.Layer
	for i, e := range entries {
		em, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("layer entry %d is not an object", i)
		}
		class, _ := em["class_name"].(string)
		lc, _ := em["config"].(map[string]any)
		if class == "InputLayer" {
			s, err := inputLayerShape(lc)
			if err != nil {
				return nil, err
			}
			shape = s
			continue
		}
		l, err := LayerFromConfig(class, lc)
		if err != nil {
			return nil, err
		}
		if shape == nil && len(ls) == 0 {
			if bc, ok := em["build_config"].(map[string]any); ok {
				shape, _ = shapeWithoutBatch(bc["input_shape"])
			}
		}
		ls = append(ls, l)
	}
	if shape == nil {
		shape, _ = shapeWithoutBatch(cfg["build_input_shape"])
	}
	if shape == nil {
		if bc, ok := top["build_config"].(map[string]any); ok {
			shape, _ = shapeWithoutBatch(bc["input_shape"])
		}
	}
	m, err := NewSequential(ls...)
	if err != nil {
		return nil, err
	}
	if name, ok := cfg["name"].(string); ok && name != "" {
		m.name = name
	}
	if !m.Built() && shape != nil && len(m.pending) > 0 {
		if err := m.build(shape); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// inputLayerShape reads an InputLayer config's shape (Keras 3's
// batch_shape or Keras 2's batch_input_shape), without the batch.
func inputLayerShape(cfg map[string]any) ([]int, error) {
	for _, k := range []string{"batch_shape", "batch_input_shape"} {
		if v, ok := cfg[k]; ok && v != nil {
			s, err := shapeWithoutBatch(v)
			if err != nil {
				return nil, fmt.Errorf("InputLayer %v: %w", cfg["name"], err)
			}
			return s, nil
		}
	}
	if v, ok := cfg["shape"]; ok && v != nil {
		s, err := toInts(v)
		if err != nil {
			return nil, fmt.Errorf("InputLayer %v: shape: %w", cfg["name"], err)
		}
		return s, nil
	}
	return nil, fmt.Errorf("InputLayer %v has no shape", cfg["name"])
}

// shapeWithoutBatch reads a serialised batch shape [None, d1, ...].
func shapeWithoutBatch(v any) ([]int, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("bad shape %v", v)
	}
	out := make([]int, len(list)-1)
	for i, d := range list[1:] {
		n, ok := toInt(d)
		if !ok || n <= 0 {
			return nil, fmt.Errorf("shape %v: only the batch dimension may be unknown", v)
		}
		out[i] = n
	}
	return out, nil
}

type tensorRef struct {
	layer       string
	node, index int
}

func (r tensorRef) String() string { return fmt.Sprintf("%s[%d][%d]", r.layer, r.node, r.index) }

func parseRef(v any) (tensorRef, error) {
	list, ok := v.([]any)
	if !ok || len(list) < 3 {
		return tensorRef{}, fmt.Errorf("bad tensor reference %v", v)
	}
	name, ok1 := list[0].(string)
	node, ok2 := toInt(list[1])
	idx, ok3 := toInt(list[2])
	if !ok1 || !ok2 || !ok3 {
		return tensorRef{}, fmt.Errorf("bad tensor reference %v", v)
	}
	return tensorRef{name, node, idx}, nil
}

// parseRefs reads a list of references, or a single one ([name, 0, 0]).
func parseRefs(v any) ([]tensorRef, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("bad tensor list %v", v)
	}
	if len(list) > 0 {
		if _, single := list[0].(string); single {
			r, err := parseRef(list)
			return []tensorRef{r}, err
		}
	}
	out := make([]tensorRef, len(list))
	for i, x := range list {
		r, err := parseRef(x)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// nodeInputs reads the inputs of one inbound node: Keras 3's {"args":
// [tensor or [tensors]], "kwargs": {}} or Keras 2's [[name, node, index,
// kwargs], ...].
func nodeInputs(node any) ([]tensorRef, error) {
	var history func(x any) ([]tensorRef, error)
	history = func(x any) ([]tensorRef, error) {
		switch t := x.(type) {
		case map[string]any:
			c, _ := t["config"].(map[string]any)
			r, err := parseRef(c["keras_history"])
			return []tensorRef{r}, err
		case []any:
			var out []tensorRef
			for _, e := range t {
				rs, err := history(e)
				if err != nil {
					return nil, err
				}
				out = append(out, rs...)
			}
			return out, nil
		}
		return nil, fmt.Errorf("bad node argument %v", x)
	}
	switch n := node.(type) {
	case map[string]any:
		return history(n["args"])
	case []any:
		out := make([]tensorRef, len(n))
		for i, x := range n {
			r, err := parseRef(x)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return nil, fmt.Errorf("bad inbound node %v", node)
}

func functionalFromConfig(cfg map[string]any) (*Model, error) {
	entries, _ := cfg["layers"].([]any)
	type pendingCall struct {
		layer layers.Layer
		name  string
		node  int
		refs  []tensorRef
	}
	tensors := map[tensorRef]*layers.KerasTensor{}
	var pending []pendingCall
	for i, e := range entries {
		em, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("layer entry %d is not an object", i)
		}
		class, _ := em["class_name"].(string)
		lc, _ := em["config"].(map[string]any)
		name, _ := em["name"].(string)
		if name == "" {
			name, _ = lc["name"].(string)
		}
		if class == "InputLayer" {
			shape, err := inputLayerShape(lc)
			if err != nil {
				return nil, err
			}
			kt := layers.Input(shape, layers.WithName(name))
			if err := kt.Err(); err != nil {
				return nil, err
			}
			tensors[tensorRef{name, 0, 0}] = kt
			continue
		}
		l, err := LayerFromConfig(class, lc)
		if err != nil {
			return nil, err
		}
		nodes, _ := em["inbound_nodes"].([]any)
		for j, n := range nodes {
			refs, err := nodeInputs(n)
			if err != nil {
				return nil, fmt.Errorf("layer %q: %w", name, err)
			}
			pending = append(pending, pendingCall{l, name, j, refs})
		}
	}
	// Call layers once their inputs exist; a shared layer's later calls
	// may depend on layers listed after it.
	for len(pending) > 0 {
		var next []pendingCall
		for _, p := range pending {
			ins := make([]*layers.KerasTensor, len(p.refs))
			ready := true
			for i, r := range p.refs {
				if ins[i] = tensors[r]; ins[i] == nil {
					ready = false
					break
				}
			}
			if !ready {
				next = append(next, p)
				continue
			}
			out := layers.Apply(p.layer, ins...)
			if err := out.Err(); err != nil {
				return nil, err
			}
			tensors[tensorRef{p.name, p.node, 0}] = out
		}
		if len(next) == len(pending) {
			p := next[0]
			return nil, fmt.Errorf("cannot connect layer %q: one of its inputs %v is produced by no layer of the config", p.name, p.refs)
		}
		pending = next
	}
	lookup := func(key string) ([]*layers.KerasTensor, error) {
		refs, err := parseRefs(cfg[key])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		out := make([]*layers.KerasTensor, len(refs))
		for i, r := range refs {
			if out[i] = tensors[r]; out[i] == nil {
				return nil, fmt.Errorf("%s: no tensor %v", key, r)
			}
		}
		return out, nil
	}
	ins, err := lookup("input_layers")
	if err != nil {
		return nil, err
	}
	outs, err := lookup("output_layers")
	if err != nil {
		return nil, err
	}
	var opts []ModelOption
	if name, ok := cfg["name"].(string); ok && name != "" {
		opts = append(opts, ModelName(name))
	}
	return NewModel(ins, outs, opts...)
}

// ---- compile config ----

// typeName is the Go type's name, which is the Keras class name for the
// optimizers, losses and metrics of this module.
func typeName(x any) string {
	t := reflect.TypeOf(x)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

func serializeObject(module string, x any, cfg map[string]any) map[string]any {
	return map[string]any{"module": module, "class_name": typeName(x), "config": cfg, "registered_name": nil}
}

func (m *Model) compileConfig() (map[string]any, error) {
	cc := map[string]any{
		"optimizer": nil, "loss": nil, "metrics": nil, "loss_weights": nil, "weighted_metrics": nil,
		"run_eagerly": false, "steps_per_execution": 1, "jit_compile": false,
	}
	if m.optimizer != nil {
		cc["optimizer"] = serializeObject("keras.optimizers", m.optimizer, m.optimizer.GetConfig())
	}
	switch {
	case m.outputLosses != nil:
		// A loss per output is a list, as Keras writes compile(loss=[...]).
		ls := make([]any, len(m.outputLosses))
		for i, l := range m.outputLosses {
			ls[i] = serializeObject("keras.losses", l, l.GetConfig())
		}
		cc["loss"] = ls
	case m.loss != nil:
		cc["loss"] = serializeObject("keras.losses", m.loss, m.loss.GetConfig())
	}
	if m.lossWeights != nil {
		cc["loss_weights"] = append([]float64(nil), m.lossWeights...)
	}
	if len(m.metricSpecs) > 0 {
		ms := make([]any, len(m.metricSpecs))
		for i, s := range m.metricSpecs {
			switch s := s.(type) {
			case string:
				ms[i] = s
			case metrics.LabelMetric:
				ms[i] = serializeObject("keras.metrics", s, s.GetConfig())
			default:
				return nil, fmt.Errorf("metric %T cannot be serialised", s)
			}
		}
		cc["metrics"] = ms
	}
	return cc, nil
}

func (m *Model) compileFromConfig(cc map[string]any) error {
	var cfg CompileConfig
	var err error
	if cfg.Optimizer, err = optimizerFromConfig(cc["optimizer"]); err != nil {
		return err
	}
	readLoss := func(v any) (any, error) {
		switch l := v.(type) {
		case string:
			return l, nil
		case map[string]any:
			return lossFromConfig(l)
		}
		return nil, fmt.Errorf("loss: cannot read %v", v)
	}
	switch l := cc["loss"].(type) {
	case nil:
	case []any:
		list := make([]any, len(l))
		for i, x := range l {
			if list[i], err = readLoss(x); err != nil {
				return err
			}
		}
		cfg.Loss = list
	default:
		if cfg.Loss, err = readLoss(l); err != nil {
			return err
		}
	}
	switch w := cc["loss_weights"].(type) {
	case nil:
	case []any:
		for _, x := range w {
			f, ok := toFloat(x)
			if !ok {
				return fmt.Errorf("loss_weights: cannot read %v", w)
			}
			cfg.LossWeights = append(cfg.LossWeights, f)
		}
	default:
		return fmt.Errorf("loss_weights: cannot read %v (want a list)", w)
	}
	if ms, ok := cc["metrics"].([]any); ok {
		for _, s := range ms {
			switch s := s.(type) {
			case string:
				cfg.Metrics = append(cfg.Metrics, s)
			case map[string]any:
				mt, err := metricFromConfig(s)
				if err != nil {
					return err
				}
				cfg.Metrics = append(cfg.Metrics, mt)
			default:
				return fmt.Errorf("metrics: cannot read %v", s)
			}
		}
	}
	return m.Compile(cfg)
}

func classAndConfig(v map[string]any) (string, map[string]any) {
	class, _ := v["class_name"].(string)
	cfg, _ := v["config"].(map[string]any)
	if cfg == nil {
		cfg = map[string]any{}
	}
	return class, cfg
}

func optimizerFromConfig(v any) (any, error) {
	var class string
	var c map[string]any
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		return v, nil
	case map[string]any:
		class, c = classAndConfig(v)
	default:
		return nil, fmt.Errorf("optimizer: cannot read %v", v)
	}
	var opts []optimizers.Option
	if s, ok := c["name"].(string); ok && s != "" {
		opts = append(opts, optimizers.Name(s))
	}
	switch lr := c["learning_rate"].(type) {
	case nil:
	case map[string]any:
		s, err := scheduleFromConfig(lr)
		if err != nil {
			return nil, fmt.Errorf("optimizer %s: %w", class, err)
		}
		opts = append(opts, optimizers.LearningRateSchedule(s))
	default:
		f, ok := toFloat(lr)
		if !ok {
			return nil, fmt.Errorf("optimizer %s: bad learning_rate %v", class, lr)
		}
		opts = append(opts, optimizers.LearningRate(f))
	}
	floats := map[string]func(float64) optimizers.Option{
		"weight_decay": optimizers.WeightDecay, "clipnorm": optimizers.ClipNorm,
		"clipvalue": optimizers.ClipValue, "global_clipnorm": optimizers.GlobalClipNorm,
	}
	bools := map[string]func(bool) optimizers.Option{}
	var ctor func(...optimizers.Option) optimizers.Optimizer
	switch strings.ToLower(class) {
	case "adam", "adamw":
		floats["beta_1"], floats["beta_2"], floats["epsilon"] = optimizers.Beta1, optimizers.Beta2, optimizers.Epsilon
		bools["amsgrad"] = optimizers.Amsgrad
		ctor = func(o ...optimizers.Option) optimizers.Optimizer { return optimizers.NewAdam(o...) }
		if strings.ToLower(class) == "adamw" {
			ctor = func(o ...optimizers.Option) optimizers.Optimizer { return optimizers.NewAdamW(o...) }
		}
	case "sgd":
		floats["momentum"] = optimizers.Momentum
		bools["nesterov"] = optimizers.Nesterov
		ctor = func(o ...optimizers.Option) optimizers.Optimizer { return optimizers.NewSGD(o...) }
	case "rmsprop":
		floats["rho"], floats["momentum"], floats["epsilon"] = optimizers.Rho, optimizers.Momentum, optimizers.Epsilon
		bools["centered"] = optimizers.Centered
		ctor = func(o ...optimizers.Option) optimizers.Optimizer { return optimizers.NewRMSprop(o...) }
	default:
		return nil, fmt.Errorf("unknown optimizer class %q", class)
	}
	for _, k := range sortedKeys(floats) {
		if x, ok := c[k]; ok && x != nil {
			f, ok := toFloat(x)
			if !ok {
				return nil, fmt.Errorf("optimizer %s: bad %s %v", class, k, x)
			}
			opts = append(opts, floats[k](f))
		}
	}
	for _, k := range sortedKeys(bools) {
		if x, ok := c[k].(bool); ok {
			opts = append(opts, bools[k](x))
		}
	}
	opt := ctor(opts...)
	if e, ok := opt.(interface{ Err() error }); ok && e.Err() != nil {
		return nil, e.Err()
	}
	return opt, nil
}

func scheduleFromConfig(v map[string]any) (optimizers.Schedule, error) {
	class, c := classAndConfig(v)
	f := func(k string, def float64) float64 {
		if x, ok := toFloat(c[k]); ok {
			return x
		}
		return def
	}
	n := func(k string) int64 { x, _ := toInt(c[k]); return int64(x) }
	switch class {
	case "ExponentialDecay":
		st, _ := c["staircase"].(bool)
		return optimizers.ExponentialDecay(f("initial_learning_rate", 0), n("decay_steps"), f("decay_rate", 0), st)
	case "PiecewiseConstantDecay":
		bs, err := toInts(c["boundaries"])
		if err != nil {
			return nil, fmt.Errorf("PiecewiseConstantDecay boundaries: %w", err)
		}
		b64 := make([]int64, len(bs))
		for i, b := range bs {
			b64[i] = int64(b)
		}
		vl, _ := c["values"].([]any)
		vals := make([]float64, len(vl))
		for i, x := range vl {
			var ok bool
			if vals[i], ok = toFloat(x); !ok {
				return nil, fmt.Errorf("PiecewiseConstantDecay: bad value %v", x)
			}
		}
		return optimizers.PiecewiseConstantDecay(b64, vals)
	case "CosineDecay":
		if t, ok := toFloat(c["warmup_target"]); ok {
			return optimizers.CosineDecayWithWarmup(f("initial_learning_rate", 0), n("decay_steps"), f("alpha", 0), t, n("warmup_steps"))
		}
		return optimizers.CosineDecay(f("initial_learning_rate", 0), n("decay_steps"), f("alpha", 0))
	}
	return nil, fmt.Errorf("unknown learning rate schedule %q", class)
}

func lossFromConfig(v map[string]any) (losses.Loss, error) {
	class, c := classAndConfig(v)
	var opts []losses.Option
	if s, ok := c["name"].(string); ok {
		opts = append(opts, losses.Name(s))
	}
	if s, ok := c["reduction"].(string); ok {
		opts = append(opts, losses.Reduction(losses.ReductionKind(s)))
	}
	if b, ok := c["from_logits"].(bool); ok {
		opts = append(opts, losses.FromLogits(b))
	}
	if x, ok := toFloat(c["label_smoothing"]); ok {
		opts = append(opts, losses.LabelSmoothing(x))
	}
	if x, ok := toInt(c["axis"]); ok {
		opts = append(opts, losses.Axis(x))
	}
	l, err := losses.Get(class, opts...)
	if err != nil {
		return nil, fmt.Errorf("loss: %w", err)
	}
	return l, nil
}

func metricFromConfig(v map[string]any) (metrics.LabelMetric, error) {
	class, c := classAndConfig(v)
	var opts []metrics.Option
	if s, ok := c["name"].(string); ok {
		opts = append(opts, metrics.Name(s))
	}
	if x, ok := toFloat(c["threshold"]); ok {
		opts = append(opts, metrics.Threshold(x))
	}
	if b, ok := c["from_logits"].(bool); ok {
		opts = append(opts, metrics.FromLogits(b))
	}
	if x, ok := toFloat(c["label_smoothing"]); ok {
		opts = append(opts, metrics.LabelSmoothing(x))
	}
	mt, err := metrics.Get(class, opts...)
	if err != nil {
		return nil, fmt.Errorf("metric: %w", err)
	}
	return mt, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ---- JSON values ----

// toInt reads an integer from a decoded JSON number or a Go integer.
func toInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int32:
		return int(x), true
	case int64:
		return int(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int(x), true
		}
	case float32:
		if float64(x) == math.Trunc(float64(x)) {
			return int(x), true
		}
	case json.Number:
		n, err := x.Int64()
		return int(n), err == nil
	}
	return 0, false
}

// toFloat reads a number.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// toInts reads an integer or a list of integers.
func toInts(v any) ([]int, error) {
	if n, ok := toInt(v); ok {
		return []int{n}, nil
	}
	var list []any
	switch x := v.(type) {
	case []any:
		list = x
	case []int:
		return slices.Clone(x), nil
	case []int64:
		out := make([]int, len(x))
		for i, n := range x {
			out[i] = int(n)
		}
		return out, nil
	default:
		return nil, fmt.Errorf("want an integer or a list of integers, got %v", v)
	}
	out := make([]int, len(list))
	for i, x := range list {
		n, ok := toInt(x)
		if !ok {
			return nil, fmt.Errorf("want a list of integers, got %v", v)
		}
		out[i] = n
	}
	return out, nil
}

func shapeStr(s []int) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = strconv.Itoa(d)
	}
	if len(s) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// ---- files ----

// writeFileAtomic writes path through a temporary file in the same
// directory that is synced, then renamed over path.
func writeFileAtomic(path string, write func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	closed := false
	defer func() {
		if err != nil {
			if !closed {
				f.Close()
			}
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	closed = true
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	// Make the rename durable; not every system can sync a directory.
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// ---- npz ----

// npzWriter writes an npz archive as numpy.savez does: member "<key>.npy"
// per array, stored uncompressed.
type npzWriter struct {
	zw   *zip.Writer
	seen map[string]bool
}

func newNPZWriter(w io.Writer) *npzWriter {
	return &npzWriter{zw: zip.NewWriter(w), seen: map[string]bool{}}
}

func (w *npzWriter) close() error { return w.zw.Close() }

// npyHeader is the .npy version 1.0 header of a C-order array, padded so
// the data starts at a multiple of 64 bytes.
func npyHeader(descr string, shape []int) []byte {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = strconv.Itoa(d)
	}
	tuple := "(" + strings.Join(dims, ", ") + ")"
	if len(shape) == 1 {
		tuple = "(" + dims[0] + ",)"
	}
	h := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + tuple + ", }"
	pad := (64 - (10+len(h)+1)%64) % 64
	h += strings.Repeat(" ", pad) + "\n"
	b := make([]byte, 0, 10+len(h))
	b = append(b, "\x93NUMPY"...)
	b = append(b, 1, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(h)))
	return append(b, h...)
}

// add writes one array whose elements put encodes, size bytes each.
func (w *npzWriter) add(key, descr string, shape []int, n, size int, put func(b []byte, i int)) error {
	if w.seen[key] {
		return fmt.Errorf("two arrays are named %q", key)
	}
	w.seen[key] = true
	want := 1
	for _, d := range shape {
		want *= d
	}
	if want != n {
		return fmt.Errorf("array %q: %d values for shape %v", key, n, shape)
	}
	fw, err := w.zw.CreateHeader(&zip.FileHeader{Name: key + ".npy", Method: zip.Store, Modified: time.Now()})
	if err != nil {
		return err
	}
	if _, err := fw.Write(npyHeader(descr, shape)); err != nil {
		return err
	}
	const chunk = 1 << 14
	buf := make([]byte, min(n, chunk)*size)
	for start := 0; start < n; start += chunk {
		end := min(start+chunk, n)
		b := buf[:(end-start)*size]
		for i := start; i < end; i++ {
			put(b[(i-start)*size:], i)
		}
		if _, err := fw.Write(b); err != nil {
			return err
		}
	}
	return nil
}

func (w *npzWriter) addFloat32(key string, shape []int, data []float32) error {
	return w.add(key, "<f4", shape, len(data), 4, func(b []byte, i int) {
		binary.LittleEndian.PutUint32(b, math.Float32bits(data[i]))
	})
}

func (w *npzWriter) addFloat64(key string, shape []int, data []float64) error {
	return w.add(key, "<f8", shape, len(data), 8, func(b []byte, i int) {
		binary.LittleEndian.PutUint64(b, math.Float64bits(data[i]))
	})
}

func (w *npzWriter) addInt64(key string, shape []int, data []int64) error {
	return w.add(key, "<i8", shape, len(data), 8, func(b []byte, i int) {
		binary.LittleEndian.PutUint64(b, uint64(data[i]))
	})
}

// npzReader reads the arrays of an npz archive by key (member name without
// ".npy").
type npzReader struct {
	members map[string]*zip.File
	keys    []string
}

var errNotNPZ = errors.New("not an npz archive")

func newNPZReader(r io.ReaderAt, size int64) (*npzReader, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", errNotNPZ, err)
	}
	out := &npzReader{members: map[string]*zip.File{}}
	for _, f := range zr.File {
		key := strings.TrimSuffix(f.Name, ".npy")
		if _, dup := out.members[key]; dup {
			return nil, fmt.Errorf("the archive holds two arrays named %q", key)
		}
		out.members[key] = f
		out.keys = append(out.keys, key)
	}
	return out, nil
}

func (r *npzReader) has(key string) bool { return r.members[key] != nil }

// describe lists the keys for error messages.
func (r *npzReader) describe() string {
	if len(r.keys) == 0 {
		return "no arrays"
	}
	const most = 8
	shown := r.keys[:min(len(r.keys), most)]
	s := fmt.Sprintf("%d arrays: %s", len(r.keys), strings.Join(shown, ", "))
	if len(r.keys) > most {
		s += ", ..."
	}
	return s
}

// npyArray is one array's shape, dtype and little- or big-endian bytes.
type npyArray struct {
	key    string
	shape  []int
	order  binary.ByteOrder
	kind   byte // 'f', 'i', 'u' or 'b'
	size   int  // bytes per element
	raw    []byte
	length int
}

func (r *npzReader) read(key string) (a npyArray, err error) {
	f := r.members[key]
	if f == nil {
		return a, fmt.Errorf("no array %q", key)
	}
	rc, err := f.Open()
	if err != nil {
		return a, fmt.Errorf("array %q: %w", key, err)
	}
	defer rc.Close()
	hdr, err := parseNPYHeader(rc)
	if err != nil {
		return a, fmt.Errorf("array %q: %w", key, err)
	}
	a.key = key
	a.shape = slices.Clone(hdr.Descr.Shape)
	if a.shape == nil {
		a.shape = []int{}
	}
	d := hdr.Descr.Type
	if len(d) < 3 {
		return a, fmt.Errorf("array %q: unsupported dtype %q", key, d)
	}
	switch d[0] {
	case '<', '|', '=':
		a.order = binary.LittleEndian
	case '>':
		a.order = binary.BigEndian
	default:
		return a, fmt.Errorf("array %q: unsupported dtype %q", key, d)
	}
	a.kind = d[1]
	if a.size, err = strconv.Atoi(d[2:]); err != nil || !strings.ContainsRune("fiub", rune(a.kind)) ||
		(a.kind == 'f' && a.size != 4 && a.size != 8) || (a.kind != 'f' && a.size != 1 && a.size != 2 && a.size != 4 && a.size != 8) {
		return a, fmt.Errorf("array %q: unsupported dtype %q (want a float or integer type)", key, d)
	}
	if hdr.Descr.Fortran && len(a.shape) > 1 {
		return a, fmt.Errorf("array %q is in Fortran order, which is not supported", key)
	}
	a.length = 1
	for _, n := range a.shape {
		if n < 0 {
			return a, fmt.Errorf("array %q: bad shape %v", key, a.shape)
		}
		a.length *= n
		if uint64(a.length)*uint64(a.size) > f.UncompressedSize64 {
			return a, fmt.Errorf("array %q: shape %v is larger than the file", key, a.shape)
		}
	}
	a.raw = make([]byte, a.length*a.size)
	if _, err := io.ReadFull(rc, a.raw); err != nil {
		return a, fmt.Errorf("array %q: truncated data: %w", key, err)
	}
	// Reading to the end makes the zip reader check the CRC.
	if n, err := io.Copy(io.Discard, rc); err != nil {
		return a, fmt.Errorf("array %q: %w", key, err)
	} else if n > 0 {
		return a, fmt.Errorf("array %q holds %d bytes more than its shape %v", key, n, a.shape)
	}
	return a, nil
}

// parseNPYHeader parses an .npy header with npyio, turning a panic on a
// corrupt header into an error.
func parseNPYHeader(r io.Reader) (hdr npy.Header, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("corrupt npy header (%v)", p)
		}
	}()
	nr, err := npy.NewReader(r)
	if err != nil {
		return npy.Header{}, err
	}
	return nr.Header, nil
}

func (a npyArray) float64At(i int) float64 {
	b := a.raw[i*a.size:]
	switch a.kind {
	case 'f':
		if a.size == 4 {
			return float64(math.Float32frombits(a.order.Uint32(b)))
		}
		return math.Float64frombits(a.order.Uint64(b))
	case 'b', 'u':
		switch a.size {
		case 1:
			return float64(b[0])
		case 2:
			return float64(a.order.Uint16(b))
		case 4:
			return float64(a.order.Uint32(b))
		}
		return float64(a.order.Uint64(b))
	}
	switch a.size {
	case 1:
		return float64(int8(b[0]))
	case 2:
		return float64(int16(a.order.Uint16(b)))
	case 4:
		return float64(int32(a.order.Uint32(b)))
	}
	return float64(int64(a.order.Uint64(b)))
}

// float32s returns the values as float32 (float64 arrays are narrowed).
func (a npyArray) float32s() ([]float32, error) {
	if a.kind != 'f' {
		return nil, fmt.Errorf("dtype is not a float type")
	}
	out := make([]float32, a.length)
	if a.size == 4 {
		for i := range out {
			out[i] = math.Float32frombits(a.order.Uint32(a.raw[4*i:]))
		}
		return out, nil
	}
	for i := range out {
		out[i] = float32(a.float64At(i))
	}
	return out, nil
}

func (a npyArray) float64s() ([]float64, error) {
	out := make([]float64, a.length)
	for i := range out {
		out[i] = a.float64At(i)
	}
	return out, nil
}

func (a npyArray) int64s() ([]int64, error) {
	out := make([]int64, a.length)
	for i := range out {
		if a.kind == 'i' && a.size == 8 {
			out[i] = int64(a.order.Uint64(a.raw[8*i:]))
			continue
		}
		f := a.float64At(i)
		if f != math.Trunc(f) {
			return nil, fmt.Errorf("array %q holds a non-integer %v", a.key, f)
		}
		out[i] = int64(f)
	}
	return out, nil
}
