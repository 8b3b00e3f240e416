package main

import "gorgonia.org/tensor"

type rng struct{ start, end int }

func (r rng) Start() int { return r.start }
func (r rng) End() int   { return r.end }
func (r rng) Step() int  { return 1 }

func tensorRange(start, end int) tensor.Slice { return rng{start, end} }
