package main

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/internal/racetest"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/mixedprecision"
)

// TestPolicyFlag: -policy mixed_float16 trains the seed CNN on CPU with
// dynamic loss scaling (finite, decreasing loss), and the saved model
// loads with its layers' policy; an unknown policy ends the command at
// once with status 2 naming the flag.
func TestPolicyFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the example")
	}
	racetest.Skip(t, "the -policy flag on one replica; distribute's TestMirroredEquivalenceMixed races mixed replicas")
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	os.Mkdir(data, 0o755)
	fakeMNIST(t, data, 320, 64)
	model := filepath.Join(dir, "cnn.keras")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GOKERAS_EXAMPLE_ARGS=-policy mixed_float16 -dataset mnist -data "+data+
		" -epochs 2 -seed 3 -verbose 2 -plot= -save-model "+model)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var losses []float64
	for _, m := range regexp.MustCompile(`(?m)\bloss: ([0-9.eE+-]+|nan|inf)`).FindAllStringSubmatch(string(out), -1) {
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("loss %q\n%s", m[1], out)
		}
		losses = append(losses, v)
	}
	if len(losses) < 2 || !(losses[len(losses)-1] < losses[0]) {
		t.Errorf("losses %v do not decrease\n%s", losses, out)
	}
	if !strings.Contains(string(out), "test_accuracy:") {
		t.Errorf("no test accuracy\n%s", out)
	}
	m, err := keras.LoadModel(model)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range m.Layers() {
		pl, ok := l.(interface {
			DTypePolicy() mixedprecision.DTypePolicy
		})
		if ok && pl.DTypePolicy().Name() != "mixed_float16" {
			t.Errorf("loaded layer %s has policy %s", l.Name(), pl.DTypePolicy().Name())
		}
	}

	bad := exec.Command(os.Args[0], "-test.run=^$")
	bad.Env = append(os.Environ(), "GOKERAS_EXAMPLE_ARGS=-data "+data+" -plot= -policy bf16")
	out, err = bad.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), `-policy "bf16"`) || strings.Contains(string(out), "Model:") {
		t.Errorf("-policy bf16: %v\n%s", err, out)
	}
}
