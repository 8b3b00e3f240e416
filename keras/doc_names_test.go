package keras_test

import (
	"os"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/callbacks"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/keras/mixedprecision"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/keras/utils"
)

// The names the package overview's "Where Keras' names are" gives for
// the Keras names a porter guesses (issue 28), referred to here so that
// renaming one fails this build; the overview must still name each.
var porterNames = map[string]any{
	"utils.ToCategorical":                 utils.ToCategorical,
	"mixedprecision.SetGlobalPolicy":      mixedprecision.SetGlobalPolicy,
	"model.StopTraining()":                (*keras.Model).StopTraining,
	"optimizer.CurrentLearningRate()":     optimizers.Optimizer.CurrentLearningRate,
	"model.Forward(x, false)":             (*keras.Model).Forward,
	"base.ApplyTraining(false, x)":        (*keras.Model).ApplyTraining,
	"layers.GetWeights(l)":                layers.GetWeights,
	"layers.SetWeights(l, ws)":            layers.SetWeights,
	"[Model.CountParams]":                 (*keras.Model).CountParams,
	"[Model.GetLayer]":                    (*keras.Model).GetLayer,
	"[Model.ToJSON]":                      (*keras.Model).ToJSON,
	"[ModelFromJSON]":                     keras.ModelFromJSON,
	"[Model.TrainOnBatch]":                (*keras.Model).TrainOnBatch,
	"[Model.TestOnBatch]":                 (*keras.Model).TestOnBatch,
	"[Model.PredictOnBatch]":              (*keras.Model).PredictOnBatch,
	"[Checkpoint]":                        keras.NewCheckpoint,
	"[CheckpointManager]":                 keras.NewCheckpointManager,
	"[LatestCheckpoint]":                  keras.LatestCheckpoint,
	"[PredictBatchOutputsCallback]":       (*keras.PredictBatchOutputsCallback)(nil),
	"strategy.Run":                        (*distribute.MirroredStrategy).Run,
	"ExperimentalRunV2":                   (*distribute.MirroredStrategy).ExperimentalRunV2,
	"MultiWorkerMirroredStrategy.Barrier": (*distribute.MultiWorkerMirroredStrategy).Barrier,
	"ExperimentalBarrier":                 (*distribute.MultiWorkerMirroredStrategy).ExperimentalBarrier,
	"strategy.ReduceValue(op, 3.0)":       (*distribute.MirroredStrategy).ReduceValue,
	"[Subclass]":                          keras.Subclass,
	"[RegisterSubclass]":                  keras.RegisterSubclass,
	"layers.Call":                         layers.Call,
	"metrics.Call(m, yTrue, yPred)":       metrics.Call,
	"LambdaCallback.PredictBatchOutputs":  callbacks.LambdaCallback{}.PredictBatchOutputs,
	"distribute.NewSimpleClusterResolver(spec, taskType, taskID)": distribute.NewSimpleClusterResolver,
	"SetLearningRate(lr)": optimizers.Optimizer.SetLearningRate,
}

// Each Go name of the overview's table is one the package exports (the
// map above compiles) and the overview names it, where go doc shows it.
func TestOverviewNamesPorterNames(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, name := range []string{
		"utils.ToCategorical", "mixedprecision.SetGlobalPolicy", "model.StopTraining()", "optimizer.CurrentLearningRate()",
		"model.Forward(x, false)", "base.ApplyTraining(false, x)", "layers.GetWeights(l)", "layers.SetWeights(l, ws)",
		"[Model.CountParams]", "[Model.GetLayer]", "[Model.ToJSON]", "[ModelFromJSON]", "[Model.TrainOnBatch]",
		"[Model.TestOnBatch]", "[Model.PredictOnBatch]", "[Checkpoint]", "[CheckpointManager]", "[LatestCheckpoint]",
		"[PredictBatchOutputsCallback]", "strategy.Run", "ExperimentalRunV2", "MultiWorkerMirroredStrategy.Barrier",
		"ExperimentalBarrier", "strategy.ReduceValue(op, 3.0)", "SetLearningRate(lr)", "LambdaCallback.PredictBatchOutputs",
		"metrics.Call(m, yTrue, yPred)", "distribute.NewSimpleClusterResolver(spec, taskType, taskID)",
	} {
		if porterNames[name] == nil {
			t.Errorf("%s: not referred to by porterNames", name)
		}
		if !strings.Contains(doc, name) {
			t.Errorf("the package overview (doc.go) does not name %s", name)
		}
	}
}
