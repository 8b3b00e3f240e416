package keras

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// Summary prints the model's layers, output shapes and parameter counts to
// standard output in Keras 2's table layout, as model.summary().
func (m *Model) Summary() error { return m.SummaryTo(os.Stdout) }

// SummaryString returns what Summary prints.
func (m *Model) SummaryString() (string, error) {
	var b strings.Builder
	err := m.SummaryTo(&b)
	return b.String(), err
}

// SummaryTo writes the summary to w. An unbuilt Sequential model (no input
// shape yet) is an error, as in Keras.
func (m *Model) SummaryTo(w io.Writer) error {
	if err := m.usable("Summary"); err != nil {
		return err
	}
	if !m.Built() {
		return fmt.Errorf("keras: Summary: model %q has not been built yet: give the first layer an input shape (layers.WithInputShape) or call Fit/Predict first", m.name)
	}
	seq := m.sequentialLike()
	lineLen := 65
	pos := []int{29, 55, 65}
	header := []string{"Layer (type)", "Output Shape", "Param #"}
	if !seq {
		lineLen = 98
		pos = []int{32, 53, 65, 98}
		header = append(header, "Connected to")
	}
	p := func(s string) { fmt.Fprintln(w, s) }
	p(fmt.Sprintf("Model: %q", m.name))
	p(strings.Repeat("_", lineLen))
	printRow(w, header, pos)
	p(strings.Repeat("=", lineLen))
	rows := m.Layers()
	for _, l := range rows {
		fields := []string{fmt.Sprintf("%s (%s)", l.Name(), l.ClassName()), m.outputShapeOf(l), fmt.Sprint(countParams(l.Weights()))}
		if !seq {
			fields = append(fields, m.connections(l))
		}
		printRow(w, fields, pos)
		p(strings.Repeat(" ", lineLen))
	}
	p(strings.Repeat("=", lineLen))
	train, non := countParams(m.TrainableVariables()), countParams(m.NonTrainableVariables())
	p("Total params: " + commas(train+non))
	p("Trainable params: " + commas(train))
	p("Non-trainable params: " + commas(non))
	p(strings.Repeat("_", lineLen))
	return nil
}

// sequentialLike is Keras' test for the narrow layout: every layer called
// once, on one input, in a chain.
func (m *Model) sequentialLike() bool {
	if m.sequential {
		return true
	}
	if len(m.inputs) != 1 || len(m.outputs) != 1 {
		return false
	}
	prev := m.inputs[0]
	for _, n := range m.nodes {
		if len(n.Inputs) != 1 || n.Inputs[0] != prev {
			return false
		}
		prev = n.Output
	}
	return len(m.nodes) == len(m.layers)
}

func (m *Model) outputShapeOf(l layers.Layer) string {
	if il, ok := l.(*layers.InputLayer); ok {
		return "[" + il.OutputShape().String() + "]"
	}
	var shape ops.Shape
	for _, n := range m.nodes {
		if n.Layer != l {
			continue
		}
		if shape != nil && !shape.Equal(n.Output.Shape()) {
			return "multiple"
		}
		shape = n.Output.Shape()
	}
	return shape.String()
}

// connections lists the inbound tensors of each call of l as Keras does:
// ['conv2d[0][0]', 'input_1[0][0]'].
func (m *Model) connections(l layers.Layer) string {
	var cs []string
	for _, n := range m.nodes {
		if n.Layer != l {
			continue
		}
		for _, in := range n.Inputs {
			cs = append(cs, fmt.Sprintf("'%s[%d][0]'", in.Node().Layer.Name(), in.Node().Index))
		}
	}
	return "[" + strings.Join(cs, ", ") + "]"
}

// printRow prints fields at the column end positions pos, wrapping long
// cells onto following lines (breaking after "),", "'," and the like) as
// Keras 2's print_summary does.
func printRow(w io.Writer, fields []string, pos []int) {
	left := append([]string(nil), fields...)
	for {
		any := false
		for _, f := range left {
			if f != "" {
				any = true
			}
		}
		if !any {
			return
		}
		var line strings.Builder
		for col := range left {
			start := 0
			if col > 0 {
				start = pos[col-1]
			}
			space := 2
			if col == len(pos)-1 {
				space = 0
			}
			cutoff := pos[col] - start - space
			fit := left[col]
			if len(fit) > cutoff {
				fit = fit[:cutoff]
			}
			best := -1
			for _, brk := range []string{"),", "},", "],", "',"} {
				if i := strings.Index(fit, brk); i >= 0 && (best < 0 || i+len(brk) < best) {
					best = i + len(brk)
				}
			}
			if best >= 0 {
				cutoff = best
				fit = fit[:cutoff]
			}
			if col == 0 {
				line.WriteString(" ")
			}
			line.WriteString(fit)
			line.WriteString(strings.Repeat(" ", space))
			if cutoff > len(left[col]) {
				cutoff = len(left[col])
			}
			left[col] = left[col][cutoff:]
			if pad := pos[col] - line.Len(); pad > 0 {
				line.WriteString(strings.Repeat(" ", pad))
			}
		}
		fmt.Fprintln(w, line.String())
	}
}

func countParams(vs []*ops.Variable) int {
	n := 0
	for _, v := range vs {
		n += v.Shape().Size()
	}
	return n
}

// commas formats n with thousands separators: 225034 -> 225,034.
func commas(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
