package main

import (
	"github.com/gokeras/gokeras/distribute"
)

// customLoop runs the tutorial's custom training loop (custom_loop.go) on
// its own synthetic data; the flags given on the command line override its
// defaults.
func customLoop(c config, strategy *distribute.ParameterServerStrategy, _ data) error {
	return runCustomLoop(strategy, nil, nil, nil, nil, customLoopSettings(c))
}

// customLoopSettings is the custom loop's configuration from the flags
// given on the command line; -limit N trains on N synthetic examples and,
// without -steps-per-epoch, at most one pass over them per epoch.
func customLoopSettings(c config) customLoopConfig {
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
	if c.limit > 0 {
		cfg.defaults()
		cfg.Examples = min(cfg.Examples, c.limit)
		if !c.set["steps-per-epoch"] {
			cfg.StepsPerEpoch = min(cfg.StepsPerEpoch, passSteps(cfg.Examples, cfg.Batch))
		}
	}
	return cfg
}
