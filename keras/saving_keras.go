package keras

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/gokeras/gokeras/internal/hdf5"
	"github.com/gokeras/gokeras/ops"
)

// Save writes the model to path, a Keras 3 .keras archive (Keras'
// model.save), which Python Keras' keras.saving.load_model reads:
// config.json (the architecture, each layer's config and the compile
// configuration), metadata.json and model.weights.h5 (every variable at
// its structure key, as [Model.SaveWeights] writes a .weights.h5 file,
// with the optimizer's variables). [LoadModel] reads it back. Like Keras,
// Save wants the .keras extension.
//
// A name ending in .h5 or .hdf5 writes the legacy Keras 2 format instead,
// as Keras 3 still does (without the optimizer's state; see
// saving_legacy_h5_write.go); LoadModel and Python Keras read it. Any
// other name is an error that names the accepted extensions, as Keras'.
func (m *Model) Save(path string) error {
	if err := m.usable("Save"); err != nil {
		return err
	}
	var err error
	switch {
	case strings.HasSuffix(path, ".keras"):
		err = m.save(path)
	case strings.HasSuffix(path, ".h5"), strings.HasSuffix(path, ".hdf5"):
		err = m.saveLegacyH5(path)
	default:
		return fmt.Errorf("keras: Save %s: invalid file name extension: the name must end in .keras, the native Keras format (recommended), or .h5 (.hdf5) for the legacy Keras 2 format; use SaveWeights with a .weights.h5 name for the weights alone", path)
	}
	if err != nil {
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
	root, err := m.h5Tree(true)
	if err != nil {
		return err
	}
	weights, err := encodeH5(root)
	if err != nil {
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
			{kerasWeightsFile, weights, zip.Store},
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

// LoadModel reads a model from path: a .keras archive written by
// [Model.Save] or by Python Keras 3, or a legacy Keras 2 whole-model .h5
// file (Keras' load_model). It rebuilds the model from its config (layers
// by class name through the [RegisterLayer] registry; an unknown class is
// an error naming it), compiles it as it was compiled when the compile
// configuration can be rebuilt (otherwise it warns and returns the model
// uncompiled, as Keras does), and sets its weights, matched by structure,
// and its optimizer's state.
//
// Every size the file's config implies is bounded before anything is
// built: weights by what the file holds, every other tensor by the tensor
// budget of [LoadConfig] (config_budget.go); [LoadModelWith] sets it.
func LoadModel(path string) (*Model, error) {
	return LoadModelWith(path, LoadConfig{})
}

// LoadModelWith is [LoadModel] with settings: c.MaxTensorValues raises
// (or lowers) the bound on the tensors the file's config asks for.
func LoadModelWith(path string, c LoadConfig) (*Model, error) {
	var m *Model
	var err error
	if strings.HasSuffix(path, ".h5") || strings.HasSuffix(path, ".hdf5") {
		m, err = loadLegacyH5Model(path, c)
	} else {
		m, err = loadModel(path, c)
	}
	if err != nil {
		return nil, fmt.Errorf("keras: LoadModel %s: %w", path, err)
	}
	return m, nil
}

func loadModel(path string, c LoadConfig) (*Model, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("not a .keras (zip) archive: %w", err)
	}
	defer zr.Close()
	if err := checkArchiveMembers(&zr.Reader); err != nil {
		return nil, err
	}
	cfgJSON, err := readZipMember(&zr.Reader, kerasConfigFile, maxConfigBytes)
	if err != nil {
		return nil, err
	}
	var top map[string]any
	if err := json.Unmarshal(cfgJSON, &top); err != nil {
		return nil, fmt.Errorf("%s: %w", kerasConfigFile, err)
	}
	values := weightsMemberValues(&zr.Reader, fileSize(path))
	if err := checkConfigSizes(top, values); err != nil {
		return nil, fmt.Errorf("%s: %w", kerasConfigFile, err)
	}
	tensors := c.tensorBudget(values)
	if err := checkConfigBudget(top, tensors); err != nil {
		return nil, fmt.Errorf("%s: %w", kerasConfigFile, err)
	}
	m, err := buildFromConfig(top, values, tensors)
	if err != nil {
		return nil, err
	}
	if cc, ok := top["compile_config"].(map[string]any); ok && len(cc) > 0 {
		if err := m.compileFromConfig(cc); err != nil {
			warnf("keras: LoadModel %s: the model is returned uncompiled: its compile configuration cannot be rebuilt: %v", path, err)
		}
	}
	if !m.Built() {
		if archiveHoldsWeights(&zr.Reader) {
			return nil, fmt.Errorf("the file holds weights but its config gives no input shape to build model %s", m.name)
		}
		return m, nil
	}
	apply, err := m.archiveWeights(&zr.Reader, path, m.compiled)
	if err != nil {
		return nil, err
	}
	if err := apply(); err != nil {
		return nil, err
	}
	return m, nil
}

// archiveWeights reads the weights member of a .keras archive (Keras 3's
// model.weights.h5, or the model.weights.npz of gokeras before it wrote
// HDF5) and returns the assignment of the model's variables, the
// optimizer's too when withOptimizer.
//
// path is the archive's file: its stored model.weights.h5 is read in place
// (openZipMember), its large datasets straight into the variables when
// the returned function runs, which closes the file; call it (or nothing
// is assigned and the file stays open until the process ends).
func (m *Model) archiveWeights(zr *zip.Reader, path string, withOptimizer bool) (func() error, error) {
	if zipHas(zr, kerasWeightsFile) {
		r, size, closeFile, err := openZipMember(path, zr, kerasWeightsFile, weightsFileBound(m))
		if err != nil {
			return nil, err
		}
		root, err := decodeH5(r, size, h5Limits(m))
		if err != nil {
			closeFile()
			return nil, fmt.Errorf("%s: %w", kerasWeightsFile, err)
		}
		apply, err := m.h5Restore(root, withOptimizer)
		if err != nil {
			closeFile()
			return nil, fmt.Errorf("%s: %w", kerasWeightsFile, err)
		}
		return func() error {
			defer closeFile()
			return apply()
		}, nil
	}
	if !zipHas(zr, oldWeightsFile) {
		return nil, fmt.Errorf("the archive has no %s", kerasWeightsFile)
	}
	b, err := readZipMember(zr, oldWeightsFile, weightsFileBound(m))
	if err != nil {
		return nil, err
	}
	r, err := newNPZReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", oldWeightsFile, err)
	}
	var apply func() error
	if m.hasStructKeys(r) {
		if withOptimizer {
			apply, err = m.npzCheckpointRestore(r)
		} else {
			apply, err = m.npzWeights(r)
		}
	} else if withOptimizer {
		apply, err = m.npzNamedRestore(r)
	} else {
		apply, err = m.npzWeights(r)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", oldWeightsFile, err)
	}
	return apply, nil
}

// checkArchiveMembers refuses an archive that names a member twice
// (Python's zipfile, and so Keras and any scanner, reads the last of
// them, Go's reader the first: one file would show two models) or lacks
// the weights member (Keras' load_model refuses it), and one whose
// model.weights.h5 is not an HDF5 file, before its config is read.
func checkArchiveMembers(zr *zip.Reader) error {
	seen := make(map[string]bool, len(zr.File))
	for _, f := range zr.File {
		if seen[f.Name] {
			return fmt.Errorf("the archive holds two members named %q (Python's zipfile reads the last, Go's the first): refusing it", f.Name)
		}
		seen[f.Name] = true
	}
	switch {
	case seen[kerasWeightsFile]:
		return checkH5Member(zr, kerasWeightsFile)
	case seen[oldWeightsFile]:
		return nil
	}
	return fmt.Errorf("the archive has no %s (the model's weights)", kerasWeightsFile)
}

// checkH5Member refuses a member that does not hold an HDF5 signature
// where HDF5 puts it: at 0, or after a user block of 512, 1024, ...
// bytes.
func checkH5Member(zr *zip.Reader, name string) error {
	for _, f := range zr.File {
		if f.Name != name {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer rc.Close()
		head, _ := readGrowingUpTo(rc, 64<<10)
		for at := 0; at+len(h5Magic) <= len(head); at = max(512, 2*at) {
			if string(head[at:at+len(h5Magic)]) == h5Magic {
				return nil
			}
		}
		return fmt.Errorf("%s is not an HDF5 file (it starts with %q)", name, head[:min(len(head), 8)])
	}
	return nil
}

// h5Magic is the signature of an HDF5 file.
const h5Magic = "\x89HDF\r\n\x1a\n"

func zipHas(zr *zip.Reader, name string) bool {
	for _, f := range zr.File {
		if f.Name == name {
			return true
		}
	}
	return false
}

// archiveHoldsWeights reports whether the archive's weights member holds
// any variable of a layer (an unbuilt model's file holds none). A member
// too large for an unbuilt model's groups, or unreadable, counts as
// holding weights.
func archiveHoldsWeights(zr *zip.Reader) bool {
	const limit = 1 << 20
	if zipHas(zr, kerasWeightsFile) {
		b, err := readZipMember(zr, kerasWeightsFile, limit)
		if err != nil {
			return true
		}
		root, err := decodeH5(bytes.NewReader(b), int64(len(b)), hdf5.Limits{MaxBytes: limit})
		if err != nil {
			return true
		}
		return h5Unconsumed(root, "", nil) != ""
	}
	if zipHas(zr, oldWeightsFile) {
		b, err := readZipMember(zr, oldWeightsFile, limit)
		if err != nil {
			return true
		}
		r, err := newNPZReader(bytes.NewReader(b), int64(len(b)))
		return err != nil || len(r.keys) > 0
	}
	return false
}

// Bounds on the members of a .keras archive, so that a small archive
// cannot make LoadModel inflate gigabytes. A model's config.json takes a
// few kilobytes per layer; metadata.json under a kilobyte.
var (
	maxConfigBytes   int64 = 16 << 20
	maxMetadataBytes int64 = 1 << 20
)

// maxSlotsPerWeight is the most optimizer variables per weight (AMSGrad
// Adam: m, v and v-hat).
const maxSlotsPerWeight = 3

// weightsFileBound is the most bytes the npz of m's weights and optimizer
// variables can need: every weight and slot as float64 (the widest dtype
// a weight file may hold) and 4 KiB of zip and npy headers per array,
// plus 1 MiB.
func weightsFileBound(m *Model) int64 {
	var n, arrays int64
	if m.Built() {
		for _, w := range m.Weights() {
			n += int64(w.Shape().Size())
			arrays++
		}
	}
	arrays = arrays*(1+maxSlotsPerWeight) + 16
	return 8*(1+maxSlotsPerWeight)*n + 4<<10*arrays + 1<<20
}

// buildFromConfig is modelFromConfig with the layers' weights bounded by
// values (a layer asking for more is an error naming it).
func buildFromConfig(top map[string]any, values, tensors int64) (m *Model, err error) {
	budget := &weightBudget{left: values, tensors: tensors}
	defer budget.lift()
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*ops.Error)
			if !ok {
				panic(r)
			}
			m, err = nil, fmt.Errorf("%s: %w", kerasConfigFile, e)
		}
	}()
	return modelFromConfig(top, budget)
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// weightsMemberValues is the most float32 values the weights member of a
// .keras archive of size bytes can hold, by its declared size, checked
// against what its compressed bytes can inflate to.
func weightsMemberValues(zr *zip.Reader, size int64) int64 {
	for _, f := range zr.File {
		if f.Name != kerasWeightsFile && f.Name != oldWeightsFile {
			continue
		}
		n := min(f.UncompressedSize64, f.CompressedSize64*maxDeflateRatio, uint64(size)*maxDeflateRatio)
		if f.Method == zip.Store {
			n = min(n, uint64(size))
		}
		return int64(n / 4)
	}
	return 0
}

// Config keys whose values multiply into a lower bound of the size of a
// layer's weights: a Dense kernel has at least "units" values, a Conv2D
// kernel "filters" times its "kernel_size", an Embedding "input_dim"
// times "output_dim".
var weightSizeKeys = []string{"units", "filters", "kernel_size", "input_dim", "output_dim"}

// checkConfigSizes refuses a config whose layers ask for more weight values
// than the archive's weights file can hold, before any layer is built (and
// allocates its weights). It applies when the config builds the model
// (gives an input shape); an unbuilt model has no weights. Weights whose
// size derives from input shapes (a Dense kernel after a Flatten) are not
// bounded here.
func checkConfigSizes(top map[string]any, values int64) error {
	builds := false
	var walk func(v any, f func(map[string]any))
	walk = func(v any, f func(map[string]any)) {
		switch v := v.(type) {
		case map[string]any:
			f(v)
			for _, k := range sortedKeys(v) {
				walk(v[k], f)
			}
		case []any:
			for _, e := range v {
				walk(e, f)
			}
		}
	}
	walk(top, func(m map[string]any) {
		for _, k := range []string{"batch_input_shape", "batch_shape", "build_config", "build_input_shape"} {
			if m[k] != nil {
				builds = true
			}
		}
	})
	if !builds {
		return nil
	}
	var err error
	walk(top, func(m map[string]any) {
		if err != nil {
			return
		}
		lower, sized := 1.0, false
		for _, k := range weightSizeKeys {
			switch v := m[k].(type) {
			case float64:
				lower, sized = lower*max(v, 1), true
			case []any:
				for _, e := range v {
					if d, ok := e.(float64); ok {
						lower, sized = lower*max(d, 1), true
					}
				}
			}
		}
		if sized && lower > float64(values) {
			name, _ := m["name"].(string)
			err = fmt.Errorf("layer %q asks for at least %.0f weight values, but the archive's %s can hold at most %d", name, lower, kerasWeightsFile, values)
		}
	})
	return err
}

// readZipMember reads member name of zr, of at most limit bytes whatever
// its header declares.
func readZipMember(zr *zip.Reader, name string, limit int64) ([]byte, error) {
	for _, f := range zr.File {
		if f.Name != name {
			continue
		}
		if f.UncompressedSize64 > uint64(limit) {
			return nil, fmt.Errorf("%s: %d bytes is more than a %s can need (%d)", name, f.UncompressedSize64, name, limit)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		defer rc.Close()
		// Reading to the end checks the CRC; one byte past the limit
		// tells a member that lied about its size.
		b, err := readGrowingUpTo(rc, limit+1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if int64(len(b)) > limit {
			return nil, fmt.Errorf("%s: more than %d bytes, more than a %s can need", name, limit, name)
		}
		return b, nil
	}
	return nil, fmt.Errorf("the archive has no %s", name)
}

// readGrowingUpTo reads r to its end or to n bytes, whichever comes first,
// allocating as bytes arrive.
func readGrowingUpTo(r io.Reader, n int64) ([]byte, error) {
	var buf bytes.Buffer
	_, err := io.Copy(&buf, io.LimitReader(r, n))
	return buf.Bytes(), err
}
