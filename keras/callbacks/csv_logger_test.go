package callbacks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCSVLogger(t *testing.T) {
	m := model(t, 1, nil)
	x, y := data(40, 1)
	path := filepath.Join(t.TempDir(), "log.csv")
	cfg := quiet(3, NewCSVLogger(path))
	cfg.ValidationSplit = 0.2
	h, err := m.Fit(x, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 4 || lines[0] != "epoch,accuracy,loss,val_accuracy,val_loss" {
		t.Fatalf("csv:\n%s", b)
	}
	for e := range 3 {
		want := strings.Join([]string{
			[]string{"0", "1", "2"}[e],
			pyFloatRepr(h.History["accuracy"][e]), pyFloatRepr(h.History["loss"][e]),
			pyFloatRepr(h.History["val_accuracy"][e]), pyFloatRepr(h.History["val_loss"][e]),
		}, ",")
		if lines[e+1] != want {
			t.Errorf("row %d: %q, want %q", e, lines[e+1], want)
		}
	}

	// Append: no second header.
	cfg.Callbacks = nil
	cfg.Callbacks = append(cfg.Callbacks, NewCSVLogger(path, Append(true)))
	if _, err := m.Fit(x, y, cfg); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	if n := strings.Count(string(b), "\n"); n != 7 || strings.Count(string(b), "epoch,") != 1 {
		t.Errorf("appended csv:\n%s", b)
	}
	// Without Append the file is rewritten; the separator is an option.
	cfg.Callbacks = append(cfg.Callbacks[:0], NewCSVLogger(path, Separator(";")))
	cfg.ValidationSplit = 0
	cfg.Epochs = 1
	if _, err := m.Fit(x, y, cfg); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	if lines := strings.Split(string(b), "\n"); len(lines) != 3 || lines[0] != "epoch;accuracy;loss" || !strings.HasPrefix(lines[1], "0;") {
		t.Errorf("rewritten csv:\n%s", b)
	}
	if err := NewCSVLogger(path, Separator(";;")).Err(); err == nil {
		t.Error("two-character separator accepted")
	}
}

func TestCSVLoggerMissingValues(t *testing.T) {
	m := model(t, 1, nil)
	path := filepath.Join(t.TempDir(), "log.csv")
	c := NewCSVLogger(path)
	c.SetModel(m)
	if err := c.OnTrainBegin(nil); err != nil {
		t.Fatal(err)
	}
	c.OnEpochEnd(0, logs("loss", 0.5, "val_loss", 0.25))
	c.OnEpochEnd(1, logs("loss", 1e-05))
	if err := c.OnTrainEnd(nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "epoch,loss,val_loss\n0,0.5,0.25\n1,1e-05,NA\n" {
		t.Errorf("csv %q", b)
	}
}
