package main

import (
	"fmt"
	"time"

	"github.com/gokeras/gokeras/distribute"
)

// profileLine says where a step's time went (-profile): the wall time of
// a step, the time the gradient all-reduce took (in process and across
// workers), and the part of it the step waited for, the communication
// share of the step. Overlapped, the difference was hidden behind the
// backward pass.
func profileLine(st distribute.CommunicationStats, took time.Duration, steps int) string {
	if steps <= 0 {
		return "profile: no steps"
	}
	ms := func(d time.Duration) float64 { return d.Seconds() * 1e3 / float64(steps) }
	step := ms(took)
	if st.Reduce == 0 && st.Exposed == 0 {
		return fmt.Sprintf("profile: %.1f ms per step; no gradient all-reduce (one replica in the job)", step)
	}
	mode := "after the backward pass"
	if st.Overlapped {
		mode = "overlapped with the backward pass"
	}
	share := 0.0
	if step > 0 {
		share = 100 * ms(st.Exposed) / step
	}
	return fmt.Sprintf("profile: %.1f ms per step; gradient all-reduce %.1f ms per step %s, %.1f ms of it not hidden: communication %.1f%% of a step",
		step, ms(st.Reduce), mode, ms(st.Exposed), share)
}
