package datasets

// mt19937 is the Mersenne Twister of numpy's legacy RandomState, so that
// the text loaders shuffle as Keras does (np.random.RandomState(seed)
// then .shuffle).
type mt19937 struct {
	key [624]uint32
	pos int
}

// newMT19937 seeds as RandomState(seed) does for an integer seed below
// 2**32 (Matsumoto and Nishimura's init_genrand).
func newMT19937(seed uint32) *mt19937 {
	m := &mt19937{pos: 624}
	m.key[0] = seed
	for i := 1; i < 624; i++ {
		prev := m.key[i-1]
		m.key[i] = 1812433253*(prev^(prev>>30)) + uint32(i)
	}
	return m
}

func (m *mt19937) next() uint32 {
	const upper, lower, matrixA = 0x80000000, 0x7fffffff, 0x9908b0df
	if m.pos >= 624 {
		for i := 0; i < 624; i++ {
			y := m.key[i]&upper | m.key[(i+1)%624]&lower
			v := m.key[(i+397)%624] ^ y>>1
			if y&1 != 0 {
				v ^= matrixA
			}
			m.key[i] = v
		}
		m.pos = 0
	}
	y := m.key[m.pos]
	m.pos++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// interval returns a uniform integer in [0, max] by masked rejection, as
// numpy's random_interval (max below 2**32 here).
func (m *mt19937) interval(max uint32) uint32 {
	if max == 0 {
		return 0
	}
	mask := max
	mask |= mask >> 1
	mask |= mask >> 2
	mask |= mask >> 4
	mask |= mask >> 8
	mask |= mask >> 16
	for {
		if v := m.next() & mask; v <= max {
			return v
		}
	}
}

// shuffle permutes idx in place as RandomState.shuffle does a 1-D array:
// Fisher-Yates from the last element down.
func (m *mt19937) shuffle(idx []int) {
	for i := len(idx) - 1; i > 0; i-- {
		j := int(m.interval(uint32(i)))
		idx[i], idx[j] = idx[j], idx[i]
	}
}

// kerasPermutation is np.arange(n) shuffled by rng, the order in which
// Keras' text loaders take the examples.
func kerasPermutation(rng *mt19937, n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	rng.shuffle(idx)
	return idx
}
