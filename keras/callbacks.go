package keras

import (
	"fmt"
	"io"
	"os"
)

// Logs are the values a step or epoch reports, in display order: "loss",
// then metrics, then "val_" ones.
type Logs []LogItem

// Get returns the value named name.
func (l Logs) Get(name string) (float64, bool) {
	for _, it := range l {
		if it.Name == name {
			return it.Value, true
		}
	}
	return 0, false
}

// Map returns the logs as a map.
func (l Logs) Map() map[string]float64 {
	m := make(map[string]float64, len(l))
	for _, it := range l {
		m[it.Name] = it.Value
	}
	return m
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

// EpochLogsAdder is implemented by callbacks that add entries to an
// epoch's logs, as Keras' ReduceLROnPlateau and LearningRateScheduler set
// logs["learning_rate"]. Keras' logs are one dict that every callback may
// write; here Fit asks the callback after its OnEpochEnd and sets the
// entries (replacing ones of the same name) in the logs the callbacks after
// it receive. History and the progress bar run after the callbacks given to
// Fit, as in Keras, so they record and print the added entries.
type EpochLogsAdder interface {
	AddedEpochLogs() Logs
}

// with returns a copy of l with the entries of add set.
func (l Logs) with(add Logs) Logs {
	out := append(Logs(nil), l...)
next:
	for _, a := range add {
		for i := range out {
			if out[i].Name == a.Name {
				out[i].Value = a.Value
				continue next
			}
		}
		out = append(out, a)
	}
	return out
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
	for _, it := range logs {
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
		p.bar.Update(p.seen, logs, false)
	}
	return nil
}

// OnEpochEnd implements Callback: the final line carries the validation logs too.
func (p *ProgbarLogger) OnEpochEnd(_ int, logs Logs) error {
	if p.verbose > 0 {
		p.bar.Update(p.seen, logs, true)
	}
	return nil
}
