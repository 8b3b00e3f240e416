package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestMain runs main with the arguments in GOKERAS_EXAMPLE_ARGS when that
// is set, so that tests can run the example as a command without building it.
func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv("GOKERAS_EXAMPLE_ARGS"); ok {
		os.Args = append([]string{"mnist_cnn"}, strings.Fields(args)...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestFlagsRefuseNonsense: nonsense flag values end the command at once
// with status 2 and an error naming the flag, before loading data or
// printing the model summary.
func TestFlagsRefuseNonsense(t *testing.T) {
	missing := t.TempDir() + "/no-data-here"
	for _, c := range []struct{ args, want string }{
		{"-epochs 0", "-epochs 0: want at least 1"},
		{"-batch-size 0", "-batch-size 0: want at least 1"},
		{"-batch-size -3", "-batch-size -3: want at least 1"},
		{"-limit -5", "-limit -5: want 0 or more"},
		{"-replicas 0", "-replicas 0: want at least 1"},
		{"-verbose 9", "-verbose 9: want one of"},
		// Output paths are checked before training, not after it.
		{"-save-model /nonexistent/m.keras", "-save-model /nonexistent/m.keras: no folder /nonexistent"},
		{"-save-model m.txt", "-save-model m.txt: the name must end in .keras or .h5 or .hdf5"},
		{"-save-weights w.h5", "-save-weights w.h5: the name must end in .weights.h5 or .npz"},
		{"-plot /nonexistent/h.png", "-plot /nonexistent/h.png: no folder /nonexistent"},
		{"-dataset cifar", `-dataset "cifar": want one of fashion_mnist, fashion-mnist, mnist`},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "GOKERAS_EXAMPLE_ARGS=-data "+missing+" -plot= "+c.args)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("%s: %v, want exit status 2\n%s", c.args, err, out)
			continue
		}
		if !strings.Contains(string(out), c.want) || strings.Contains(string(out), "Model:") {
			t.Errorf("%s: output %q, want only %q", c.args, out, c.want)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%s: took %v to refuse", c.args, d)
		}
	}
}
