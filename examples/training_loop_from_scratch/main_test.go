package main

import (
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/internal/racetest"
)

// TestMain runs main with the arguments in GOKERAS_EXAMPLE_ARGS when that
// is set, so that tests can run the example as a command without building it.
func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv("GOKERAS_EXAMPLE_ARGS"); ok {
		os.Args = append([]string{"training_loop_from_scratch"}, strings.Fields(args)...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// mnistDir returns the mnist folder of the first $GOKERAS_DATASETS entry
// holding one (CI points it at the real datasets), or skips.
func mnistDir(t *testing.T) string {
	t.Helper()
	for _, d := range filepath.SplitList(os.Getenv("GOKERAS_DATASETS")) {
		p := filepath.Join(d, "mnist")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
	}
	t.Skip("no mnist folder in $GOKERAS_DATASETS: set it to a folder of datasets (../shared/datasets) to run the guide")
	return ""
}

// TestGuideRunsOnMNIST runs the whole guide on the real MNIST, each pass
// cut to 30 batches, and checks its output has the guide's lines in the
// guide's order: three eager epochs, two with metrics, two with the
// compiled steps, the activity-regularized step, then one step of the
// GAN; losses are finite and the metrics are accuracies that learned
// something.
func TestGuideRunsOnMNIST(t *testing.T) {
	racetest.Skip(t, "the guide's eager loop on real MNIST, one goroutine of the example's own")
	dir := mnistDir(t)
	saveDir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GOKERAS_EXAMPLE_ARGS=-data "+dir+" -max-steps 30 -gan-steps 1 -seed 1 -verbose -save-dir "+saveDir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	text := string(out)
	if n := strings.Count(text, "Start of epoch"); n != 7 {
		t.Errorf("%d epochs started, want 3 + 2 + 2\n%s", n, text)
	}
	if n := strings.Count(text, "Training loss (for 1 batch) at step 0: "); n != 8 {
		t.Errorf("%d first-step loss lines, want 8\n%s", n, text)
	}
	if n := strings.Count(text, "Seen so far: 32 samples"); n != 7 {
		t.Errorf("%d 'Seen so far' lines, want 7\n%s", n, text)
	}
	for _, re := range []string{`Training loss \(for 1 batch\) at step 0: ([0-9.]+)\n`, `Training acc over epoch: ([0-9.]+)\n`, `Validation acc: ([0-9.]+)\n`} {
		ms := regexp.MustCompile(re).FindAllStringSubmatch(text, -1)
		if len(ms) == 0 {
			t.Errorf("no line matches %q\n%s", re, text)
		}
		for _, m := range ms {
			v, err := strconv.ParseFloat(m[1], 64)
			if err != nil || v < 0 || (strings.Contains(re, "acc") && v > 1) {
				t.Errorf("%q: value %q", re, m[1])
			}
		}
	}
	// After 30 batches of Adam on raw pixels a 10-class model is well above
	// chance (0.1) on the validation batches.
	accs := regexp.MustCompile(`Validation acc: ([0-9.]+)`).FindAllStringSubmatch(text, -1)
	if len(accs) != 4 {
		t.Fatalf("%d validation lines, want 4\n%s", len(accs), text)
	}
	if v, _ := strconv.ParseFloat(accs[len(accs)-1][1], 64); v < 0.5 {
		t.Errorf("last validation accuracy %v, want above 0.5\n%s", v, text)
	}
	if !strings.Contains(text, "Activity regularization") || !regexp.MustCompile(`Time taken: [0-9.]+s`).MatchString(text) {
		t.Errorf("missing sections\n%s", text)
	}
	// The GAN: the discriminator's summary, one step's losses (binary
	// cross-entropies near log 2 at the start), one 28x28 image saved.
	if !strings.Contains(text, `Model: "discriminator"`) || !strings.Contains(text, "Total params: 74,625") {
		t.Errorf("no discriminator summary with the guide's 74,625 parameters\n%s", text)
	}
	for _, what := range []string{"discriminator", "adversarial"} {
		m := regexp.MustCompile(what + ` loss at step 0: ([0-9.]+)`).FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("no %s loss line\n%s", what, text)
		}
		if v, _ := strconv.ParseFloat(m[1], 64); v < 0.3 || v > 1.5 {
			t.Errorf("%s loss at step 0 is %v, want near log 2", what, v)
		}
	}
	// -verbose: the peak RSS, under the 2 GB a laptop gives (9.4 GB before
	// the convolutions stopped keeping GB-sized panels).
	m := regexp.MustCompile(`peak RSS: ([0-9]+) MB\n`).FindStringSubmatch(text)
	if m == nil {
		t.Errorf("-verbose printed no peak RSS\n%s", text)
	} else if mb, _ := strconv.Atoi(m[1]); mb > 2048 {
		t.Errorf("peak RSS %d MB, want under 2048", mb)
	}
	f, err := os.Open(filepath.Join(saveDir, "generated_img_0.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("generated_img_0.png: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 28 || b.Dy() != 28 {
		t.Errorf("generated_img_0.png is %v, want 28x28", b)
	}
}

// TestMissingDataIsAnError: -data naming a folder without MNIST fails
// with the folder's name instead of training on another copy.
func TestMissingDataIsAnError(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-data-here")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GOKERAS_EXAMPLE_ARGS=-data "+missing+" -save-dir "+filepath.Join(t.TempDir(), "imgs"))
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "no-data-here") || strings.Contains(string(out), "Start of epoch") {
		t.Errorf("err %v, output %s", err, out)
	}
}
