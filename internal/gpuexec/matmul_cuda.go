//go:build cuda

package gpuexec

import (
	"fmt"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/cu"
)

func init() { register("MatMul", buildMatMul) }

// buildMatMul: cuBLAS Sgemm on row-major operands (internal/cuda's Sgemm
// swaps the operands for cuBLAS' column-major order), in exact FP32; with
// the bfloat16 GEMM precision (mixed_bfloat16) on copies of the operands
// rounded to bfloat16, as the CPU's bfloat16 GEMM rounds them.
func buildMatMul(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launchFn, bool, error) {
	ta, ok1 := attrField(st.Op.Attrs(), "TransA")
	tb, ok2 := attrField(st.Op.Attrs(), "TransB")
	if !ok1 || !ok2 || len(st.Ins) != 2 {
		return nil, false, nil
	}
	transA, transB := ta.(bool), tb.(bool)
	prec, _ := attrField(st.Op.Attrs(), "Precision")
	p, _ := prec.(string)
	bf16, err := bf16GEMM("MatMul", p)
	if err != nil {
		return nil, false, err
	}
	as, bs, os := shapes[st.Ins[0]], shapes[st.Ins[1]], shapes[st.Out]
	if len(as) != 2 || len(bs) != 2 || len(os) != 2 {
		return nil, false, fmt.Errorf("MatMul of shapes %v, %v -> %v", as, bs, os)
	}
	m, n := os[0], os[1]
	k := as[1]
	if transA {
		k = as[0]
	}
	lda, ldb := as[1], bs[1]
	if m == 0 || n == 0 {
		return func(cu.DevicePtr, []cu.DevicePtr) error { return nil }, true, nil
	}
	if k == 0 {
		return nil, false, nil // a zero product: the CPU kernel writes the zeros
	}
	if bf16 {
		if !x.kernelsOK {
			return nil, false, nil // the operands' rounding needs our kernels
		}
		rd, err := x.newRounder(st, shapes, 0, 1)
		if err != nil {
			return nil, false, err
		}
		return func(out cu.DevicePtr, in []cu.DevicePtr) error {
			r, err := rd.apply(x, in)
			if err != nil {
				return err
			}
			return x.Rep.Blas.Sgemm(transA, transB, m, n, k, 1, r[0], lda, r[1], ldb, 0, out)
		}, true, nil
	}
	return func(out cu.DevicePtr, in []cu.DevicePtr) error {
		return x.Rep.Blas.Sgemm(transA, transB, m, n, k, 1, in[0], lda, in[1], ldb, 0, out)
	}, true, nil
}
