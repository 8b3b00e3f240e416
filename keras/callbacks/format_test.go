package callbacks

import (
	"math"
	"strings"
	"testing"
)

func TestFormatLikePython(t *testing.T) {
	// Expected outputs are Python 3's str.format.
	for _, c := range []struct {
		tmpl string
		v    any
		want string
	}{
		{"ckpt_{x:04d}.weights.npz", 3, "ckpt_0003.weights.npz"},
		{"{x:.2f}", 0.12345, "0.12"},
		{"{x:.2f}", 0.125, "0.12"}, // round half to even on the binary value
		{"{x:.4f}", 0.123456, "0.1235"},
		{"{x}", 5, "5"},
		{"{x}", 0.1, "0.1"},
		{"{x}", 1e-05, "1e-05"},
		{"{x}", 0.0001, "0.0001"},
		{"{x}", 100.0, "100.0"},
		{"{x}", 1e16, "1e+16"},
		{"{x}", 1e15, "1000000000000000.0"},
		{"{x}", 123456789012345678.0, "1.2345678901234568e+17"},
		{"{x}", 0.6931471824645996, "0.6931471824645996"},
		{"{x}", -2.5, "-2.5"},
		{"{x!s}", 0.5, "0.5"},
		{"{x!r}", "a", "'a'"},
		{"{x:>8.3f}", 3.14159, "   3.142"},
		{"{x:<8}|", 12, "12      |"},
		{"{x:^7d}", 42, "  42   "},
		{"{x:*^8}", 42, "***42***"},
		{"{x:+.1e}", 12345.678, "+1.2e+04"},
		{"{x:e}", 0.0, "0.000000e+00"},
		{"{x:E}", 1234.5, "1.234500E+03"},
		{"{x:,}", 1234567, "1,234,567"},
		{"{x:_d}", 1234567, "1_234_567"},
		{"{x:,.2f}", 1234567.891, "1,234,567.89"},
		{"{x:.3g}", 0.0001234, "0.000123"},
		{"{x:.3g}", 1234567.0, "1.23e+06"},
		{"{x:g}", 100000.0, "100000"},
		{"{x:g}", 1e6, "1e+06"},
		{"{x:g}", 0.5, "0.5"},
		{"{x:G}", 1e-10, "1E-10"},
		{"{x:#.3g}", 1.0, "1.00"},
		{"{x:.2%}", 0.256, "25.60%"},
		{"{x:08.3f}", -3.14159, "-003.142"},
		{"{x:+05d}", 7, "+0007"},
		{"{x: d}", 7, " 7"},
		{"{x:#x}", 255, "0xff"},
		{"{x:#010x}", 255, "0x000000ff"},
		{"{x:X}", 255, "FF"},
		{"{x:b}", 5, "101"},
		{"{x:o}", 8, "10"},
		{"{x:.3}", 123.456, "1.23e+02"},
		{"{x:.3}", 12.0, "12.0"},
		{"{x:.1}", 1.0, "1e+00"},
		{"{x:f}", 3, "3.000000"},
		{"{x:.1f}", 2, "2.0"},
		{"{x:.2f}", math.NaN(), "nan"},
		{"{x:.2f}", math.Inf(1), "inf"},
		{"{x:.1f}", math.Inf(-1), "-inf"},
		{"{x:F}", math.Inf(1), "INF"},
		{"{x}", math.NaN(), "nan"},
		{"{x:5}", "ab", "ab   "},
		{"{x:>5}", "ab", "   ab"},
		{"{x:.1}", "ab", "a"},
		{"{x:05}", "ab", "ab000"},
		{"{{x}} {x}", 1, "{x} 1"},
		{"}}{{", 1, "}{"},
		{"{x:d}", int64(-12), "-12"},
	} {
		got, err := Format(c.tmpl, map[string]any{"x": c.v})
		if err != nil {
			t.Errorf("Format(%q, %v): %v", c.tmpl, c.v, err)
			continue
		}
		if got != c.want {
			t.Errorf("Format(%q, %v) = %q, want %q", c.tmpl, c.v, got, c.want)
		}
	}
}

func TestFormatKerasTemplates(t *testing.T) {
	vals := map[string]any{"epoch": 5, "loss": 0.31234, "val_loss": 0.2871, "val_accuracy": 0.9125}
	got, err := Format("weights.{epoch:02d}-{val_loss:.2f}.keras", vals)
	if err != nil || got != "weights.05-0.29.keras" {
		t.Errorf("%q %v", got, err)
	}
	got, err = Format("/tmp/ckpt/{epoch}_{val_accuracy:.3f}", vals)
	if err != nil || got != "/tmp/ckpt/5_0.912" {
		t.Errorf("%q %v", got, err)
	}
}

func TestFormatErrors(t *testing.T) {
	vals := map[string]any{"epoch": 1, "loss": 0.5}
	for _, c := range []struct{ tmpl, want string }{
		{"{val_loss:.2f}", `no value for field "val_loss" (the values are epoch, loss)`},
		{"{loss:d}", "unknown format code 'd' for object of type 'float'"},
		{"{epoch:.2d}", "precision not allowed"},
		{"{epoch", "single '{'"},
		{"epoch}", "single '}'"},
		{"{}", "positional field"},
		{"{0}", "positional field"},
		{"{epoch.real}", "attribute"},
		{"{epoch!x}", "conversion"},
		{"{epoch:{w}}", "nested"},
		{"{loss:.}", "missing the precision"},
		{"{loss:2.2ff}", "invalid format specifier"},
	} {
		_, err := Format(c.tmpl, vals)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Format(%q): %v, want an error containing %q", c.tmpl, err, c.want)
		}
	}
}
