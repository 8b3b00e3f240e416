package ops

import "gonum.org/v1/gonum/blas"

type blasTranspose = blas.Transpose

const (
	blasTrans   = blas.Trans
	blasNoTrans = blas.NoTrans
)
