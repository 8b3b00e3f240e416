package keras

import (
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// Logs are the values a step or epoch reports, as Keras' logs dict. One
// map is shared by the callbacks of an event, called in order, so an entry
// one sets (logs["epoch_time"] = t) is seen by the callbacks after it, by
// History and by the progress bar, as in Keras. [Logs.Items] gives the
// display order. Logs hold numbers only: the outputs that Keras puts in
// the logs of on_predict_batch_end (logs["outputs"]) reach a callback
// that implements [PredictBatchOutputsCallback].
type Logs map[string]float64

// Get returns the value named name.
func (l Logs) Get(name string) (float64, bool) {
	v, ok := l[name]
	return v, ok
}

// Callback receives Keras' training events. Embed [CallbackBase] to
// implement only the hooks you need.
type Callback interface {
	SetModel(m *Model)
	SetParams(p CallbackParams)
	OnTrainBegin(logs Logs) error
	OnTrainEnd(logs Logs) error
	OnEpochBegin(epoch int, logs Logs) error
	OnEpochEnd(epoch int, logs Logs) error
	OnTrainBatchBegin(batch int, logs Logs) error
	OnTrainBatchEnd(batch int, logs Logs) error
	OnTestBegin(logs Logs) error
	OnTestEnd(logs Logs) error
	OnTestBatchBegin(batch int, logs Logs) error
	OnTestBatchEnd(batch int, logs Logs) error
	OnPredictBegin(logs Logs) error
	OnPredictEnd(logs Logs) error
	OnPredictBatchBegin(batch int, logs Logs) error
	OnPredictBatchEnd(batch int, logs Logs) error
}

// PredictBatchOutputsCallback is a [Callback] that also takes each
// predict batch's outputs, Keras' logs["outputs"] in
// on_predict_batch_end: Predict calls OnPredictBatchOutputs with the
// batch's outputs, in output order, right before OnPredictBatchEnd of the
// same batch. The tensors are the callback's to keep.
type PredictBatchOutputsCallback interface {
	Callback
	OnPredictBatchOutputs(batch int, outputs []*tensor.Dense) error
}

// predictBatchOutputs hands a predict batch's outputs to the callbacks
// that take them (copies, so callbacks may keep or change them).
func predictBatchOutputs(cbs callbackList, batch int, outs []ops.Value) error {
	for _, c := range cbs {
		pc, ok := c.(PredictBatchOutputsCallback)
		if !ok {
			continue
		}
		ts := make([]*tensor.Dense, len(outs))
		for i, o := range outs {
			ts[i] = tensor.New(tensor.WithShape(o.Shape...), tensor.WithBacking(slices.Clone(o.Data)))
		}
		if err := pc.OnPredictBatchOutputs(batch, ts); err != nil {
			return err
		}
	}
	return nil
}

// Items returns the logs in display order: the names of order that are
// present, in that order, then the others sorted by name.
func (l Logs) Items(order []string) []LogItem {
	out := make([]LogItem, 0, len(l))
	seen := make(map[string]bool, len(l))
	for _, n := range order {
		if v, ok := l[n]; ok && !seen[n] {
			seen[n] = true
			out = append(out, LogItem{Name: n, Value: v})
		}
	}
	rest := make([]string, 0, len(l)-len(out))
	for n := range l {
		if !seen[n] {
			rest = append(rest, n)
		}
	}
	slices.Sort(rest)
	for _, n := range rest {
		out = append(out, LogItem{Name: n, Value: l[n]})
	}
	return out
}

// logOrder is the display order of m's logs, as Keras': the loss, the
// metrics in compile order, then their "val_" versions; entries callbacks
// add come after, by name. A nil model has no order.
func logOrder(m *Model) []string {
	if m == nil {
		return nil
	}
	var names []string
	for _, e := range m.logEntries() {
		names = append(names, e.name)
	}
	for _, n := range names[:len(names):len(names)] {
		names = append(names, "val_"+n)
	}
	return names
}

// CallbackParams are the run's settings, as Keras' callback.params.
type CallbackParams struct {
	Epochs  int
	Steps   int // steps per epoch; <= 0 if unknown
	Verbose int
}

// CallbackBase implements every Callback hook as a no-op and keeps the
// model and params.
type CallbackBase struct {
	Model  *Model
	Params CallbackParams
}

func (c *CallbackBase) SetModel(m *Model)                   { c.Model = m }
func (c *CallbackBase) SetParams(p CallbackParams)          { c.Params = p }
func (c *CallbackBase) OnTrainBegin(Logs) error             { return nil }
func (c *CallbackBase) OnTrainEnd(Logs) error               { return nil }
func (c *CallbackBase) OnEpochBegin(int, Logs) error        { return nil }
func (c *CallbackBase) OnEpochEnd(int, Logs) error          { return nil }
func (c *CallbackBase) OnTrainBatchBegin(int, Logs) error   { return nil }
func (c *CallbackBase) OnTrainBatchEnd(int, Logs) error     { return nil }
func (c *CallbackBase) OnTestBegin(Logs) error              { return nil }
func (c *CallbackBase) OnTestEnd(Logs) error                { return nil }
func (c *CallbackBase) OnTestBatchBegin(int, Logs) error    { return nil }
func (c *CallbackBase) OnTestBatchEnd(int, Logs) error      { return nil }
func (c *CallbackBase) OnPredictBegin(Logs) error           { return nil }
func (c *CallbackBase) OnPredictEnd(Logs) error             { return nil }
func (c *CallbackBase) OnPredictBatchBegin(int, Logs) error { return nil }
func (c *CallbackBase) OnPredictBatchEnd(int, Logs) error   { return nil }

// callbackList fans events out to callbacks in order, stopping at the
// first error.
type callbackList []Callback

func (cl callbackList) each(f func(Callback) error) error {
	for _, c := range cl {
		if err := f(c); err != nil {
			return err
		}
	}
	return nil
}

// event calls f for each callback in order with one new Logs they share,
// stopping at the first error.
func (cl callbackList) event(f func(Callback, Logs) error) error {
	logs := Logs{}
	for _, c := range cl {
		if err := f(c, logs); err != nil {
			return err
		}
	}
	return nil
}

// History records the logs of every epoch, as Keras' History callback;
// Fit returns it.
type History struct {
	CallbackBase
	// Epoch lists the epoch numbers (0-based) recorded.
	Epoch []int
	// History maps each log name to its value per epoch.
	History map[string][]float64
	// Names lists the log names in the order first seen.
	Names []string
}

// OnTrainBegin implements Callback.
func (h *History) OnTrainBegin(Logs) error {
	if h.History == nil {
		h.History = map[string][]float64{}
	}
	return nil
}

// OnEpochEnd implements Callback.
func (h *History) OnEpochEnd(epoch int, logs Logs) error {
	h.Epoch = append(h.Epoch, epoch)
	for _, it := range logs.Items(logOrder(h.Model)) {
		if _, ok := h.History[it.Name]; !ok {
			h.Names = append(h.Names, it.Name)
		}
		h.History[it.Name] = append(h.History[it.Name], it.Value)
	}
	return nil
}

// ProgbarLogger prints "Epoch i/n" and the progress bar: the default
// output of Fit.
type ProgbarLogger struct {
	CallbackBase
	Out     io.Writer
	bar     *Progbar
	seen    int
	epochs  int
	verbose int
}

func (p *ProgbarLogger) out() io.Writer {
	if p.Out == nil {
		return os.Stdout
	}
	return p.Out
}

// OnTrainBegin implements Callback.
func (p *ProgbarLogger) OnTrainBegin(Logs) error {
	p.epochs, p.verbose = p.Params.Epochs, p.Params.Verbose
	return nil
}

// OnEpochBegin implements Callback.
func (p *ProgbarLogger) OnEpochBegin(epoch int, _ Logs) error {
	if p.verbose > 0 {
		fmt.Fprintf(p.out(), "Epoch %d/%d\n", epoch+1, p.epochs)
	}
	p.bar = NewProgbar(p.Params.Steps, p.verbose, p.out())
	p.seen = 0
	return nil
}

// OnTrainBatchEnd implements Callback.
func (p *ProgbarLogger) OnTrainBatchEnd(batch int, logs Logs) error {
	p.seen = batch + 1
	if p.verbose == 1 && (p.Params.Steps <= 0 || p.seen < p.Params.Steps) {
		p.bar.Update(p.seen, logs.Items(logOrder(p.Model)), false)
	}
	return nil
}

// OnEpochEnd implements Callback: the final line carries the validation logs too.
func (p *ProgbarLogger) OnEpochEnd(_ int, logs Logs) error {
	if p.verbose > 0 {
		p.bar.Update(p.seen, logs.Items(logOrder(p.Model)), true)
	}
	return nil
}
