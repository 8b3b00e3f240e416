package datasets

// Autotune is tf.data.AUTOTUNE: given to [Dataset.Prefetch] or as the
// worker count of [Dataset.MapParallel], it lets the package choose
// (Prefetch keeps autotunePrefetch elements ahead; MapParallel runs
// GOMAXPROCS workers).
const Autotune = -1

// autotunePrefetch is the buffer Prefetch(Autotune) keeps: two batches
// ahead hide the time of preparing one behind a training step, and more
// only hold memory.
const autotunePrefetch = 2
