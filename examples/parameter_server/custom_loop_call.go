package main

import (
	"github.com/gokeras/gokeras/distribute"
)

// customLoop runs the tutorial's custom training loop (custom_loop.go) on
// its own synthetic data; the flags given on the command line override its
// defaults.
func customLoop(c config, strategy *distribute.ParameterServerStrategy, _ data) error {
	cfg := customLoopConfig{Seed: uint64(c.seed)}
	if c.set["epochs"] {
		cfg.Epochs = c.epochs
	}
	if c.set["steps-per-epoch"] {
		cfg.StepsPerEpoch = c.steps
	}
	if c.set["batch-size"] {
		cfg.Batch = c.batch
	}
	if c.set["learning-rate"] {
		cfg.LearningRate = c.learningRate
	}
	return runCustomLoop(strategy, nil, nil, nil, nil, cfg)
}
