//go:build cuda

package gpuexec

import (
	"regexp"
	"strconv"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/cuda/kernels"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/cu"
)

// The batch norm ops of package ops, one kernel each (internal/cuda/kernels):
// cuDNN's fused batch norm cannot stop between the sums and the moments,
// where synchronized batch norm all-reduces the sums.

func init() {
	for _, k := range []string{"BatchNormShift", "BatchNormSums", "BatchNormMoments", "BatchNormPack", "BatchNormApply",
		"BatchNormGradSums", "BatchNormGradInput", "BatchNormParamGrad"} {
		register(k, buildBatchNorm)
	}
}

var (
	bnGradInputRE = regexp.MustCompile(`Epsilon:(\S+) Training:(true|false).* masked=(true|false) gamma=(true|false)`)
	bnParamGradRE = regexp.MustCompile(`gamma=(true|false) eps=(\S+)`)
	bnMaskedRE    = regexp.MustCompile(`masked=(true|false)`)
)

func parseEps(s string) (float32, bool) {
	f, err := strconv.ParseFloat(s, 32)
	return float32(f), err == nil
}

func buildBatchNorm(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	if !x.kernelsOK {
		return nil, false, nil
	}
	s := x.Rep.Compute
	attrStr, _ := st.Op.Attrs().(string)
	switch st.Kind {
	case "BatchNormShift": // (x) -> c+1: x's first row and 1, zeros without rows
		c := shapes[st.Out].Size() - 1
		if c < 1 || len(st.Ins) != 1 {
			return nil, false, nil
		}
		rows := shapes[st.Ins[0]].Size() / c
		return func(out cu.DevicePtr, in []cu.DevicePtr) error {
			if rows == 0 {
				return kernels.Fill(s, out, c+1, 0)
			}
			if err := x.Rep.CopyDevice(out, in[0], c); err != nil {
				return err
			}
			return kernels.Fill(s, out+cu.DevicePtr(4*c), 1, 1)
		}, true, nil
	case "BatchNormSums": // (x[, shift]) -> 2c+1: our kernel sums x itself in float64 (the shift, which
		// keeps the CPU's float32 sums from cancelling, is not needed), and BatchNormMoments reads
		// such unshifted sums: the same mean and variance.
		c := (shapes[st.Out].Size() - 1) / 2
		if c < 1 {
			return nil, false, nil
		}
		rows := shapes[st.Ins[0]].Size() / c
		work, err := x.scratch(kernels.BatchNormSumsWorkBytes(rows, c))
		if err != nil {
			return nil, false, err
		}
		return func(out cu.DevicePtr, in []cu.DevicePtr) error {
			return kernels.BatchNormSums(s, out, in[0], work, rows, c)
		}, true, nil
	case "BatchNormMoments": // (sums 2c+1) -> 2c+1
		c := (shapes[st.Ins[0]].Size() - 1) / 2
		return func(out cu.DevicePtr, in []cu.DevicePtr) error {
			return kernels.BatchNormMoments(s, out, in[0], c)
		}, c >= 1, nil
	case "BatchNormPack": // (mean, variance) -> 2c+1
		c := shapes[st.Ins[0]].Size()
		return func(out cu.DevicePtr, in []cu.DevicePtr) error {
			return kernels.BatchNormPack(s, out, in[0], in[1], c)
		}, c >= 1, nil
	case "BatchNormApply": // (x, moments[, gamma][, beta])
		ba, ok1 := attrField(st.Op.Attrs(), "BatchNormAttrs")
		g, ok2 := attrField(st.Op.Attrs(), "Gamma")
		b, ok3 := attrField(st.Op.Attrs(), "Beta")
		if !ok1 || !ok2 || !ok3 {
			return nil, false, nil
		}
		a := ba.(ops.BatchNormAttrs)
		hasGamma, hasBeta := g.(bool), b.(bool)
		xs := shapes[st.Ins[0]]
		c := xs[len(xs)-1]
		rows := xs.Size() / c
		return func(out cu.DevicePtr, in []cu.DevicePtr) error {
			var gamma, beta cu.DevicePtr
			i := 2
			if hasGamma {
				gamma = in[i]
				i++
			}
			if hasBeta {
				beta = in[i]
			}
			return kernels.BatchNormApply(s, out, in[0], in[1], gamma, beta, rows, c, a.Epsilon, a.Relu)
		}, true, nil
	case "BatchNormGradSums": // (x, dy, moments[, mask]) -> 2c
		m := bnMaskedRE.FindStringSubmatch(attrStr)
		if m == nil {
			return nil, false, nil
		}
		masked := m[1] == "true"
		c := shapes[st.Out].Size() / 2
		if c < 1 {
			return nil, false, nil
		}
		rows := shapes[st.Ins[0]].Size() / c
		work, err := x.scratch(kernels.BatchNormSumsWorkBytes(rows, c))
		if err != nil {
			return nil, false, err
		}
		return func(out cu.DevicePtr, in []cu.DevicePtr) error {
			var mask cu.DevicePtr
			if masked {
				mask = in[3]
			}
			return kernels.BatchNormGradSums(s, out, in[0], in[1], in[2], mask, work, rows, c)
		}, true, nil
	case "BatchNormGradInput": // (x, dy, moments, sums[, gamma][, mask])
		m := bnGradInputRE.FindStringSubmatch(attrStr)
		if m == nil {
			return nil, false, nil
		}
		eps, ok := parseEps(m[1])
		if !ok {
			return nil, false, nil
		}
		training, masked, hasGamma := m[2] == "true", m[3] == "true", m[4] == "true"
		xs := shapes[st.Out]
		c := xs[len(xs)-1]
		rows := xs.Size() / c
		return func(out cu.DevicePtr, in []cu.DevicePtr) error {
			var gamma, mask cu.DevicePtr
			i := 4
			if hasGamma {
				gamma = in[i]
				i++
			}
			if masked {
				mask = in[i]
			}
			return kernels.BatchNormGradInput(s, out, in[0], in[1], in[2], in[3], gamma, mask, rows, c, eps, training)
		}, true, nil
	case "BatchNormParamGrad": // (sums, moments) -> c
		m := bnParamGradRE.FindStringSubmatch(attrStr)
		if m == nil {
			return nil, false, nil
		}
		eps, ok := parseEps(m[2])
		if !ok {
			return nil, false, nil
		}
		gamma := m[1] == "true"
		c := shapes[st.Out].Size()
		return func(out cu.DevicePtr, in []cu.DevicePtr) error {
			return kernels.BatchNormParamGrad(s, out, in[0], in[1], c, eps, gamma)
		}, true, nil
	}
	return nil, false, nil
}
