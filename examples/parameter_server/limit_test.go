package main

import "testing"

// TestLimitShortensTheEpoch: -limit N makes an epoch at most one pass
// over the N examples (issue 36: -model cnn -limit 2000 kept 900 steps
// of 64, 57600 examples an epoch); an explicit -steps-per-epoch wins.
func TestLimitShortensTheEpoch(t *testing.T) {
	for _, tc := range []struct {
		model        string
		limit, steps int
		set          bool // -steps-per-epoch given
		want         int
	}{
		{"cnn", 0, 0, false, 900},
		{"cnn", 2000, 0, false, 32},
		{"cnn", 64, 0, false, 1},
		{"cnn", 100000, 0, false, 900},
		{"cnn", 2000, 100, true, 100},
		{"seed", 0, 0, false, 20},
		{"seed", 300, 0, false, 5},
		{"seed", 300, 50, true, 50},
	} {
		c := config{model: tc.model, limit: tc.limit, steps: tc.steps, batch: 64, strategy: "ps", set: map[string]bool{"steps-per-epoch": tc.set}}
		if err := defaults(&c); err != nil {
			t.Fatal(err)
		}
		if c.steps != tc.want {
			t.Errorf("-model %s -limit %d (steps %d, given %v): %d steps per epoch, want %d", tc.model, tc.limit, tc.steps, tc.set, c.steps, tc.want)
		}
	}
}

// TestLimitTruncatesSyntheticData: the seed snippet's random data and
// the custom loop's synthetic data are cut to -limit rows (they used to
// ignore it), and a -limit over their size leaves them whole.
func TestLimitTruncatesSyntheticData(t *testing.T) {
	for _, tc := range []struct{ limit, want int }{{0, 1000}, {300, 300}, {5000, 1000}} {
		d, err := loadData(config{model: "seed", limit: tc.limit, seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if d.xTrain.Shape()[0] != tc.want || d.yTrain.Shape()[0] != tc.want || d.xTest.Shape()[0] != 200 {
			t.Errorf("-limit %d: train %v/%v test %v, want %d training rows and 200 test rows", tc.limit, d.xTrain.Shape(), d.yTrain.Shape(), d.xTest.Shape(), tc.want)
		}
	}
	whole, _ := loadData(config{model: "seed", seed: 1})
	cut, _ := loadData(config{model: "seed", limit: 300, seed: 1})
	if w, c := whole.xTrain.Data().([]float32), cut.xTrain.Data().([]float32); w[5*299+4] != c[5*299+4] {
		t.Error("-limit 300 rows are not the first 300 rows")
	}
	for _, tc := range []struct {
		limit, steps, wantExamples, wantSteps int
		set                                   map[string]bool
	}{
		{0, 0, 0, 0, nil}, // the loop's defaults (2000 examples, 20 steps)
		{500, 0, 500, 8, nil},
		{5000, 0, 2000, 20, nil},
		{500, 3, 500, 3, map[string]bool{"steps-per-epoch": true}},
	} {
		cfg := customLoopSettings(config{limit: tc.limit, steps: tc.steps, batch: 64, set: tc.set})
		if cfg.Examples != tc.wantExamples || cfg.StepsPerEpoch != tc.wantSteps {
			t.Errorf("-custom-loop -limit %d: %d examples, %d steps, want %d and %d", tc.limit, cfg.Examples, cfg.StepsPerEpoch, tc.wantExamples, tc.wantSteps)
		}
	}
}
