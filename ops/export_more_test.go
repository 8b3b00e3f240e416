package ops

// FreezeRandomReplays makes the random ops (RandomFlip, RandomCrop,
// RandomTranslation) draw at every replay what they drew at the first, so
// that finite differences across replays see one function; the returned
// func undoes it. Tests only.
func FreezeRandomReplays() (restore func()) {
	frozenReplays.Store(true)
	return func() { frozenReplays.Store(false) }
}
