package gpuexec

// families are op kinds whose CPU kernels share state between the forward
// and the gradient ops (the convolution's patches, max pooling's argmax,
// dropout's mask): in one program they run all on the GPU or all on the
// CPU.
var families = [][]string{
	{"Conv2D", "Conv2DBias", "Conv2DBiasRelu", "Conv2DBackpropInput", "Conv2DBackpropFilter"},
	{"MaxPool2D", "MaxPool2DGrad"},
	{"Max", "MaxGrad"},
	{"DepthwiseConv2D", "DepthwiseConv2DBackpropInput", "DepthwiseConv2DBackpropFilter"},
	{"Dropout"},
}

// toHost returns the steps (indices into kinds) that must move to the CPU
// because another step of their family runs there: native[i] tells
// whether step i has a GPU kernel.
func toHost(kinds []string, native []bool) []int {
	var out []int
	for _, fam := range families {
		in := map[string]bool{}
		for _, k := range fam {
			in[k] = true
		}
		host := false
		for i, k := range kinds {
			host = host || in[k] && !native[i]
		}
		if !host {
			continue
		}
		for i, k := range kinds {
			if in[k] && native[i] {
				out = append(out, i)
			}
		}
	}
	return out
}
