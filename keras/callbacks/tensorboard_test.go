package callbacks

import (
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/gokeras/gokeras/internal/tfevents"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// readDir reads every event of the event files of dir, checking the
// first event of each file.
func readDir(t *testing.T, dir string) []*tfevents.Event {
	t.Helper()
	paths, err := tfevents.Files(dir)
	if err != nil || len(paths) == 0 {
		t.Fatalf("no event file in %s: %v", dir, err)
	}
	var all []*tfevents.Event
	for _, p := range paths {
		if !regexp.MustCompile(`^events\.out\.tfevents\.\d+\.[^/]+\.\d+(\.\d+)?\.v2$`).MatchString(filepath.Base(p)) {
			t.Errorf("file name %s", p)
		}
		evs, err := tfevents.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) == 0 || evs[0].FileVersion != "brain.Event:2" {
			t.Errorf("%s: first event %+v", p, evs)
		}
		all = append(all, evs...)
	}
	return all
}

// scalars maps tag to step to value.
func scalars(evs []*tfevents.Event) map[string]map[int64]float32 {
	out := map[string]map[int64]float32{}
	for _, e := range evs {
		for _, v := range e.Summary {
			if v.Histo != nil {
				continue
			}
			if out[v.Tag] == nil {
				out[v.Tag] = map[int64]float32{}
			}
			out[v.Tag][e.Step] = v.SimpleValue
		}
	}
	return out
}

func TestTensorBoard(t *testing.T) {
	m := model(t, 1, optimizers.NewAdam(optimizers.LearningRate(0.01)))
	x, y := data(40, 1) // 32 for training: 4 batches of 8
	dir := filepath.Join(t.TempDir(), "logs")
	tb := NewTensorBoard(dir, HistogramFreq(2), UpdateFreq(3))
	lrs := NewLearningRateScheduler(func(e int, _ float64) float64 { return 0.01 / float64(e+1) })
	cfg := quiet(3, lrs, tb)
	cfg.ValidationSplit = 0.2
	h, err := m.Fit(x, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	train := readDir(t, filepath.Join(dir, "train"))
	ts := scalars(train)
	for _, name := range []string{"loss", "accuracy"} {
		for e := range 3 {
			if got, want := ts["epoch_"+name][int64(e)], float32(h.History[name][e]); got != want {
				t.Errorf("train epoch_%s step %d = %v, want %v", name, e, got, want)
			}
		}
	}
	for e := range 3 {
		if got, want := ts["epoch_learning_rate"][int64(e)], float32(0.01/float64(e+1)); got != want {
			t.Errorf("epoch_learning_rate step %d = %v, want %v", e, got, want)
		}
	}
	if _, ok := ts["epoch_val_loss"]; ok {
		t.Error("val_ logs in train/")
	}
	// Batch logs every 3 batches of the run: steps 3, 6, 9, 12.
	var steps []int64
	for s := range ts["batch_loss"] {
		steps = append(steps, s)
	}
	slices.Sort(steps)
	if !slices.Equal(steps, []int64{3, 6, 9, 12}) || len(ts["batch_accuracy"]) != 4 {
		t.Errorf("batch_loss steps %v, batch_accuracy %v", steps, ts["batch_accuracy"])
	}
	// Histograms of every weight at epochs 0 and 2.
	hist := map[string][]int64{}
	for _, e := range train {
		for _, v := range e.Summary {
			if v.Histo != nil {
				hist[v.Tag] = append(hist[v.Tag], e.Step)
				if v.Histo.Num <= 0 || len(v.Histo.Bucket) == 0 {
					t.Errorf("%s: empty histogram %+v", v.Tag, v.Histo)
				}
			}
		}
	}
	for _, w := range m.Weights() {
		if !slices.Equal(hist[w.Name()], []int64{0, 2}) {
			t.Errorf("histograms of %s at steps %v", w.Name(), hist[w.Name()])
		}
	}
	if len(hist) != len(m.Weights()) {
		t.Errorf("histogram tags %v", hist)
	}

	val := scalars(readDir(t, filepath.Join(dir, "validation")))
	for _, name := range []string{"loss", "accuracy"} {
		for e := range 3 {
			if got, want := val["epoch_"+name][int64(e)], float32(h.History["val_"+name][e]); got != want {
				t.Errorf("validation epoch_%s step %d = %v, want %v", name, e, got, want)
			}
			if got, want := val["evaluation_"+name+"_vs_iterations"][int64(4*(e+1))], float32(h.History["val_"+name][e]); got != want {
				t.Errorf("evaluation_%s_vs_iterations at %d = %v, want %v", name, 4*(e+1), got, want)
			}
		}
	}
	if _, ok := val["epoch_learning_rate"]; ok {
		t.Error("learning rate in validation/")
	}

	// Model.Evaluate with the callback writes its results to validation/.
	logs, err := m.Evaluate(x, y, keras.EvaluateConfig{Verbose: keras.VerboseSilent, Callbacks: []keras.Callback{tb}})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := logs.Get("loss")
	found := false
	for _, e := range readDir(t, filepath.Join(dir, "validation")) {
		for _, v := range e.Summary {
			found = found || (v.Tag == "evaluation_loss_vs_iterations" && e.Step == 12 && v.SimpleValue == float32(l))
		}
	}
	if !found {
		t.Errorf("evaluate's loss %v not written", l)
	}
}

func TestTensorBoardOptions(t *testing.T) {
	m := model(t, 1, nil)
	x, y := data(16, 1)
	dir := t.TempDir()
	tb := NewTensorBoard(dir, UpdateFreq("batch"))
	if _, err := m.Fit(x, y, quiet(1, tb)); err != nil {
		t.Fatal(err)
	}
	ts := scalars(readDir(t, filepath.Join(dir, "train")))
	if len(ts["batch_loss"]) != 2 {
		t.Errorf("update_freq batch: %v", ts["batch_loss"])
	}
	if paths, _ := tfevents.Files(filepath.Join(dir, "validation")); len(paths) != 0 {
		t.Errorf("validation files without validation data: %v", paths)
	}
	for _, f := range []any{"sometimes", 0, -3, 1.5} {
		if err := NewTensorBoard(dir, UpdateFreq(f)).Err(); err == nil {
			t.Errorf("update_freq %v accepted", f)
		}
	}
	if NewTensorBoard("").LogDir() != "logs" {
		t.Error("default log_dir")
	}
}
