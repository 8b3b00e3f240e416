package callbacks

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
)

func files(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	slices.Sort(out)
	return out
}

func TestModelCheckpointEveryEpoch(t *testing.T) {
	m := model(t, 1, nil)
	x, y := data(32, 1)
	dir := t.TempDir()
	sub := filepath.Join(dir, "ckpts") // created by the callback
	var out strings.Builder
	mc := NewModelCheckpoint(filepath.Join(sub, "ckpt_{epoch:04d}.weights.npz"), SaveWeightsOnly(true), Verbose(1), Output(&out))
	if _, err := m.Fit(x, y, quiet(3, mc)); err != nil {
		t.Fatal(err)
	}
	if got := files(t, sub); !reflect.DeepEqual(got, []string{"ckpt_0001.weights.npz", "ckpt_0002.weights.npz", "ckpt_0003.weights.npz"}) {
		t.Errorf("files %v", got)
	}
	if !strings.Contains(out.String(), "\nEpoch 3: saving model to "+filepath.Join(sub, "ckpt_0003.weights.npz")+"\n") {
		t.Errorf("output %q", out.String())
	}
	fresh := model(t, 2, nil)
	if err := fresh.LoadWeights(mc.LastPath); err != nil {
		t.Fatal(err)
	}
	if !sameWeights(m, fresh) {
		t.Error("the last checkpoint does not hold the final weights")
	}
}

func TestModelCheckpointSaveBestOnly(t *testing.T) {
	m := model(t, 1, nil)
	dir := t.TempDir()
	var out strings.Builder
	mc := NewModelCheckpoint(filepath.Join(dir, "best-{epoch:02d}-{val_loss:.2f}.keras"), SaveBestOnly(true), Verbose(1), Output(&out))
	drive(t, mc, m, "val_loss", 0.5, 0.6, 0.4, 0.4)
	if got := files(t, dir); !reflect.DeepEqual(got, []string{"best-01-0.50.keras", "best-03-0.40.keras"}) {
		t.Errorf("files %v", got)
	}
	for _, want := range []string{
		"\nEpoch 1: val_loss improved from inf to 0.50000, saving model to " + filepath.Join(dir, "best-01-0.50.keras") + "\n",
		"\nEpoch 2: val_loss did not improve from 0.50000\n",
		"\nEpoch 4: val_loss did not improve from 0.40000\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if mc.Best != 0.4 {
		t.Errorf("best %v", mc.Best)
	}
	// The saved model loads and predicts as the original.
	loaded, err := keras.LoadModel(filepath.Join(dir, "best-03-0.40.keras"))
	if err != nil {
		t.Fatal(err)
	}
	x, _ := data(4, 2)
	p1, _ := m.Predict(x, keras.PredictConfig{Verbose: keras.VerboseSilent})
	p2, _ := loaded.Predict(x, keras.PredictConfig{Verbose: keras.VerboseSilent})
	if !reflect.DeepEqual(p1.Data(), p2.Data()) {
		t.Error("checkpointed model predicts differently")
	}

	// Accuracy is maximised; an initial threshold must be beaten.
	dir = t.TempDir()
	mc = NewModelCheckpoint(filepath.Join(dir, "{epoch}.weights.npz"), SaveWeightsOnly(true), SaveBestOnly(true),
		Monitor("val_accuracy"), InitialValueThreshold(0.6))
	drive(t, mc, m, "val_accuracy", 0.5, 0.7, 0.65, 0.8)
	if got := files(t, dir); !reflect.DeepEqual(got, []string{"2.weights.npz", "4.weights.npz"}) {
		t.Errorf("files %v", got)
	}
	// Without the monitored value nothing is saved, with a warning.
	warns := captureWarnings(t)
	dir = t.TempDir()
	mc = NewModelCheckpoint(filepath.Join(dir, "{epoch}.keras"), SaveBestOnly(true))
	drive(t, mc, m, "loss", 0.5)
	if len(files(t, dir)) != 0 || len(warns()) != 1 || !strings.Contains(warns()[0], "val_loss available, skipping") {
		t.Errorf("files %v warnings %q", files(t, dir), warns())
	}
}

func TestModelCheckpointBatchFrequency(t *testing.T) {
	m := model(t, 1, nil)
	x, y := data(32, 1) // 4 batches per epoch
	dir := t.TempDir()
	mc := NewModelCheckpoint(filepath.Join(dir, "b_{epoch}_{batch}.weights.npz"), SaveWeightsOnly(true), SaveFreq(3))
	if _, err := m.Fit(x, y, quiet(2, mc)); err != nil {
		t.Fatal(err)
	}
	if got := files(t, dir); !reflect.DeepEqual(got, []string{"b_1_3.weights.npz", "b_2_2.weights.npz"}) {
		t.Errorf("files %v", got)
	}
}

func TestModelCheckpointErrors(t *testing.T) {
	for _, c := range []*ModelCheckpoint{
		NewModelCheckpoint("x.keras", SaveWeightsOnly(true)),
		NewModelCheckpoint("x.weights.npz"),
		NewModelCheckpoint("x.keras", SaveFreq("batch")),
		NewModelCheckpoint("x.keras", SaveFreq(0)),
		NewModelCheckpoint("x.keras", Patience(2)),
	} {
		if c.Err() == nil {
			t.Errorf("%+v: no error", c.s)
		}
	}
	m := model(t, 1, nil)
	x, y := data(16, 1)
	mc := NewModelCheckpoint(filepath.Join(t.TempDir(), "{val_accuracy:.2f}.keras"))
	if _, err := m.Fit(x, y, quiet(1, mc)); err == nil || !strings.Contains(err.Error(), `"val_accuracy"`) {
		t.Errorf("missing template field: %v", err)
	}
}
