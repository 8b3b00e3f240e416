package ops

import (
	"fmt"
	"math"
)

// SparseSoftmaxCrossEntropyWithLogits returns, per example, -log softmax(
// logits)[label]: labels has logits' shape without the last axis and holds
// class ids as float32. Computed stably via log-sum-exp. A label outside
// [0, classes) makes the replay fail with an error naming it.
func SparseSoftmaxCrossEntropyWithLogits(labels, logits Tensor) Tensor {
	tr := sameTrace("SparseSoftmaxCrossEntropyWithLogits", labels, logits)
	ls, zs := labels.Shape(), logits.Shape()
	if len(zs) == 0 || !ls.Equal(zs[:len(zs)-1]) {
		fail("SparseSoftmaxCrossEntropyWithLogits", "labels of shape %v do not match logits of shape %v (want labels %v)", ls, zs, zs[:max(len(zs)-1, 0)])
	}
	rows, n := lastAxis("SparseSoftmaxCrossEntropyWithLogits", logits)
	return tr.apply(&Op{
		name: "SparseSoftmaxCrossEntropyWithLogits", out: ls.Clone(), attrs: binaryAttrs{},
		fwd: func(o []float32, in [][]float32) {
			for r := 0; r < rows; r++ {
				z := in[1][r*n : (r+1)*n]
				k := classOf(in[0][r], n)
				o[r] = logSumExp(z) - z[k]
			}
		},
		wrt: []bool{false, true},
		grad: func(in []Tensor, _, dy Tensor) []Tensor {
			return []Tensor{{}, sparseXentGrad(in[0], in[1], dy)}
		},
	}, labels, logits)
}

func classOf(label float32, n int) int {
	k := int(label)
	if float32(k) != label || k < 0 || k >= n {
		panic(&Error{Op: "SparseSoftmaxCrossEntropyWithLogits", Msg: fmt.Sprintf("label %v is not a class id in [0, %d)", label, n)})
	}
	return k
}

// sparseXentGrad is (softmax(logits) - onehot(labels)) * dy.
func sparseXentGrad(labels, logits, dy Tensor) Tensor {
	tr := sameTrace("SparseSoftmaxCrossEntropyGrad", labels, logits, dy)
	rows, n := lastAxis("SparseSoftmaxCrossEntropyGrad", logits)
	return tr.apply(&Op{
		name: "SparseSoftmaxCrossEntropyGrad", out: logits.Shape(), attrs: binaryAttrs{},
		fwd: func(o []float32, in [][]float32) {
			for r := 0; r < rows; r++ {
				os := o[r*n : (r+1)*n]
				softmaxRow(os, in[1][r*n:(r+1)*n])
				os[classOf(in[0][r], n)] -= 1
				g := in[2][r]
				for i := range os {
					os[i] *= g
				}
			}
		},
		wrt: []bool{false, false, false},
	}, labels, logits, dy)
}

// SoftmaxCrossEntropyWithLogits returns, per example, -sum(labels *
// log softmax(logits)) over the last axis. labels (same shape as logits) get
// no gradient.
func SoftmaxCrossEntropyWithLogits(labels, logits Tensor) Tensor {
	tr := sameTrace("SoftmaxCrossEntropyWithLogits", labels, logits)
	ls, zs := labels.Shape(), logits.Shape()
	if !ls.Equal(zs) {
		fail("SoftmaxCrossEntropyWithLogits", "labels of shape %v do not match logits of shape %v", ls, zs)
	}
	rows, n := lastAxis("SoftmaxCrossEntropyWithLogits", logits)
	return tr.apply(&Op{
		name: "SoftmaxCrossEntropyWithLogits", out: zs[:len(zs)-1].Clone(), attrs: binaryAttrs{},
		fwd: func(o []float32, in [][]float32) {
			for r := 0; r < rows; r++ {
				y, z := in[0][r*n:(r+1)*n], in[1][r*n:(r+1)*n]
				lse := logSumExp(z)
				var s float32
				for i := range z {
					s += y[i] * (lse - z[i])
				}
				o[r] = s
			}
		},
		wrt: []bool{false, true},
		grad: func(in []Tensor, _, dy Tensor) []Tensor {
			// d/dz = (softmax(z) * sum(y) - y) * dy
			y, z := in[0], in[1]
			p := Mul(Softmax(z), Sum(y, true, -1))
			return []Tensor{{}, Mul(Sub(p, y), Reshape(dy, append(dy.Shape(), 1)))}
		},
	}, labels, logits)
}

// SigmoidCrossEntropyWithLogits returns elementwise
// max(x, 0) - x*z + log(1 + e^-|x|) for logits x and labels z, the stable
// form of -z*log(sigmoid(x)) - (1-z)*log(1-sigmoid(x)). labels get no
// gradient.
func SigmoidCrossEntropyWithLogits(labels, logits Tensor) Tensor {
	tr := sameTrace("SigmoidCrossEntropyWithLogits", labels, logits)
	if !labels.Shape().Equal(logits.Shape()) {
		fail("SigmoidCrossEntropyWithLogits", "labels of shape %v do not match logits of shape %v", labels.Shape(), logits.Shape())
	}
	return tr.apply(&Op{
		name: "SigmoidCrossEntropyWithLogits", out: logits.Shape(), attrs: binaryAttrs{},
		fwd: func(o []float32, in [][]float32) {
			z, x := in[0], in[1]
			for i := range o {
				v := float64(x[i])
				o[i] = float32(math.Max(v, 0) - v*float64(z[i]) + math.Log1p(math.Exp(-math.Abs(v))))
			}
		},
		wrt: []bool{false, true},
		grad: func(in []Tensor, _, dy Tensor) []Tensor {
			return []Tensor{{}, Mul(Sub(Sigmoid(in[1]), in[0]), dy)}
		},
	}, labels, logits)
}
