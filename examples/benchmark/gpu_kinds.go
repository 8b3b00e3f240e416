package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/gokeras/gokeras/examples/internal/cli"
	"github.com/gokeras/gokeras/internal/cuda"
	"github.com/gokeras/gokeras/internal/gpuexec"
)

var gpuKindsFlag = flag.Bool("gpu-kinds", false, "run one train step of -model on the CPU under float32 and mixed_bfloat16, print a gpu_kind line per op kind it ran saying whether the GPU executor has a kernel for it (a cuda build; no GPU needed), and exit 1 if any has none")

// gpuKinds runs one train step of spec per policy on the CPU with op
// statistics on, and writes a gpu_kind line per op kind the steps ran
// (hooks, host code by design, aside) with native=yes or no: whether
// gpuexec has a GPU builder for the kind in this build. It returns the
// kinds with none. A builder may still decline some attribute values at
// run time (Exec.Fallbacks counts those): this checks the registry only.
func gpuKinds(w io.Writer, spec modelSpec, batch int) ([]string, error) {
	var missing []string
	for _, p := range []string{"float32", "mixed_bfloat16"} {
		if err := cli.SetPolicy(p); err != nil {
			return nil, err
		}
		timeOps = true
		t, err := timeSteps(spec, batch, 1, 0, 1, 0)
		timeOps = false
		if err != nil {
			return nil, fmt.Errorf("gpu-kinds: %s under %s: %w", spec.name, p, err)
		}
		kinds := map[string]bool{}
		for _, s := range t.ops {
			switch s.Kind {
			case "hook":
			case "gorgonia:+ false":
				// The engine's sum of two gradient terms of equal size: its
				// op statistics name it by gorgonia's node, its plan (what
				// the executor sees) "AddN" (engine.PlanStep).
				kinds["AddN"] = true
			default:
				kinds[s.Kind] = true
			}
		}
		names := make([]string, 0, len(kinds))
		for k := range kinds {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			native := "yes"
			if !gpuexec.Native(k) {
				native = "no"
				missing = append(missing, p+":"+k)
			}
			fmt.Fprintf(w, "gpu_kind model=%s policy=%s kind=%s native=%s cuda_build=%v\n", spec.name, p, k, native, cuda.Enabled)
		}
	}
	return missing, cli.SetPolicy("float32")
}

var graphsFlag = flag.String("graphs", "", "a cuda build: time the train step with CUDA graph replay set each way of the list (on, off or on,off) in this one process, a step line each with graphs=on|off (empty: as GOKERAS_CUDA_GRAPHS says, one step line)")

// parseGraphs checks a -graphs list.
func parseGraphs(list string) ([]bool, error) {
	var out []bool
	for _, f := range strings.Split(list, ",") {
		switch strings.TrimSpace(f) {
		case "on":
			out = append(out, true)
		case "off":
			out = append(out, false)
		default:
			return nil, fmt.Errorf("-graphs: %q is neither on nor off", f)
		}
	}
	return out, nil
}

// timeGraphs times spec's train step once per setting of CUDA graph
// replay (gpuexec.SetGraphs applies to the programs prepared afterwards,
// and each timing builds its model afresh), writing a step line each.
func timeGraphs(w io.Writer, spec modelSpec, settings []bool, batch, steps, warmup int) error {
	defer gpuexec.SetGraphs(gpuexec.Graphs())
	for _, on := range settings {
		gpuexec.SetGraphs(on)
		t, err := timeSteps(spec, batch, steps, warmup, 1, 0)
		if err != nil {
			return fmt.Errorf("graphs %v: %w", on, err)
		}
		g := "off"
		if on {
			g = "on"
		}
		fmt.Fprintf(w, "step model=%s batch=%d ms_per_step=%.2f median_ms=%.2f samples_per_s=%.0f replicas=1 graphs=%s cuda_build=%v impl=gokeras\n",
			spec.name, batch, t.mean, t.median, float64(batch)/t.mean*1e3, g, cuda.Enabled)
	}
	return nil
}
