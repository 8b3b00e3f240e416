package ops

// FreezeRandomReplays makes the random ops (RandomFlip, RandomCrop,
// RandomTranslation) draw at every replay what they drew at the first, so
// that finite differences across replays see one function; the returned
// func undoes it. Tests only.
func FreezeRandomReplays() (restore func()) {
	frozenReplays.Store(true)
	return func() { frozenReplays.Store(false) }
}

// SetConvBiasFusion turns the fusion of a convolution with its bias and
// ReLU (conv_bias.go) on or off and returns the previous setting. Tests
// only.
func SetConvBiasFusion(on bool) (was bool) {
	was = !noConvBiasFusion
	noConvBiasFusion = !on
	return was
}

// SetBF16Fusion turns the rounding of CastToBFloat16 into its input's op
// (cast_fused.go) on or off and returns the previous setting. Tests only.
func SetBF16Fusion(on bool) (was bool) {
	was = !noBF16Fusion
	noBF16Fusion = !on
	return was
}
