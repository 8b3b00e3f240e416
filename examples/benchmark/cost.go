package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/examples/internal/models"
	"github.com/gokeras/gokeras/keras"
)

// modelSpec is the model a run times: a seed model by -model name and,
// for the seed CNN, its width (-width: the convolutions' filters x width,
// models.MNISTCNNWidth).
type modelSpec struct {
	name  string
	width float64
}

// check reports a spec build cannot make: an unknown name, a width other
// than 1 for the ResNet, a width that gives no whole number of filters.
func (s modelSpec) check() error {
	switch s.name {
	case "mnist_cnn":
		_, _, err := models.CNNFilters(s.width)
		return err
	case "resnet_seed":
		if s.width != 1 {
			return fmt.Errorf("-width %v: only mnist_cnn takes a width", s.width)
		}
		return nil
	}
	return fmt.Errorf("unknown -model %q (mnist_cnn or resnet_seed)", s.name)
}

// build makes the model and returns it with its input shape (no batch).
func (s modelSpec) build() (*keras.Model, []int, error) {
	if err := s.check(); err != nil {
		return nil, nil, err
	}
	if s.name == "resnet_seed" {
		m, err := models.ResNetSeed()
		return m, []int{32, 32, 3}, err
	}
	m, err := models.MNISTCNNWidth(s.width)
	return m, []int{28, 28, 1}, err
}

// widthArgs returns flag and the width for a subprocess (this command's
// -width, the references' --width), nothing at width 1: the command lines
// of the seed models stay as they were.
func (s modelSpec) widthArgs(flag string) []string {
	if s.width == 1 {
		return nil
	}
	return []string{flag, strconv.FormatFloat(s.width, 'g', -1, 64)}
}

// stepFloor is a train step's arithmetic floor: its GEMM FLOPs
// (models.StepFLOPs) at peakGFLOPs, the machine's fused multiply-add peak
// for the threads used (one core's GEMM rate x threads).
type stepFloor struct {
	gflop float64 // GFLOP per step
	ms    float64 // gflop / peakGFLOPs, in ms
}

// floorOf counts the GEMM FLOPs of one step of s at batch and returns
// the floor at peakGFLOPs (> 0).
func floorOf(s modelSpec, batch int, peakGFLOPs float64) (stepFloor, error) {
	if !(peakGFLOPs > 0) {
		return stepFloor{}, fmt.Errorf("-floor-gflops %v must be positive", peakGFLOPs)
	}
	m, _, err := s.build()
	if err != nil {
		return stepFloor{}, err
	}
	f, err := models.StepFLOPs(m, batch)
	if err != nil {
		return stepFloor{}, err
	}
	return stepFloor{gflop: f / 1e9, ms: f / 1e9 / peakGFLOPs * 1e3}, nil
}

// fields returns the step line's floor fields for a step of stepMS:
// " gflop=... floor_ms=... floor_ratio=..." where floor_ratio is
// stepMS / floor_ms (1: the step runs at the floor; 3: three times it).
func (f stepFloor) fields(stepMS float64) string {
	return fmt.Sprintf(" gflop=%.4f floor_ms=%.3f floor_ratio=%.2f", f.gflop, f.ms, stepMS/f.ms)
}

// printOpStats writes one line per op kind of ops (engine.OpStats over
// steps timed steps), largest first: its calls and wall ms per step, and
// its operand shapes when they were gathered (-opstats-shapes).
func printOpStats(w io.Writer, model string, batch, steps int, ops []engine.OpStat) {
	for _, o := range ops {
		shapes := ""
		if o.Shapes != "" {
			shapes = fmt.Sprintf(" shapes=%q", o.Shapes)
		}
		fmt.Fprintf(w, "op model=%s batch=%d kind=%s calls_per_step=%.4g ms_per_step=%.3f%s\n",
			model, batch, o.Kind, float64(o.Calls)/float64(steps), float64(o.Time.Microseconds())/1e3/float64(steps), shapes)
	}
}
