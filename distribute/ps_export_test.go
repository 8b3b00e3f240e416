package distribute

// PulledValues is the number of float32 values the server task s sent to
// Pull calls so far (for ps_pull_test.go).
func PulledValues(s *ParameterServerStrategy) int64 {
	s.psServer.mu.Lock()
	defer s.psServer.mu.Unlock()
	return s.psServer.pulled
}

// BudgetInUse is the bytes of the memory budget the calls of task s hold.
func BudgetInUse(s *ParameterServerStrategy) int64 { return s.limiter.budget.used.Load() }
