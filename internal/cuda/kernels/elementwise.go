//go:build cuda

package kernels

import (
	"fmt"

	"gorgonia.org/cu"
)

func unary(id kernelID, s cu.Stream, out, x cu.DevicePtr, n int) error {
	if err := checkN(kernelTable[id].name, n, out, x); err != nil || n == 0 {
		return err
	}
	return elems(id, s, n, newArgs().p(out).p(x).l(n))
}

func unary1(id kernelID, s cu.Stream, out, x cu.DevicePtr, n int, c float32) error {
	if err := checkN(kernelTable[id].name, n, out, x); err != nil || n == 0 {
		return err
	}
	return elems(id, s, n, newArgs().p(out).p(x).l(n).f(c))
}

func unary2(id kernelID, s cu.Stream, out, x cu.DevicePtr, n int, c, d float32) error {
	if err := checkN(kernelTable[id].name, n, out, x); err != nil || n == 0 {
		return err
	}
	return elems(id, s, n, newArgs().p(out).p(x).l(n).f(c).f(d))
}

func binary(id kernelID, s cu.Stream, out, a, b cu.DevicePtr, n int) error {
	if err := checkN(kernelTable[id].name, n, out, a, b); err != nil || n == 0 {
		return err
	}
	return elems(id, s, n, newArgs().p(out).p(a).p(b).l(n))
}

// Neg sets out = -x (ops.Neg).
func Neg(s cu.Stream, out, x cu.DevicePtr, n int) error { return unary(kNeg, s, out, x, n) }

// Scale sets out = c*x (ops.Scale).
func Scale(s cu.Stream, out, x cu.DevicePtr, n int, c float32) error {
	return unary1(kScale, s, out, x, n, c)
}

// AddScalar sets out = x + c (ops.AddScalar).
func AddScalar(s cu.Stream, out, x cu.DevicePtr, n int, c float32) error {
	return unary1(kAddScalar, s, out, x, n, c)
}

// OneMinus sets out = 1 - x (ops.OneMinus).
func OneMinus(s cu.Stream, out, x cu.DevicePtr, n int) error { return unary(kOneMinus, s, out, x, n) }

// Exp sets out = e^x, computed in float64 (ops.Exp).
func Exp(s cu.Stream, out, x cu.DevicePtr, n int) error { return unary(kExp, s, out, x, n) }

// Log sets out = ln x, computed in float64 (ops.Log).
func Log(s cu.Stream, out, x cu.DevicePtr, n int) error { return unary(kLog, s, out, x, n) }

// Sqrt sets out = sqrt(x) (ops.Sqrt).
func Sqrt(s cu.Stream, out, x cu.DevicePtr, n int) error { return unary(kSqrt, s, out, x, n) }

// Rsqrt sets out = 1/sqrt(x), computed in float64 (ops.Rsqrt).
func Rsqrt(s cu.Stream, out, x cu.DevicePtr, n int) error { return unary(kRsqrt, s, out, x, n) }

// Tanh sets out = tanh(x), computed in float64 (ops.Tanh).
func Tanh(s cu.Stream, out, x cu.DevicePtr, n int) error { return unary(kTanh, s, out, x, n) }

// Square sets out = x*x (ops.Square).
func Square(s cu.Stream, out, x cu.DevicePtr, n int) error { return unary(kSquare, s, out, x, n) }

// Abs sets out = |x| (ops.Abs).
func Abs(s cu.Stream, out, x cu.DevicePtr, n int) error { return unary(kAbs, s, out, x, n) }

// Sign sets out to -1, 0 or 1 (0 for NaN) (ops.Sign).
func Sign(s cu.Stream, out, x cu.DevicePtr, n int) error { return unary(kSign, s, out, x, n) }

// Clip sets out = min(max(x, lo), hi) with Go's NaN-propagating min and
// max (ops.Clip).
func Clip(s cu.Stream, out, x cu.DevicePtr, n int, lo, hi float32) error {
	return unary2(kClip, s, out, x, n, lo, hi)
}

// ClipMask sets out = 1 where lo <= x <= hi, else 0 (the gradient mask of
// ops.Clip).
func ClipMask(s cu.Stream, out, x cu.DevicePtr, n int, lo, hi float32) error {
	return unary2(kClipMask, s, out, x, n, lo, hi)
}

// StepAbove sets out = 1 where x >= t, else 0 (layers.ReLU's mask).
func StepAbove(s cu.Stream, out, x cu.DevicePtr, n int, t float32) error {
	return unary1(kStepAbove, s, out, x, n, t)
}

// Softplus sets out = log(1 + e^x) = max(x, 0) + log1p(e^-|x|), in float64
// (ops.Log1pExp, Kind "Softplus").
func Softplus(s cu.Stream, out, x cu.DevicePtr, n int) error { return unary(kSoftplus, s, out, x, n) }

// Relu sets out = 0 where x < 0, else x: NaN propagates, as the CPU's
// ops.Relu.
func Relu(s cu.Stream, out, x cu.DevicePtr, n int) error { return unary(kRelu, s, out, x, n) }

// Sigmoid sets out = 1/(1 + e^-x), computed in float64 (ops.Sigmoid).
func Sigmoid(s cu.Stream, out, x cu.DevicePtr, n int) error { return unary(kSigmoid, s, out, x, n) }

// RoundBFloat16 sets out to x rounded to the nearest bfloat16 (ties to
// even), kept in float32 (ops.RoundBFloat16, the CastToBFloat16 op).
func RoundBFloat16(s cu.Stream, out, x cu.DevicePtr, n int) error {
	return unary(kRoundBF16, s, out, x, n)
}

// Add sets out = a + b over n elements of equal shapes (ops.Add).
func Add(s cu.Stream, out, a, b cu.DevicePtr, n int) error { return binary(kAdd, s, out, a, b, n) }

// Sub sets out = a - b (ops.Sub).
func Sub(s cu.Stream, out, a, b cu.DevicePtr, n int) error { return binary(kSub, s, out, a, b, n) }

// Mul sets out = a * b (ops.Mul; also Dropout and DropoutGrad with the
// mask drawn on the host).
func Mul(s cu.Stream, out, a, b cu.DevicePtr, n int) error { return binary(kMul, s, out, a, b, n) }

// Div sets out = a / b (ops.Div).
func Div(s cu.Stream, out, a, b cu.DevicePtr, n int) error { return binary(kDiv, s, out, a, b, n) }

// Maximum sets out = max(a, b) with Go's max (NaN propagates) (ops.Maximum).
func Maximum(s cu.Stream, out, a, b cu.DevicePtr, n int) error {
	return binary(kMaximum, s, out, a, b, n)
}

// GreaterEqual sets out = 1 where a >= b, else 0 (the gradient mask of
// ops.Maximum).
func GreaterEqual(s cu.Stream, out, a, b cu.DevicePtr, n int) error {
	return binary(kGreaterEqual, s, out, a, b, n)
}

// ReluGrad sets out = dy where y > 0, else 0 (ops' ReluGrad).
func ReluGrad(s cu.Stream, out, y, dy cu.DevicePtr, n int) error {
	return binary(kReluGrad, s, out, y, dy, n)
}

// AddRelu sets out = 0 where a + b < 0, else a + b (ops.AddRelu). NaN
// propagates, as in the CPU's Go loop; the CPU's AVX-512 bulk turns a NaN
// sum into 0 instead.
func AddRelu(s cu.Stream, out, a, b cu.DevicePtr, n int) error {
	return binary(kAddRelu, s, out, a, b, n)
}

// Fill sets out[i] = c for n elements.
func Fill(s cu.Stream, out cu.DevicePtr, n int, c float32) error {
	if err := checkN("Fill", n, out); err != nil || n == 0 {
		return err
	}
	return elems(kFill, s, n, newArgs().p(out).l(n).f(c))
}

// ResetStatus sets the int64 status word at status to [StatusOK].
func ResetStatus(s cu.Stream, status cu.DevicePtr) error {
	if err := checkN("ResetStatus", 1, status); err != nil {
		return err
	}
	return launch(kStatusReset, s, dims3{1, 1, 1}, dims3{1, 1, 1}, newArgs().p(status))
}

// Unary runs the unary op of package ops whose Kind is kind (see
// [UnaryKinds]); c and d are its constants (Scale, AddScalar, StepAbove
// use c; Clip and ClipMask use c and d as lo and hi), ignored otherwise.
func Unary(s cu.Stream, kind string, out, x cu.DevicePtr, n int, c, d float32) error {
	id, ok := unaryKinds[kind]
	if !ok {
		return fmt.Errorf("kernels: no unary kernel for op kind %q", kind)
	}
	switch kernelTable[id].sig {
	case "pplf":
		return unary1(id, s, out, x, n, c)
	case "pplff":
		return unary2(id, s, out, x, n, c, d)
	}
	return unary(id, s, out, x, n)
}

// Binary runs the binary op of package ops whose Kind is kind (see
// [BinaryKinds]) on operands of n elements each (equal shapes).
func Binary(s cu.Stream, kind string, out, a, b cu.DevicePtr, n int) error {
	ids, ok := binaryKinds[kind]
	if !ok {
		return fmt.Errorf("kernels: no binary kernel for op kind %q", kind)
	}
	return binary(ids[0], s, out, a, b, n)
}
