package keras

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"
)

// Progbar draws Keras 2's progress bar:
//
//	938/938 [==============================] - 8s 9ms/step - loss: 0.2076 - accuracy: 0.9364
//
// On a terminal it redraws the line in place; otherwise it writes one line
// per update. Verbose 2 writes one line at the end only.
type Progbar struct {
	Target  int // steps; <= 0 for unknown
	Verbose int // 1: bar, 2: one line at the end
	Out     io.Writer
	// Dynamic redraws in place (set for terminals by NewProgbar).
	Dynamic bool
	// Interval is the minimum time between redraws (Keras: 0.05 s).
	Interval time.Duration

	start      time.Time
	afterFirst time.Time
	lastUpdate time.Time
	totalWidth int
	now        func() time.Time
}

// NewProgbar makes a progress bar writing to out (os.Stdout if nil).
func NewProgbar(target, verbose int, out io.Writer) *Progbar {
	if out == nil {
		out = os.Stdout
	}
	return &Progbar{Target: target, Verbose: verbose, Out: out, Dynamic: isTerminal(out), Interval: 50 * time.Millisecond, now: time.Now, start: time.Now()}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// LogItem is one named value shown after the bar, in order.
type LogItem struct {
	Name  string
	Value float64
}

// Update shows progress at step current with the given values; finalize
// forces the final line (it is implied when current reaches Target).
func (p *Progbar) Update(current int, values []LogItem, finalize bool) {
	now := p.now()
	if p.start.IsZero() {
		p.start = now
	}
	if current == 1 && p.afterFirst.IsZero() {
		p.afterFirst = now
	}
	if p.Target > 0 && current >= p.Target {
		finalize = true
	}
	elapsed := now.Sub(p.start).Seconds()
	switch p.Verbose {
	case 1:
		if !finalize && !p.lastUpdate.IsZero() && now.Sub(p.lastUpdate) < p.Interval {
			return
		}
		p.lastUpdate = now
		prev := p.totalWidth
		var b strings.Builder
		if p.Dynamic {
			b.WriteString(strings.Repeat("\b", prev))
			b.WriteString("\r")
		}
		bar := p.bar(current)
		b.WriteString(bar)
		p.totalWidth = len(bar)
		perStep := p.stepDuration(current, now)
		var info string
		if p.Target <= 0 || finalize {
			info = fmt.Sprintf(" - %.0fs", elapsed) + formatTime(perStep, "step")
		} else {
			info = " - ETA: " + formatETA(perStep*float64(p.Target-current))
		}
		info += formatValues(values)
		p.totalWidth += len(info)
		if p.Dynamic && prev > p.totalWidth {
			info += strings.Repeat(" ", prev-p.totalWidth)
		}
		b.WriteString(info)
		if finalize || !p.Dynamic {
			b.WriteString("\n")
		}
		io.WriteString(p.Out, b.String())
	case 2:
		if !finalize {
			return
		}
		perStep := elapsed / math.Max(float64(current), 1)
		line := fmt.Sprintf("%s - %.0fs%s -%s -%s\n", p.count(current), elapsed, formatValues(values),
			formatTime(elapsed, "epoch"), formatTime(perStep, "step"))
		io.WriteString(p.Out, line)
	}
}

func (p *Progbar) count(current int) string {
	if p.Target <= 0 {
		return fmt.Sprintf("%7d/Unknown", current)
	}
	digits := len(fmt.Sprint(p.Target))
	return fmt.Sprintf("%*d/%d", digits, current, p.Target)
}

func (p *Progbar) bar(current int) string {
	if p.Target <= 0 {
		return fmt.Sprintf("%7d/Unknown", current)
	}
	const width = 30
	s := p.count(current) + " ["
	w := int(width * float64(current) / float64(p.Target))
	if w > 0 {
		s += strings.Repeat("=", w-1)
		if current < p.Target {
			s += ">"
		} else {
			s += "="
		}
	}
	return s + strings.Repeat(".", max(width-w, 0)) + "]"
}

// stepDuration estimates seconds per step, leaving out the first step
// (which includes tracing) once there are more.
func (p *Progbar) stepDuration(current int, now time.Time) float64 {
	if current <= 0 {
		return 0
	}
	if !p.afterFirst.IsZero() && current > 1 {
		return now.Sub(p.afterFirst).Seconds() / float64(current-1)
	}
	return now.Sub(p.start).Seconds() / float64(current)
}

func formatTime(t float64, unit string) string {
	switch {
	case t >= 1 || t == 0:
		return fmt.Sprintf(" %.0fs/%s", t, unit)
	case t >= 1e-3:
		return fmt.Sprintf(" %.0fms/%s", t*1e3, unit)
	}
	return fmt.Sprintf(" %.0fus/%s", t*1e6, unit)
}

func formatETA(eta float64) string {
	e := int(eta)
	switch {
	case eta > 3600:
		return fmt.Sprintf("%d:%02d:%02d", e/3600, (e%3600)/60, e%60)
	case eta > 60:
		return fmt.Sprintf("%d:%02d", e/60, e%60)
	}
	return fmt.Sprintf("%ds", e)
}

// formatValues formats " - name: value" as Keras does: 4 decimals, or
// scientific notation for magnitudes at or below 1e-3.
func formatValues(values []LogItem) string {
	var b strings.Builder
	for _, v := range values {
		if math.Abs(v.Value) > 1e-3 {
			fmt.Fprintf(&b, " - %s: %.4f", v.Name, v.Value)
		} else {
			fmt.Fprintf(&b, " - %s: %.4e", v.Name, v.Value)
		}
	}
	return b.String()
}
