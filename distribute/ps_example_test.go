package distribute_test

import (
	"fmt"
	"log"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/ops"
)

// Every task of the cluster runs this program; TF_CONFIG says which task
// it is. The chief schedules; workers and servers serve until it is done.
func ExampleNewParameterServerStrategy() {
	s, err := distribute.NewParameterServerStrategy(nil, // TF_CONFIG
		distribute.VariablePartitioner(distribute.MinSizePartitioner(256<<10, 4)))
	if err != nil {
		log.Fatal(err)
	}
	w := ops.NewVariable("w", ops.Shape{2}, []float32{1, 2}, true)
	if err := s.Track(w); err != nil { // same variables, same order, on every task
		log.Fatal(err)
	}
	if !s.IsCoordinator() {
		if err := s.Join(); err != nil {
			log.Fatal(err)
		}
		return
	}
	defer s.Close()
	fmt.Println(s.NumWorkers(), "workers,", s.NumPS(), "parameter servers")
}

// A custom loop: the chief schedules a registered function on idle
// workers, each reading its own per-worker dataset.
func ExampleClusterCoordinator_Schedule() {
	s, err := distribute.NewParameterServerStrategy(nil)
	if err != nil {
		log.Fatal(err)
	}
	coord, err := distribute.NewClusterCoordinator(s)
	if err != nil {
		log.Fatal(err)
	}
	ds := coord.CreatePerWorkerDataset(func() (any, error) {
		return []float32{1, 2, 3}, nil // each worker's own data, built there
	})
	step := coord.Function("step", func(args ...any) (any, error) {
		data := args[0].([]float32)
		return float64(len(data)) * args[1].(float64), nil // a real step calls s.Run(trainStep, x, y)
	})
	if !s.IsCoordinator() {
		if err := coord.Join(); err != nil { // serves until the chief closes
			log.Fatal(err)
		}
		return
	}
	defer s.Close()
	var results []*distribute.RemoteValue
	for i := range 4 {
		rv, err := coord.Schedule(step, ds.Iterator(), float64(i))
		if err != nil {
			log.Fatal(err)
		}
		results = append(results, rv)
	}
	if err := coord.Join(); err != nil {
		log.Fatal(err)
	}
	for _, rv := range results {
		v, _ := rv.Fetch()
		fmt.Println(v)
	}
}
