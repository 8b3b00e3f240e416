package keras

import (
	"strings"
	"testing"
	"time"
)

func TestProgbarLayout(t *testing.T) {
	var b strings.Builder
	p := NewProgbar(938, 1, &b)
	start := time.Unix(1000, 0)
	p.start = start
	p.Interval = 0
	// Step i ends at 9 ms * i.
	at := func(step int) {
		p.now = func() time.Time { return start.Add(time.Duration(step) * 9 * time.Millisecond) }
	}
	logs := []LogItem{{"loss", 0.20764}, {"accuracy", 0.93641}}
	at(1)
	p.Update(1, logs, false)
	at(469)
	p.Update(469, logs, false)
	at(938)
	p.Update(938, append(logs, LogItem{"val_loss", 0.0770}, LogItem{"val_accuracy", 0.97631}), true)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want one per update (not a terminal):\n%s", len(lines), b.String())
	}
	want := []string{
		"  1/938 [..............................] - ETA: 8s - loss: 0.2076 - accuracy: 0.9364",
		"469/938 [==============>...............] - ETA: 4s - loss: 0.2076 - accuracy: 0.9364",
		"938/938 [==============================] - 8s 9ms/step - loss: 0.2076 - accuracy: 0.9364 - val_loss: 0.0770 - val_accuracy: 0.9763",
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d:\n got %q\nwant %q", i, lines[i], want[i])
		}
	}
}

func TestProgbarDynamicAndVerbose2(t *testing.T) {
	var b strings.Builder
	p := NewProgbar(10, 1, &b)
	p.Dynamic = true
	p.Interval = 0
	p.Update(5, []LogItem{{"loss", 1e-4}}, false)
	p.Update(10, []LogItem{{"loss", 1e-4}}, true)
	out := b.String()
	if !strings.Contains(out, "\r") || strings.Count(out, "\n") != 1 {
		t.Errorf("terminal output should redraw with \\r and end with one newline: %q", out)
	}
	if !strings.Contains(out, "loss: 1.0000e-04") {
		t.Errorf("small values in scientific notation: %q", out)
	}
	b.Reset()
	p = NewProgbar(10, 2, &b)
	p.Update(5, nil, false)
	p.Update(10, []LogItem{{"loss", 0.5}}, true)
	if got := b.String(); strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, "10/10 - ") || !strings.Contains(got, "loss: 0.5000") || !strings.Contains(got, "/epoch") {
		t.Errorf("verbose 2: %q", got)
	}
}
