package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/distribute"
)

// TestCustomLoopChild is a worker or server of TestCustomLoop.
func TestCustomLoopChild(t *testing.T) {
	if os.Getenv("GOKERAS_CUSTOM_LOOP_CHILD") == "" {
		t.Skip("a child process of TestCustomLoop")
	}
	s, err := distribute.NewParameterServerStrategy(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := runCustomLoop(s, nil, nil, nil, nil, customLoopConfig{Seed: 3}); err != nil {
		t.Fatal(err)
	}
}

// TestCustomLoop: a chief (this process), 2 worker processes and a server
// run the tutorial's custom loop; the model learns the synthetic task.
func TestCustomLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes (-short)")
	}
	var addrs []string
	for range 4 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addrs = append(addrs, l.Addr().String())
		l.Close()
	}
	spec := map[string][]string{"chief": addrs[:1], "worker": addrs[1:3], "ps": addrs[3:]}
	tfConfig := func(typ string, i int) string {
		b, _ := json.Marshal(map[string]any{"cluster": spec, "task": map[string]any{"type": typ, "index": i}})
		return string(b)
	}
	var children []*exec.Cmd
	t.Cleanup(func() {
		for _, c := range children {
			c.Process.Kill()
			c.Wait()
		}
	})
	for _, task := range []struct {
		typ string
		i   int
	}{{"ps", 0}, {"worker", 0}, {"worker", 1}} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestCustomLoopChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "GOKERAS_CUSTOM_LOOP_CHILD=1", "TF_CONFIG="+tfConfig(task.typ, task.i))
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children = append(children, cmd)
	}
	r, err := distribute.NewTFConfigClusterResolver(tfConfig("chief", 0))
	if err != nil {
		t.Fatal(err)
	}
	s, err := distribute.NewParameterServerStrategy(r)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	err = runCustomLoop(s, nil, nil, nil, nil, customLoopConfig{Seed: 3, Print: func(f string, a ...any) { fmt.Fprintf(&out, f, a...) }})
	t.Log("\n" + out.String())
	if err != nil {
		t.Fatal(err)
	}
	var acc float64
	if _, err := fmt.Sscanf(out.String()[strings.LastIndex(out.String(), "Evaluation accuracy: "):], "Evaluation accuracy: %f", &acc); err != nil {
		t.Fatal(err)
	}
	if acc < 0.9 {
		t.Errorf("evaluation accuracy %v, want at least 0.9", acc)
	}
	for _, c := range children {
		if err := c.Wait(); err != nil {
			t.Errorf("a task did not end cleanly: %v", err)
		}
	}
	children = nil
}
