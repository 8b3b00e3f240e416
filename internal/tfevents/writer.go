package tfevents

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// now is the clock of wall times and file names; tests replace it.
var now = time.Now

func wallTime(t time.Time) float64 { return float64(t.Unix()) + float64(t.Nanosecond())/1e9 }

// Writer appends events to a new event file in a directory, as
// tf.summary.create_file_writer does. It is safe for concurrent use.
type Writer struct {
	mu   sync.Mutex
	f    *os.File
	bw   *bufio.Writer
	path string
	err  error // the first write error; later writes return it
}

// NewWriter creates dir (and its parents) if needed and a new event file
// in it, events.out.tfevents.<unix seconds>.<hostname>.<pid>.v2, whose
// first event records the file version.
func NewWriter(dir string) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("tfevents: %w", err)
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	t := now()
	base := fmt.Sprintf("events.out.tfevents.%d.%s.%d", t.Unix(), host, os.Getpid())
	var f *os.File
	var path string
	for i := 0; ; i++ {
		name := base + ".v2"
		if i > 0 { // another writer of this process, this second, this directory
			name = fmt.Sprintf("%s.%d.v2", base, i)
		}
		path = filepath.Join(dir, name)
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || i > 1000 {
			return nil, fmt.Errorf("tfevents: %w", err)
		}
	}
	w := &Writer{f: f, bw: bufio.NewWriter(f), path: path}
	if err := w.WriteEvent(&Event{WallTime: wallTime(t), FileVersion: FileVersion}); err != nil {
		f.Close()
		return nil, err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// Path returns the event file's path.
func (w *Writer) Path() string { return w.path }

// WriteEvent appends e; a zero WallTime is set to now.
func (w *Writer) WriteEvent(e *Event) error {
	if e.WallTime == 0 {
		c := *e
		c.WallTime = wallTime(now())
		e = &c
	}
	data := Marshal(e)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.f == nil {
		return errors.New("tfevents: write to a closed writer")
	}
	if err := WriteRecord(w.bw, data); err != nil {
		w.err = fmt.Errorf("tfevents: %s: %w", w.path, err)
	}
	return w.err
}

// Scalar writes a scalar summary: tag's value at step.
func (w *Writer) Scalar(tag string, step int64, value float64) error {
	return w.WriteEvent(&Event{Step: step, Summary: []Value{{Tag: tag, SimpleValue: float32(value)}}})
}

// Histogram writes a histogram summary of values (30 buckets) at step;
// it writes nothing when no value is finite.
func (w *Writer) Histogram(tag string, step int64, values []float64) error {
	h := NewHistogram(values, 0)
	if h == nil {
		return nil
	}
	return w.WriteEvent(&Event{Step: step, Summary: []Value{{Tag: tag, Histo: h}}})
}

// Flush writes buffered events to the file.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil && w.bw != nil {
		if err := w.bw.Flush(); err != nil {
			w.err = fmt.Errorf("tfevents: %s: %w", w.path, err)
		}
	}
	return w.err
}

// Close flushes and closes the file. Closing twice is a no-op.
func (w *Writer) Close() error {
	err := w.Flush()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return err
	}
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("tfevents: %s: %w", w.path, cerr)
	}
	w.f, w.bw = nil, nil
	return err
}

// ReadEvents decodes every event of r, checking the records' CRCs.
func ReadEvents(r io.Reader) ([]*Event, error) {
	rr := NewRecordReader(r)
	var out []*Event
	for {
		rec, err := rr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("record %d: %w", len(out), err)
		}
		e, err := Unmarshal(rec)
		if err != nil {
			return out, fmt.Errorf("record %d: %w", len(out), err)
		}
		out = append(out, e)
	}
}

// ReadFile decodes every event of the event file at path.
func ReadFile(path string) ([]*Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	evs, err := ReadEvents(bufio.NewReader(f))
	if err != nil {
		return evs, fmt.Errorf("tfevents: %s: %w", path, err)
	}
	return evs, nil
}

// Files returns the event files of dir, sorted by name.
func Files(dir string) ([]string, error) {
	return filepath.Glob(filepath.Join(dir, "events.out.tfevents.*"))
}
